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

  function renderStep(step) {
    clear(detail);
    var execution = DATA.executions[step.execution];
    detail.appendChild(el("h2", null, [badge(outcome(step), step.status), " step ", el("span", { "class": "mono", text: step.name })]));
    var facts = el("dl", { "class": "kv", id: "step-facts" });
    function fact(name, value) { if (value !== null && value !== undefined && value !== "") append(facts, [el("dt", { text: name }), el("dd", null, value)]); }
    fact("workflow", execution.name);
    var where = step.trace && step.trace.location;
    if (where) fact("written at", el("span", { "class": "mono", text: where.file + ":" + where.line + ":" + where.column }));
    if (step.request) fact("request", el("span", { "class": "mono", text: step.request.method + " " + step.request.url }));
    if (step.messageAction) fact("message", step.messageAction);
    fact("HTTP status", step.statusCode === null || step.statusCode === undefined ? "" : String(step.statusCode));
    fact("started", step.startedAt || "");
    fact("duration", ms(step.durationMs));
    fact("attempts", String(step.attempts));
    fact("then", step.action || "");
    detail.appendChild(facts);
    if (step.error) detail.appendChild(el("p", { "class": "error", id: "step-error", text: step.error }));
    (step.warnings || []).forEach(function (w) { detail.appendChild(el("p", { "class": "note", text: "warning: " + w })); });
    var attempts = step.trace ? step.trace.attempts : [];
    var lastAttempt = attempts.length ? attempts[attempts.length - 1] : null;
    detail.appendChild(el("h3", { text: "Success criteria" }));
    detail.appendChild(criteriaTable(step, lastAttempt));
    if (lastAttempt && lastAttempt.expressions) {
      detail.appendChild(el("h3", { text: "Runtime expressions and what they resolved to" }));
      detail.appendChild(expressionTable(lastAttempt.expressions));
    }
    if (step.outputs && Object.keys(step.outputs).length) {
      detail.appendChild(el("h3", { text: "Outputs" }));
      detail.appendChild(el("pre", { id: "step-outputs", text: json(step.outputs) }));
    }
    if (attempts.length) {
      detail.appendChild(el("h3", { text: "Attempts" }));
      detail.appendChild(attemptTable(attempts));
    }
    var exchanges = step.exchanges || [];
    if (exchanges.length) {
      detail.appendChild(el("h3", { text: "HTTP exchanges" }));
      exchanges.forEach(function (exchange, i) { detail.appendChild(exchangeBox(exchange, i === exchanges.length - 1)); });
    } else if (step.response) {
      detail.appendChild(el("h3", { text: "Response (start of the body)" }));
      detail.appendChild(el("pre", { "class": "response-body", text: step.response.body === null ? "(empty)" : step.response.body }));
    }
    if (step.messages && step.messages.length) {
      detail.appendChild(el("h3", { text: "Messages" }));
      step.messages.forEach(function (m) {
        detail.appendChild(el("div", { "class": "exchange" }, [
          el("div", { "class": "mono", text: m.direction + " " + m.protocol + " " + m.server + " channel " + m.channel + (m.at ? " at " + m.at : "") }),
          m.correlationId ? el("div", { "class": "mono", text: "correlationId " + m.correlationId }) : null,
          m.error ? el("p", { "class": "error", text: m.error }) : null,
          headerTable(m.headers || []), el("pre", { text: m.payload === null ? "(no payload)" : m.payload })]));
      });
    }
    if (step.children && step.children.length) {
      detail.appendChild(el("h3", { text: "Workflow runs of this step" }));
      var list = el("ul");
      step.children.forEach(function (index) {
        var child = DATA.executions[index];
        list.appendChild(el("li", null, el("button", { "class": "link", "data-open-execution": index, text: child.name, onclick: function () { openExecution(index); } }, null)));
        list.lastChild.appendChild(badge(child.status));
      });
      detail.appendChild(list);
    }
  }

  function criteriaTable(step, attempt) {
    var criteria = attempt && attempt.criteria;
    if (!criteria) {
      var failed = step.failedCriteria || [];
      if (!failed.length) return el("p", { "class": "muted", id: "criteria", text: step.trace ? "none checked (the step has none, or failed before they were checked)" : "not recorded in this report" });
      var list = el("ul", { id: "criteria" });
      failed.forEach(function (f) { list.appendChild(el("li", { "class": "error", text: "✗ " + f })); });
      return list;
    }
    var table = el("table", { id: "criteria" });
    table.appendChild(el("thead", null, el("tr", null, ["", "condition", "values seen", "verdict"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    criteria.forEach(function (c) {
      var values = el("div");
      (c.values || []).forEach(function (v) { values.appendChild(el("div", { "class": "mono", text: v.expression + " = " + valueText(v) })); });
      body.appendChild(el("tr", { "class": c.passed ? "passed" : "failed" }, [
        el("td", null, badge(c.passed ? "passed" : "failed", c.passed ? "✓" : "✗")),
        el("td", { "class": "mono", text: c.condition + (c.type && c.type !== "simple" ? "  (" + c.type + (c.context ? ", context " + c.context : "") + ")" : "") }),
        el("td", null, values), el("td", { text: c.passed ? "passed" : (c.message || "failed") })]));
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
    var table = el("table", { id: "expressions" });
    table.appendChild(el("thead", null, el("tr", null, ["where", "expression", "value"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    expressions.forEach(function (x) {
      body.appendChild(el("tr", null, [el("td", { text: x.where }), el("td", { "class": "mono", text: x.expression }), el("td", { "class": "mono", text: valueText(x) })]));
    });
    table.appendChild(body);
    return table;
  }

  function attemptTable(attempts) {
    var table = el("table", { id: "attempts" });
    table.appendChild(el("thead", null, el("tr", null, ["#", "started", "took", "status", "HTTP", "then"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    attempts.forEach(function (a) {
      var then = a.retry ? "retry '" + a.retry.action + "' after " + a.retry.delaySeconds + " s" : "";
      body.appendChild(el("tr", null, [el("td", { text: a.attempt }), el("td", { "class": "mono", text: a.startedAt }), el("td", { text: ms(a.durationMs) }),
        el("td", null, [badge(a.status), a.message ? el("div", { "class": "error", text: a.message }) : null]),
        el("td", { text: a.statusCode === undefined ? "" : a.statusCode }), el("td", { text: then })]));
    });
    table.appendChild(body);
    return table;
  }

  function headerTable(headers) {
    if (!headers.length) return el("p", { "class": "muted", text: "no headers" });
    var table = el("table", { "class": "headers" });
    var body = el("tbody");
    headers.forEach(function (h) { body.appendChild(el("tr", null, [el("td", { "class": "mono", text: h.name }), el("td", { "class": "mono", text: h.value })])); });
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
    if (!part.bodyBinary) box.appendChild(el("pre", { "class": cls, text: part.body === null || part.body === undefined || part.body === "" ? "(empty body)" : part.body }));
    if (part.events) box.appendChild(el("details", null, [el("summary", { text: part.events.length + " server-sent events" }), el("pre", { text: json(part.events) })]));
    return box;
  }

  function exchangeBox(exchange, open) {
    var request = exchange.request, response = exchange.response;
    var line = request.method + " " + request.url + " → " + (response ? response.status : "no response") + " (" + ms(exchange.durationMs) + ")";
    var box = el("details", { "class": "exchange", open: open ? "open" : null });
    box.appendChild(el("summary", { text: (exchange.purpose ? "[" + exchange.purpose + "] " : "") + line }));
    box.appendChild(el("h3", { text: "Request" }));
    box.appendChild(headerTable(request.headers || []));
    box.appendChild(bodyBlock(request, "request-body"));
    var curlButton = el("button", { "class": "small curl-button", text: "copy as curl" });
    var curlArea = null;
    curlButton.addEventListener("click", function () {
      if (!curlArea) { curlArea = el("textarea", { "class": "curl", readonly: "readonly" }); curlArea.value = curl(request); box.insertBefore(curlArea, curlButton.nextSibling); }
      curlArea.select();
      try { if (navigator.clipboard) navigator.clipboard.writeText(curlArea.value).catch(function () {}); else document.execCommand("copy"); } catch (e) { /* selected: copy by hand */ }
    });
    box.appendChild(curlButton);
    if (exchange.error) box.appendChild(el("p", { "class": "error", text: exchange.error }));
    if (response) {
      box.appendChild(el("h3", { text: "Response " + response.status }));
      box.appendChild(headerTable(response.headers || []));
      box.appendChild(bodyBlock(response, "response-body"));
    }
    return box;
  }

  // curl with every masked part (***) as a shell variable to set: ${AUTHORIZATION}, ${API_KEY}, ${SECRET}
  function curl(request) {
    var names = {};
    function quote(text, name) {
      var pieces = String(text).split("***").map(function (p) { return p.replace(/[\\"$`]/g, "\\$&"); });
      if (pieces.length > 1) names[name] = true;
      return '"' + pieces.join("${" + name + "}") + '"';
    }
    function variable(text) { return String(text).toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "SECRET"; }
    var lines = ["curl -X " + request.method + " " + quote(request.url, urlVariable(request.url))];
    function urlVariable(url) { var m = /[?&]([^=&]+)=\*\*\*/.exec(url); return m ? variable(m[1]) : "SECRET"; }
    (request.headers || []).forEach(function (h) {
      if (/^(content-length|host)$/i.test(h.name)) return;
      lines.push("-H " + quote(h.name + ": " + h.value, variable(h.name)));
    });
    var notes = [];
    if (request.bodyBinary) { lines.push("--data-binary @body.bin"); notes.push("# the body is binary (" + request.bodySize + " bytes): put it in body.bin"); }
    else if (request.body) {
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

