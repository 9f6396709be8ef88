/* A step's details, copy-as-curl, an agent run's turns (part of the report's script: see report.js). */
  // ---- a step's details ----------------------------------------------------------------------------------
  function openStep(id, keepView) {
    var step = DATA.steps[id];
    if (step.execution !== state.execution) { openExecution(step.execution, id, keepView); return; }
    state.step = id;
    Array.prototype.forEach.call(executionPane.querySelectorAll("tr.selected, g.selected"), function (n) { n.classList.remove("selected"); });
    Array.prototype.forEach.call(executionPane.querySelectorAll('tr[data-step="' + id + '"]'), function (n) { n.classList.add("selected"); });
    Array.prototype.forEach.call(executionPane.querySelectorAll("g.node"), function (n) {
      if (n.getAttribute("data-step-id") === step.stepId) n.classList.add("selected");
    });
    if (state.view !== "overview" && !keepView) show("overview");
    renderStep(step);
  }

  // Each part on its own (`guarded`): one whose data is not in the form read here says so, the rest shows.
  function renderStep(step) {
    clear(detail);
    guarded(detail, "the step's heading", function () {
      return el("h2", null, [badge(outcome(step), step.status), " step ", el("span", { "class": "mono", text: step.name })]);
    });
    guarded(detail, "the step's facts", function () { return stepFacts(step); });
    guarded(detail, "the step's error and warnings", function () {
      return [step.error ? el("p", { "class": "error", id: "step-error", text: json(step.error) }) : null].concat(
        listOf(step.warnings, "its 'warnings'").map(function (w) { return el("p", { "class": "note", text: "warning: " + w }); }));
    });
    if (step.contract && step.contract.length) {
      detail.appendChild(el("h3", { text: "Contract violations" }));
      guarded(detail, "the contract violations", function () { return contractTable(step.contract); });
    }
    var attempts = [], attemptsError = null;
    try { attempts = listOf(step.trace ? step.trace.attempts : null, "the step's 'attempts'"); } catch (e) { attemptsError = e; }
    var lastAttempt = attempts.length ? attempts[attempts.length - 1] : null;
    detail.appendChild(el("h3", { text: "Success criteria" }));
    guarded(detail, "the criteria checked", function () {
      if (attemptsError && !(step.failedCriteria && step.failedCriteria.length)) throw attemptsError;
      return criteriaTable(step, lastAttempt);
    });
    if (lastAttempt && lastAttempt.expressions) {
      detail.appendChild(el("h3", { text: "Runtime expressions and what they resolved to" }));
      guarded(detail, "the runtime expressions", function () { return expressionTable(lastAttempt.expressions); });
    }
    if (step.outputs && Object.keys(step.outputs).length) {
      detail.appendChild(el("h3", { text: "Outputs" }));
      detail.appendChild(el("pre", { id: "step-outputs", text: json(step.outputs) }));
    }
    if (attempts.length || attemptsError) {
      detail.appendChild(el("h3", { text: "Attempts" }));
      guarded(detail, "the attempts", function () { if (attemptsError) throw attemptsError; return attemptTable(attempts); });
    }
    guarded(detail, "the HTTP exchanges", function () { return exchangesOf(step); });
    guarded(detail, "the messages", function () { return messagesOf(step); });
    guarded(detail, "the workflow runs of this step", function () { return childrenOf(step); });
  }

  function stepFacts(step) {
    var execution = DATA.executions[step.execution];
    var facts = el("dl", { "class": "kv", id: "step-facts" });
    function fact(name, value) { if (value !== null && value !== undefined && value !== "") append(facts, [el("dt", { text: name }), el("dd", null, value)]); }
    fact("workflow", execution.name);
    var where = step.trace && step.trace.location;
    if (where) fact("written at", el("span", { "class": "mono", text: where.file + ":" + where.line + ":" + where.column }));
    if (step.request) fact("request", el("span", { "class": "mono", text: step.request.method + " " + step.request.url }));
    if (step.messageAction) fact("message", String(step.messageAction));
    fact("HTTP status", step.statusCode === null || step.statusCode === undefined ? "" : String(step.statusCode));
    fact("started", step.startedAt ? String(step.startedAt) : "");
    fact("duration", ms(step.durationMs));
    fact("attempts", String(step.attempts));
    fact("then", step.action ? String(step.action) : "");
    return facts;
  }

  function exchangesOf(step) {
    var exchanges = listOf(step.exchanges, "the step's 'exchanges'");
    var box = el("div");
    if (exchanges.length) {
      box.appendChild(el("h3", { text: "HTTP exchanges" }));
      exchanges.forEach(function (exchange, i) {
        guarded(box, "HTTP exchange " + (i + 1), function () { return exchangeBox(exchange, i === exchanges.length - 1); });
      });
    } else if (step.response) {
      box.appendChild(el("h3", { text: "Response (start of the body)" }));
      box.appendChild(el("pre", { "class": "response-body", text: step.response.body === null ? "(empty)" : json(step.response.body) }));
    }
    return box;
  }

  function messagesOf(step) {
    var messages = listOf(step.messages, "the step's 'messages'");
    if (!messages.length) return null;
    var box = el("div", null, el("h3", { text: "Messages" }));
    messages.forEach(function (m, i) {
      guarded(box, "message " + (i + 1), function () {
        return el("div", { "class": "exchange" }, [
          el("div", { "class": "mono", text: m.direction + " " + m.protocol + " " + m.server + " channel " + m.channel + (m.at ? " at " + m.at : "") }),
          m.correlationId ? el("div", { "class": "mono", text: "correlationId " + m.correlationId }) : null,
          m.error ? el("p", { "class": "error", text: json(m.error) }) : null,
          headerTable(m.headers), el("pre", { text: m.payload === null ? "(no payload)" : json(m.payload) })]);
      });
    });
    return box;
  }

  function childrenOf(step) {
    if (!step.children || !step.children.length) return null;
    var list = el("ul");
    step.children.forEach(function (index) {
      var child = DATA.executions[index];
      list.appendChild(el("li", null, el("button", { "class": "link", "data-open-execution": index, text: child.name, onclick: function () { openExecution(index); } }, null)));
      list.lastChild.appendChild(badge(child.status));
    });
    return [el("h3", { text: "Workflow runs of this step" }), list];
  }

  function criteriaTable(step, attempt) {
    var criteria = attempt && attempt.criteria;
    if (!criteria) {
      var failed = listOf(step.failedCriteria, "the step's 'failedCriteria'");
      if (!failed.length) return el("p", { "class": "muted", id: "criteria", text: step.trace ? "none checked (the step has none, or failed before they were checked)" : "not recorded in this report" });
      var list = el("ul", { id: "criteria" });
      failed.forEach(function (f) { list.appendChild(el("li", { "class": "error", text: "✗ " + json(f) })); });
      return list;
    }
    criteria = listOf(criteria, "the last attempt's 'criteria'");
    var table = el("table", { id: "criteria" });
    table.appendChild(el("thead", null, el("tr", null, ["", "condition", "values seen", "verdict"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    criteria.forEach(function (c, i) {
      guarded(body, "criterion " + (i + 1), function () {
        objectOf(c, "it");
        var values = el("div");
        listOf(c.values, "its 'values'").forEach(function (v) { values.appendChild(el("div", { "class": "mono", text: v.expression + " = " + valueText(v) })); });
        return el("tr", { "class": c.passed ? "passed" : "failed" }, [
          el("td", null, badge(c.passed ? "passed" : "failed", c.passed ? "✓" : "✗")),
          el("td", { "class": "mono", text: c.condition + (c.type && c.type !== "simple" ? "  (" + c.type + (c.context ? ", context " + c.context : "") + ")" : "") }),
          el("td", null, values), el("td", { text: c.passed ? "passed" : (c.message || "failed") })]);
      });
    });
    table.appendChild(body);
    return table;
  }

  function valueText(v) {
    if ("missing" in v) return "(missing: " + v.missing + ")";
    var text = typeof v.value === "string" && v.value !== "***" ? JSON.stringify(v.value) : json(v.value);
    if (v.secret) text = "*** (derived from a secret)";
    return text + (v.cut ? " (cut)" : "");
  }

  function expressionTable(expressions) {
    expressions = listOf(expressions, "the last attempt's 'expressions'");
    var table = el("table", { id: "expressions" });
    table.appendChild(el("thead", null, el("tr", null, ["where", "expression", "value"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    expressions.forEach(function (x, i) {
      guarded(body, "expression " + (i + 1), function () {
        objectOf(x, "it");
        return el("tr", null, [el("td", { text: x.where }), el("td", { "class": "mono", text: x.expression }), el("td", { "class": "mono", text: valueText(x) })]);
      });
    });
    table.appendChild(body);
    return table;
  }

  // The response's departures from its OpenAPI description (`http/contract.py`): one row each.
  function contractTable(violations) {
    violations = listOf(violations, "the step's 'contract'");
    var table = el("table", { id: "contract" });
    table.appendChild(el("thead", null, el("tr", null, ["HTTP", "media type", "where", "wanted", "got"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    violations.forEach(function (v, i) {
      guarded(body, "violation " + (i + 1), function () {
        objectOf(v, "it");
        var where = v.part === "body" ? "body " + (v.pointer || "(whole)") : v.part;
        return el("tr", null, [el("td", { text: v.status }), el("td", { "class": "mono", text: v.mediaType }),
          el("td", { "class": "mono", text: where }), el("td", { text: v.wanted }), el("td", { "class": "mono", text: v.got })]);
      });
    });
    table.appendChild(body);
    return table;
  }

  function attemptTable(attempts) {
    var table = el("table", { id: "attempts" });
    table.appendChild(el("thead", null, el("tr", null, ["#", "started", "took", "status", "HTTP", "then"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    attempts.forEach(function (a, i) {
      guarded(body, "attempt " + (i + 1), function () {
        objectOf(a, "it");
        var then = a.retry ? "retry '" + a.retry.action + "' after " + a.retry.delaySeconds + " s" : "";
        return el("tr", null, [el("td", { text: a.attempt }), el("td", { "class": "mono", text: a.startedAt }), el("td", { text: ms(a.durationMs) }),
          el("td", null, [badge(a.status), a.message ? el("div", { "class": "error", text: a.message }) : null]),
          el("td", { text: a.statusCode === undefined ? "" : a.statusCode }), el("td", { text: then })]);
      });
    });
    table.appendChild(body);
    return table;
  }

  function headerTable(headers) {
    headers = listOf(headers, "the 'headers'");
    if (!headers.length) return el("p", { "class": "muted", text: "no headers" });
    var table = el("table", { "class": "headers" });
    var body = el("tbody");
    headers.forEach(function (h, i) {
      guarded(body, "header " + (i + 1), function () { objectOf(h, "it"); return el("tr", null, [el("td", { "class": "mono", text: h.name }), el("td", { "class": "mono", text: h.value })]); });
    });
    table.appendChild(body);
    return table;
  }

  function bodyBlock(part, cls) {
    var box = el("div");
    var notes = [];
    if (part.bodyBinary) notes.push("binary body: " + part.bodySize + " bytes, not shown");
    if (part.bodyOmittedBytes) notes.push("cut: " + part.bodyOmittedBytes + " bytes left out of the report (limit " + DATA.limits.fileBody + " bytes)");
    if (part.pageCutChars) notes.push("cut in this page: " + part.pageCutChars + " more characters are in the JSON report (page limit " + DATA.limits.pageBody + ")");
    notes.forEach(function (n) { box.appendChild(el("p", { "class": "note body-note", text: n })); });
    if (!part.bodyBinary) box.appendChild(el("pre", { "class": cls, text: part.body === null || part.body === undefined || part.body === "" ? "(empty body)" : json(part.body) }));
    if (part.events) box.appendChild(el("details", null, [el("summary", { text: listOf(part.events, "its 'events'").length + " server-sent events" }), el("pre", { text: json(part.events) })]));
    return box;
  }

  function exchangeBox(exchange, open) {
    objectOf(exchange, "it");
    var request = objectOf(exchange.request, "its 'request'"), response = exchange.response;
    var line = request.method + " " + request.url + " → " + (response ? response.status : "no response") + " (" + ms(exchange.durationMs) + ")";
    var box = el("details", { "class": "exchange", open: open ? "open" : null });
    box.appendChild(el("summary", { text: (exchange.purpose ? "[" + exchange.purpose + "] " : "") + line }));
    box.appendChild(el("h3", { text: "Request" }));
    guarded(box, "the request's headers", function () { return headerTable(request.headers); });
    guarded(box, "the request's body", function () { return bodyBlock(request, "request-body"); });
    var curlButton = el("button", { "class": "small curl-button", text: "copy as curl" });
    var curlArea = null;
    curlButton.addEventListener("click", function () {
      if (!curlArea) {
        var text;
        try { text = curl(request); } catch (e) { curlArea = unrendered("the request as a curl command", e); }
        if (text !== undefined) { curlArea = el("textarea", { "class": "curl", readonly: "readonly" }); curlArea.value = text; }
        box.insertBefore(curlArea, curlButton.nextSibling);
      }
      if (curlArea.tagName !== "TEXTAREA") return;
      curlArea.select();
      try { if (navigator.clipboard) navigator.clipboard.writeText(curlArea.value).catch(function () {}); else document.execCommand("copy"); } catch (e) { /* selected: copy by hand */ }
    });
    box.appendChild(curlButton);
    if (exchange.error) box.appendChild(el("p", { "class": "error", text: json(exchange.error) }));
    if (response) {
      guarded(box, "the response", function () {
        objectOf(response, "its 'response'");
        return [el("h3", { text: "Response " + response.status }), headerTable(response.headers), bodyBlock(response, "response-body")];
      });
    }
    return box;
  }

  // The request as a command for POSIX shells (sh, bash, zsh; pasted, or run with `sh -c`). Every part
  // taken from the report is one word in single quotes (a `'` in it as '\''), so that nothing in it is
  // shell syntax: not `$`, backticks, `!` (history), `|`, `;` nor a newline, whatever the method, URL,
  // header or body holds (a report given to `arazzo report` may be written by anyone; an OpenAPI 3.2
  // `additionalOperations` method may hold any token character). Each masked part (***) is a variable to
  // set, in double quotes between them: "${AUTHORIZATION}", "${API_KEY}" (a query parameter), "${SECRET}".
  function curl(request) {
    var names = {};
    function literal(text) { return "'" + text.replace(/'/g, "'\\''") + "'"; }
    function quote(value, name) {
      var pieces = json(value).split("***"), word = "";
      pieces.forEach(function (piece, i) {
        if (piece) word += literal(piece);
        if (i < pieces.length - 1) { word += '"${' + name + '}"'; names[name] = true; }
      });
      return word || "''";
    }
    function variable(text) {
      var name = String(text).toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "SECRET";
      return /^[0-9]/.test(name) ? "SECRET_" + name : name;
    }
    function urlVariable(url) { var m = /[?&]([^=&]+)=\*\*\*/.exec(url); return m ? variable(m[1]) : "SECRET"; }
    var url = json(request.url);
    var words = ["curl"];
    if (request.method !== null && request.method !== undefined) words.push("-X " + quote(request.method, "SECRET"));
    // a URL that does not start with its scheme (only a hand-written report has one) could read as an option
    words.push((/^[A-Za-z][A-Za-z0-9+.-]*:/.test(url) ? "" : "--url ") + quote(url, urlVariable(url)));
    var lines = [words.join(" ")];
    listOf(request.headers, "the request's 'headers'").forEach(function (h, i) {
      objectOf(h, "its header " + (i + 1));
      if (/^(content-length|host)$/i.test(h.name)) return;
      lines.push("-H " + quote(h.name + ": " + h.value, variable(h.name)));
    });
    var notes = [];
    if (request.bodyBinary) {
      var size = Number(request.bodySize);
      lines.push("--data-binary @body.bin");
      notes.push("# the body is binary" + (isFinite(size) ? " (" + size + " bytes)" : "") + ": put it in body.bin");
    } else if (request.body !== null && request.body !== undefined && request.body !== "") {
      lines.push("--data-raw " + quote(request.body, "SECRET"));
      if (request.bodyOmittedBytes || request.pageCutChars) notes.push("# the body was cut in the report: this one is incomplete");
    }
    var set = Object.keys(names);
    if (set.length) notes.push("# secrets are not in the report: set " + set.join(", ") + " first");
    return notes.concat([lines.join(" \\\n  ")]).join("\n");
  }

  function agentPanel(run) {
    var agent = run.agent || {};
    var box = el("div", { id: "agent" });
    box.appendChild(el("h2", null, [badge(run.status), " agent run"]));
    var facts = el("dl", { "class": "kv" });
    [["model", agent.model], ["endpoint", agent.endpoint], ["turns", agent.turns], ["answer", agent.answer],
      ["usage", agent.usage ? json(agent.usage) : null]].forEach(function (p) {
      if (p[1] !== null && p[1] !== undefined) append(facts, [el("dt", { text: p[0] }), el("dd", { text: String(p[1]) })]);
    });
    box.appendChild(facts);
    if (agent.error) box.appendChild(el("p", { "class": "error", text: agent.error.message }));
    var turns = {};
    (agent.toolCalls || []).forEach(function (call) { (turns[call.turn] = turns[call.turn] || []).push(call); });
    Object.keys(turns).forEach(function (turn) {
      var t = el("div", { "class": "turn" }, el("h3", { text: "turn " + turn + ": " + turns[turn].length + " tool call(s)" }));
      turns[turn].forEach(function (call) {
        var row = el("div", null, [badge(call.status), " ", el("span", { "class": "mono", text: call.name + " " + (typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)) })]);
        (call.executions || []).forEach(function (index) {
          row.appendChild(el("button", { "class": "link", text: " → " + DATA.executions[index].name, onclick: function () { openExecution(index); } }));
        });
        if (call.error) row.appendChild(el("div", { "class": "error", text: call.error.message }));
        else if (call.outputs) row.appendChild(el("pre", { text: json(call.outputs) }));
        t.appendChild(row);
      });
      box.appendChild(t);
    });
    return box;
  }

