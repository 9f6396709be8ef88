/* The Arazzo run report: everything is in the JSON block of this page; nothing is fetched (the page's
   Content-Security-Policy forbids it). Views are built on demand: a step's details when it is clicked,
   long lists a slice at a time. Text is always inserted as text (textContent), never as markup.
   This is the core; graph.js, step.js and views.js follow it in the same function (report/html). */
  var DATA = JSON.parse(document.getElementById("arazzo-data").textContent);
  var SLICE = 300; // rows of a long list rendered at a time
  var MAX_GRAPH_NODES = 600; // a larger workflow is listed, not drawn
  var SVG = "http://www.w3.org/2000/svg";
  var state = { view: "overview", run: 0, execution: null, step: null };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }
  function svg(tag, attrs, children) {
    var node = document.createElementNS(SVG, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "text") node.textContent = String(value);
      else if (key === "onclick") node.addEventListener("click", value);
      else node.setAttribute(key, String(value));
    });
  }
  function append(node, children) {
    if (children === null || children === undefined) return;
    if (!Array.isArray(children)) children = [children];
    children.forEach(function (child) {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === "string" || typeof child === "number"
        ? document.createTextNode(String(child)) : child);
    });
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function json(value) {
    if (typeof value === "string") return value;
    try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); }
  }
  function ms(value) {
    if (value === null || value === undefined) return "";
    if (typeof value !== "number") return String(value);
    if (value >= 10000) return (value / 1000).toFixed(1) + " s";
    if (value >= 1000) return (value / 1000).toFixed(2) + " s";
    return (value >= 10 ? Math.round(value) : Math.round(value * 10) / 10) + " ms";
  }
  function time(iso) { var t = Date.parse(iso); return isNaN(t) ? null : t; }
  function badge(status, text) { return el("span", { "class": "badge " + (status || ""), text: text || status || "?" }); }

  // The page reads the data as `arazzo run` and `arazzo agent` write it, but `arazzo report` may be given a
  // file written by hand or by another tool, holding anything. So each part of the page is built on its
  // own: a part whose data is not in the form read here is replaced by a line that says what could not
  // be shown and why, and the rest of the page renders. `guarded` appends what `build` returns to `parent`
  // (a row when that fails in a table body, or `asRow`).
  function guarded(parent, what, build, asRow) {
    var made;
    try { made = build(); } catch (e) { made = unrendered(what, e, asRow || parent.tagName === "TBODY"); }
    append(parent, made);
    return made;
  }
  function unrendered(what, e, row) {
    var why = e && e.shape ? e.message : "the report's data for it is not in the form this page reads (" + (e && e.message ? e.message : String(e)) + ")";
    var text = "could not show " + what + ": " + why;
    if (row) return el("tr", { "class": "unrendered" }, el("td", { "class": "error", colspan: 99, text: text }));
    return el("p", { "class": "error unrendered", text: text });
  }
  // `value` as a list (absent: none), or as an object; anything else is an error that says what it is
  function listOf(value, what) {
    if (value === null || value === undefined) return [];
    if (Array.isArray(value)) return value;
    throw shapeError(what + " is " + kindOf(value) + " in the report, not a list");
  }
  function objectOf(value, what) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value;
    throw shapeError(what + " is " + kindOf(value) + " in the report, not an object");
  }
  function kindOf(value) {
    if (value === undefined) return "missing";
    if (value === null) return "null";
    if (Array.isArray(value)) return "a list";
    return typeof value === "object" ? "an object" : typeof value === "string" ? "text" : "a " + typeof value;
  }
  function shapeError(message) { var error = new Error(message); error.shape = true; return error; }

  function outcome(step) {
    if (step.status === "passed") return step.attempts > 1 ? "retried" : "passed";
    if (step.status === "failed") return step.action ? "handled" : "failed";
    return step.status || "not_run";
  }

  // ---- page frame ----------------------------------------------------------------------------------
  var app = document.getElementById("app");
  var header = el("header", null, [el("h1", { text: DATA.title })]);
  var meta = [];
  // workflows by outcome, then runs and step executions: written by `report/summary.py` (outcome_line),
  // the line `arazzo report -o` prints too
  meta.push(DATA.outcome);
  if (DATA.tool) meta.push((DATA.tool.name || "arazzo") + " " + (DATA.tool.version || ""));
  if (DATA.generatedAt) meta.push("written " + DATA.generatedAt);
  header.appendChild(el("div", { "class": "meta", id: "meta", text: meta.join(" · ") }));
  if (DATA.unmasked && DATA.unmasked.length) {
    header.appendChild(el("div", { "class": "banner", id: "unmasked",
      text: "Written with --no-mask: secrets may show in clear in " + DATA.unmasked.join(", ") + ". Do not share." }));
  }
  app.appendChild(header);
  var tabs = el("nav", { "class": "tabs" });
  var views = {};
  var main = el("main");
  [["overview", "Runs"], ["timeline", "Timeline"], ["grid", "Grid"], ["diff", "Diff"], ["coverage", "Coverage"]].forEach(function (pair) {
    if (pair[0] === "grid" && !DATA.grid) return;
    if (pair[0] === "coverage" && !DATA.coverage) return;
    if (pair[0] === "diff" && !DATA.diff) return;
    var button = el("button", { id: "tab-" + pair[0], text: pair[1], onclick: function () { show(pair[0]); } });
    tabs.appendChild(button);
    views[pair[0]] = el("section", { "class": "view", id: "view-" + pair[0] });
    main.appendChild(views[pair[0]]);
  });
  app.appendChild(tabs);
  app.appendChild(main);

  var runList = el("aside", { id: "runs" });
  var executionPane = el("section", { id: "execution" });
  var detail = el("section", { id: "detail" });
  views.overview.appendChild(el("div", { "class": "columns" }, [runList, executionPane, detail]));

  function show(view) {
    state.view = view;
    Object.keys(views).forEach(function (name) {
      views[name].classList.toggle("active", name === view);
      document.getElementById("tab-" + name).classList.toggle("active", name === view);
    });
    if (view === "timeline") guarded(views.timeline, "the timeline", renderTimeline);
    if (view === "grid" && !views.grid.firstChild) guarded(views.grid, "the grid", renderGrid);
    if (view === "diff" && !views.diff.firstChild) guarded(views.diff, "the diff", renderDiff);
    if (view === "coverage" && !views.coverage.firstChild) guarded(views.coverage, "the coverage", renderCoverage);
  }

  // ---- runs and executions ---------------------------------------------------------------------------
  function renderRunList() {
    clear(runList);
    var list = el("ul");
    var shown = DATA.runs.length > SLICE ? DATA.runs.slice(0, SLICE) : DATA.runs;
    shown.forEach(function (run) {
      var item = el("li");
      item.appendChild(el("div", { "class": "run" }, [badge(run.status), " ", run.label]));
      if (run.id === state.run) {
        var execs = el("ul");
        run.executions.slice(0, SLICE).forEach(function (index) {
          var execution = DATA.executions[index];
          execs.appendChild(el("li", { "class": "exec" }, el("button", {
            "class": index === state.execution ? "selected" : null, "data-execution": index,
            onclick: function () { openExecution(index); }
          }, [badge(execution.status), " ", execution.name])));
        });
        if (run.executions.length > SLICE) execs.appendChild(el("li", { "class": "muted", text: (run.executions.length - SLICE) + " more in the timeline" }));
        item.appendChild(execs);
      } else {
        item.appendChild(el("button", { "data-run": run.id, text: "open", onclick: function () { openRun(run.id); } }));
      }
      list.appendChild(item);
    });
    if (DATA.runs.length > SLICE) list.appendChild(el("li", { "class": "muted", text: (DATA.runs.length - SLICE) + " more runs: see the grid" }));
    runList.appendChild(list);
  }

  function openRun(id) {
    state.run = id;
    var run = DATA.runs[id];
    openExecution(run.executions.length ? run.executions[0] : null);
  }

  // `keepView`: open it without leaving the view shown (the page opening on its first failure over the grid)
  function openExecution(index, stepId, keepView) {
    if (index !== null && index !== undefined) state.run = DATA.executions[index].run;
    state.execution = index;
    state.step = null;
    renderRunList();
    renderExecution();
    clear(detail).appendChild(placeholder(index === null || index === undefined ? null : DATA.executions[index]));
    if (state.view === "timeline") guarded(views.timeline, "the timeline", renderTimeline);
    if (stepId !== undefined && stepId !== null) openStep(stepId, keepView);
  }

  function placeholder(execution) {
    if (execution && execution.status === "not_run") {
      return el("p", { "class": "error", id: "detail-not-run", text: "Workflow " + execution.name +
        " was not run: nothing was sent. Why is listed under “Not run: problems in the document”." });
    }
    return el("p", { "class": "muted", text: "Click a step to see what it sent, received and checked." });
  }

  // Where the page opens: on the first workflow of the runs, in the order they ran, that did not pass. A failed one opens on the step that failed it (`report/summary.py` `failed_step`), followed
  // into the failed run of a workflow step down to the step where it went wrong; one not run opens on
  // its problems. When everything passed, the first workflow.
  function firstProblem() {
    for (var r = 0; r < DATA.runs.length; r++) {
      var list = DATA.runs[r].executions;
      for (var k = 0; k < list.length; k++) {
        var execution = DATA.executions[list[k]];
        // the run of a workflow step is reached through its step; an agent's tool calls are taken here
        if (execution.parent !== undefined || execution.status === "passed") continue;
        if (execution.status === "not_run") return { execution: execution.id, step: null };
        return failureIn(execution);
      }
    }
    return null;
  }

  function failureIn(execution) {
    var stepId = (execution.error || {}).stepId;
    var step = null;
    execution.steps.forEach(function (id) {
      var candidate = DATA.steps[id];
      if (stepId ? candidate.stepId === stepId : outcome(candidate) === "failed") step = candidate;
    });
    if (!step) return { execution: execution.id, step: null }; // a dependency failed: its own entry says how
    var failedRuns = (step.children || []).filter(function (index) { return DATA.executions[index].status !== "passed"; });
    if (failedRuns.length) {
      var deeper = failureIn(DATA.executions[failedRuns[failedRuns.length - 1]]);
      if (deeper.step !== null) return deeper;
    }
    return { execution: execution.id, step: step.id };
  }

  function renderExecution() {
    clear(executionPane);
    var run = DATA.runs[state.run];
    if (run && run.kind === "agent") guarded(executionPane, "the agent run", function () { return agentPanel(run); });
    if (state.execution === null || state.execution === undefined) {
      if (!run || run.kind !== "agent") executionPane.appendChild(el("p", { "class": "muted", text: "No workflow ran." }));
      return;
    }
    var execution = DATA.executions[state.execution];
    executionPane.appendChild(el("h2", null, [badge(execution.status), " workflow ", execution.name]));
    guarded(executionPane, "the workflow's facts", function () { return executionFacts(run, execution); });
    guarded(executionPane, "the workflow's error", function () {
      if (!execution.error || !execution.error.message) return null;
      return el("p", { "class": "error", id: "execution-error",
        text: (execution.error.stepId ? "step " + execution.error.stepId + ": " : "") + json(execution.error.message) });
    });
    guarded(executionPane, "the problems in the document", function () {
      var found = listOf(execution.problems, "the workflow's 'problems'");
      if (!found.length) return null;
      var problems = el("ul", { id: "problems" });
      found.forEach(function (p, i) {
        guarded(problems, "problem " + (i + 1), function () {
          objectOf(p, "it");
          var where = [p.file, p.line, p.column].filter(function (x) { return x !== null && x !== undefined; }).join(":");
          return el("li", null, [el("span", { "class": "mono", text: where }), " ", p.rule ? "[" + p.rule + "] " : "", p.message ? String(p.message) : ""]);
        });
      });
      return [el("h3", { text: "Not run: problems in the document" }), problems];
    });
    guarded(executionPane, "the workflow's warnings", function () {
      return listOf(execution.warnings, "the workflow's 'warnings'").map(function (w) { return el("p", { "class": "note", text: "warning: " + w }); });
    });
    if (execution.outputs && Object.keys(execution.outputs).length) {
      executionPane.appendChild(el("details", null, [el("summary", { text: "workflow outputs" }), el("pre", { text: json(execution.outputs) })]));
    }
    executionPane.appendChild(el("h3", { text: "Flow" }));
    guarded(executionPane, "the flow graph", function () { return drawGraph(execution); });
    executionPane.appendChild(el("h3", { text: "Steps, in the order they ran" }));
    executionPane.appendChild(stepTable(execution.steps));
  }

  function executionFacts(run, execution) {
    var facts = el("dl", { "class": "kv" });
    function fact(name, value) { if (value !== null && value !== undefined && value !== "") append(facts, [el("dt", { text: name }), el("dd", null, value)]); }
    fact("run", run.label);
    fact("document", run.document ? json(run.document) : null);
    fact("duration", ms(execution.durationMs));
    fact("steps", String(execution.steps.length));
    if (execution.parent) {
      var parentStep = DATA.steps[execution.parent.step];
      fact("called by", el("button", { "class": "link", text: DATA.executions[execution.parent.execution].name + " / " + parentStep.name,
        onclick: function () { openExecution(execution.parent.execution, parentStep.id); } }));
    }
    return facts;
  }

  function stepTable(ids) {
    var table = el("table", { id: "steps" });
    table.appendChild(el("thead", null, el("tr", null, ["#", "step", "status", "HTTP", "time", "action"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    table.appendChild(body);
    var wrap = el("div", null, table);
    sliced(wrap, body, ids, function (id, position) {
      var step = DATA.steps[id];
      return el("tr", { "class": "clickable" + (state.step === id ? " selected" : ""), "data-step": id, "data-step-id": step.stepId,
        onclick: function () { openStep(id); } }, [
        el("td", { text: position + 1 }), el("td", { "class": "mono", text: step.name }),
        el("td", null, badge(outcome(step), step.status + (step.attempts > 1 ? " ×" + step.attempts : ""))),
        el("td", { text: step.statusCode === null || step.statusCode === undefined ? "" : step.statusCode }),
        el("td", { text: ms(step.durationMs) }), el("td", { "class": "mono", text: step.action || "" })]);
    });
    return wrap;
  }

  // Render `items` into `body` SLICE at a time: the next slice when the end comes into view, or on a click.
  function sliced(wrap, body, items, row) {
    var done = 0;
    var more = el("button", { "class": "small more", text: "" });
    function next() {
      var stop = Math.min(items.length, done + SLICE);
      var fragment = document.createDocumentFragment();
      for (var i = done; i < stop; i++) guarded(fragment, "row " + (i + 1), row.bind(null, items[i], i), body.tagName === "TBODY");
      body.appendChild(fragment);
      done = stop;
      if (done >= items.length) { if (more.parentNode) more.parentNode.removeChild(more); }
      else more.textContent = "show " + Math.min(SLICE, items.length - done) + " more of " + (items.length - done);
    }
    more.addEventListener("click", next);
    next();
    if (done < items.length) {
      wrap.appendChild(more);
      if (window.IntersectionObserver) {
        var seen = new IntersectionObserver(function (entries) {
          if (entries.some(function (e) { return e.isIntersecting; }) && done < items.length) next();
          if (done >= items.length) seen.disconnect();
        });
        seen.observe(more);
      }
    }
  }

