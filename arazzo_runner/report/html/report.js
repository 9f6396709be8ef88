/* The Arazzo run report: everything is in the JSON block of this page; nothing is fetched (the page's
   Content-Security-Policy forbids it). Views are built on demand: a step's details when it is clicked,
   long lists a slice at a time. Text is always inserted as text (textContent), never as markup. */
(function () {
  "use strict";
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
    if (value >= 10000) return (value / 1000).toFixed(1) + " s";
    if (value >= 1000) return (value / 1000).toFixed(2) + " s";
    return (value >= 10 ? Math.round(value) : Math.round(value * 10) / 10) + " ms";
  }
  function time(iso) { var t = Date.parse(iso); return isNaN(t) ? null : t; }
  function badge(status, text) { return el("span", { "class": "badge " + (status || ""), text: text || status || "?" }); }

  function outcome(step) {
    if (step.status === "passed") return step.attempts > 1 ? "retried" : "passed";
    if (step.status === "failed") return step.action ? "handled" : "failed";
    return step.status || "not_run";
  }

  // ---- page frame ----------------------------------------------------------------------------------
  var app = document.getElementById("app");
  var header = el("header", null, [el("h1", { text: DATA.title })]);
  var meta = [];
  if (DATA.tool) meta.push((DATA.tool.name || "arazzo") + " " + (DATA.tool.version || ""));
  if (DATA.generatedAt) meta.push("written " + DATA.generatedAt);
  meta.push(DATA.runs.length + " run(s), " + DATA.steps.length + " step execution(s)");
  var failedRuns = DATA.runs.filter(function (r) { return r.status !== "passed" && r.status !== "answered"; });
  meta.push(failedRuns.length ? failedRuns.length + " not passed" : "all passed");
  header.appendChild(el("div", { "class": "meta", id: "meta", text: meta.join(" · ") }));
  if (DATA.unmasked && DATA.unmasked.length) {
    header.appendChild(el("div", { "class": "banner", id: "unmasked",
      text: "Written with --no-mask: secrets may show in clear in " + DATA.unmasked.join(", ") + ". Do not share." }));
  }
  app.appendChild(header);
  var tabs = el("nav", { "class": "tabs" });
  var views = {};
  var main = el("main");
  [["overview", "Runs"], ["timeline", "Timeline"], ["grid", "Grid"], ["diff", "Diff"]].forEach(function (pair) {
    if (pair[0] === "grid" && !DATA.grid) return;
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
  var detail = el("section", { id: "detail" }, el("p", { "class": "muted", text: "Click a step to see what it sent, received and checked." }));
  views.overview.appendChild(el("div", { "class": "columns" }, [runList, executionPane, detail]));

  function show(view) {
    state.view = view;
    Object.keys(views).forEach(function (name) {
      views[name].classList.toggle("active", name === view);
      document.getElementById("tab-" + name).classList.toggle("active", name === view);
    });
    if (view === "timeline") renderTimeline();
    if (view === "grid" && !views.grid.firstChild) renderGrid();
    if (view === "diff" && !views.diff.firstChild) renderDiff();
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

  function openExecution(index, stepId) {
    if (index !== null && index !== undefined) state.run = DATA.executions[index].run;
    state.execution = index;
    state.step = null;
    renderRunList();
    renderExecution();
    clear(detail).appendChild(el("p", { "class": "muted", text: "Click a step to see what it sent, received and checked." }));
    if (state.view === "timeline") renderTimeline();
    if (stepId !== undefined && stepId !== null) openStep(stepId);
  }

  function renderExecution() {
    clear(executionPane);
    var run = DATA.runs[state.run];
    if (run && run.kind === "agent") executionPane.appendChild(agentPanel(run));
    if (state.execution === null || state.execution === undefined) {
      if (!run || run.kind !== "agent") executionPane.appendChild(el("p", { "class": "muted", text: "No workflow ran." }));
      return;
    }
    var execution = DATA.executions[state.execution];
    var head = el("h2", null, [badge(execution.status), " workflow ", execution.name]);
    executionPane.appendChild(head);
    var facts = el("dl", { "class": "kv" });
    function fact(name, value) { if (value !== null && value !== undefined && value !== "") append(facts, [el("dt", { text: name }), el("dd", null, value)]); }
    fact("run", run.label);
    fact("document", run.document);
    fact("duration", ms(execution.durationMs));
    fact("steps", String(execution.steps.length));
    if (execution.parent) {
      var parentStep = DATA.steps[execution.parent.step];
      fact("called by", el("button", { "class": "link", text: DATA.executions[execution.parent.execution].name + " / " + parentStep.name,
        onclick: function () { openExecution(execution.parent.execution, parentStep.id); } }));
    }
    executionPane.appendChild(facts);
    if (execution.error && execution.error.message) {
      executionPane.appendChild(el("p", { "class": "error", id: "execution-error",
        text: (execution.error.stepId ? "step " + execution.error.stepId + ": " : "") + execution.error.message }));
    }
    if (execution.problems && execution.problems.length) {
      executionPane.appendChild(el("h3", { text: "Not run: problems in the document" }));
      var problems = el("ul", { id: "problems" });
      execution.problems.forEach(function (p) {
        var where = [p.file, p.line, p.column].filter(function (x) { return x !== null && x !== undefined; }).join(":");
        problems.appendChild(el("li", null, [el("span", { "class": "mono", text: where }), " ", p.rule ? "[" + p.rule + "] " : "", p.message || ""]));
      });
      executionPane.appendChild(problems);
    }
    (execution.warnings || []).forEach(function (w) { executionPane.appendChild(el("p", { "class": "note", text: "warning: " + w })); });
    if (execution.outputs && Object.keys(execution.outputs).length) {
      executionPane.appendChild(el("details", null, [el("summary", { text: "workflow outputs" }), el("pre", { text: json(execution.outputs) })]));
    }
    executionPane.appendChild(el("h3", { text: "Flow" }));
    executionPane.appendChild(drawGraph(execution));
    executionPane.appendChild(el("h3", { text: "Steps, in the order they ran" }));
    executionPane.appendChild(stepTable(execution.steps));
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
      for (var i = done; i < stop; i++) fragment.appendChild(row(items[i], i));
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

  // ---- the flow graph ----------------------------------------------------------------------------------
  function clusterOf(execution) {
    var run = DATA.runs[execution.run];
    var graph = run.graph === null || run.graph === undefined ? null : DATA.graphs[run.graph];
    if (graph) {
      var found = graph.workflows.filter(function (w) { return w.workflowId === execution.workflowId; })[0];
      if (found) return { cluster: found, edges: graph.edges, drawn: true };
    }
    // no graph in the report (an older file): the steps as they ran, in a line
    var nodes = [{ id: "S", kind: "start", title: "start" }];
    var seen = {};
    execution.steps.forEach(function (id) {
      var step = DATA.steps[id];
      if (!seen[step.stepId]) { seen[step.stepId] = true; nodes.push({ id: "N" + nodes.length, kind: "step", title: step.stepId, stepId: step.stepId }); }
    });
    nodes.push({ id: "E", kind: "end", title: "end" }, { id: "F", kind: "failed", title: "failed" });
    var edges = [];
    for (var i = 0; i + 2 < nodes.length; i++) edges.push({ from: nodes[i].id, to: nodes[i + 1].id, kind: "next" });
    return { cluster: { id: "X", nodes: nodes }, edges: edges, drawn: false };
  }

  function drawGraph(execution) {
    var found = clusterOf(execution);
    var nodes = found.cluster.nodes;
    var holder = el("div");
    if (!found.drawn) holder.appendChild(el("p", { "class": "note", text: "This report holds no graph of the document: the steps are drawn in the order they first ran." }));
    if (nodes.length > MAX_GRAPH_NODES) {
      holder.appendChild(el("p", { "class": "note", id: "graph-too-large", text: "The workflow has " + (nodes.length - 3) + " steps: too many to draw here; every step execution is listed below." }));
      return holder;
    }
    var index = {};
    nodes.forEach(function (n, i) { index[n.id] = i; });
    var byStep = {};
    execution.steps.forEach(function (id) {
      var step = DATA.steps[id];
      (byStep[step.stepId] = byStep[step.stepId] || []).push(step);
    });
    var taken = pathTaken(execution, found, index, byStep);
    var W = 250, H = 42, GAP = 22, LANE = 16;
    var edges = found.edges.filter(function (e) {
      if (!(e.from in index) || !(e.to in index)) return false;
      var implicit = e.kind === "failure" && !e.action && nodes[index[e.to]].kind === "failed";
      return !implicit || taken.edges.indexOf(e) >= 0;
    });
    var extra = taken.jumps;
    // lanes: arcs between rows that are not neighbours, right of the nodes for forward edges, left for back
    var lanes = { right: [], left: [] };
    var straight = {}; // one edge between two neighbours is drawn straight: the plain "next" one if any
    edges.forEach(function (e) {
      var a = index[e.from];
      if (index[e.to] === a + 1 && (!straight[a] || (e.kind === "next" && straight[a].kind !== "next"))) straight[a] = e;
    });
    var routed = edges.concat(extra).map(function (e) {
      var a = index[e.from], b = index[e.to];
      if (straight[a] === e) return { edge: e, a: a, b: b, straight: true };
      var side = b >= a ? "right" : "left";
      var lo = Math.min(a, b), hi = Math.max(a, b);
      var lane = 0;
      while (lanes[side][lane] && lanes[side][lane].some(function (r) { return !(hi < r[0] || lo > r[1]); })) lane++;
      (lanes[side][lane] = lanes[side][lane] || []).push([lo, hi]);
      return { edge: e, a: a, b: b, side: side, lane: lane };
    });
    var left = 30 + LANE * lanes.left.length + 40;
    var width = left + W + 40 + LANE * lanes.right.length + 120;
    var height = nodes.length * (H + GAP) + 20;
    var root = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, id: "graph-svg", role: "img",
      "aria-label": "control flow of workflow " + execution.name });
    var defs = svg("defs");
    ["plain", "taken"].forEach(function (kind) {
      defs.appendChild(svg("marker", { id: "arrow-" + kind, "class": kind, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
        svg("path", { d: "M0,0 L10,5 L0,10 z" })));
    });
    root.appendChild(defs);
    function top(i) { return 10 + i * (H + GAP); }
    routed.forEach(function (r) {
      var isTaken = taken.edges.indexOf(r.edge) >= 0 || r.edge.jump;
      var cls = "edge " + (r.edge.kind || "") + (isTaken ? (r.edge.jump ? " jump" : " taken") : "");
      var d, lx, ly;
      if (r.straight) {
        d = "M" + (left + W / 2) + "," + (top(r.a) + H) + " L" + (left + W / 2) + "," + (top(r.b) - 2);
        lx = left + W / 2 + 6; ly = top(r.a) + H + GAP / 2 + 4;
      } else if (r.a === r.b) {
        var x0 = left + W, y0 = top(r.a) + 10;
        d = "M" + x0 + "," + y0 + " C" + (x0 + 40) + "," + (y0 - 18) + " " + (x0 + 40) + "," + (y0 + 38) + " " + (x0 + 2) + "," + (y0 + 20);
        lx = x0 + 42; ly = y0 + 14;
      } else {
        var right = r.side === "right";
        var x = right ? left + W + 16 + LANE * r.lane : left - 16 - LANE * r.lane;
        var xs = right ? left + W : left, ya = top(r.a) + H / 2 + (right ? 4 : -4), yb = top(r.b) + H / 2 + (right ? -4 : 4);
        d = "M" + xs + "," + ya + " L" + x + "," + ya + " L" + x + "," + yb + " L" + (xs + (right ? 2 : -2)) + "," + yb;
        lx = right ? x + 4 : x - 4; ly = (ya + yb) / 2;
      }
      var path = svg("path", { d: d, "class": cls, "marker-end": "url(#arrow-" + (isTaken ? "taken" : "plain") + ")",
        "data-from": r.edge.from, "data-to": r.edge.to }, svg("title", { text: (r.edge.label || [r.edge.kind]).join("\n") }));
      root.appendChild(path);
      var label = r.edge.jump ? "ran next" : (r.edge.label || [])[0];
      if (label) {
        var anchor = !r.straight && r.side === "left" ? "end" : "start";
        root.appendChild(svg("text", { x: lx, y: ly, "class": "label" + (isTaken ? " taken" : ""), "text-anchor": anchor, text: clip(label, 34) }));
      }
    });
    nodes.forEach(function (node, i) {
      var steps = node.stepId ? byStep[node.stepId] || [] : [];
      var cls = "node kind-" + node.kind;
      if (node.kind === "start" || node.kind === "end" || node.kind === "failed") cls += " terminal";
      if (steps.length) cls += " " + outcome(steps[steps.length - 1]);
      if (node.kind === "start" && execution.steps.length) cls += " passed";
      if (node.kind === "end" && execution.status === "passed") cls += " passed";
      if (node.kind === "failed" && execution.status === "failed") cls += " failed";
      if (steps.length && state.step !== null && steps.some(function (s) { return s.id === state.step; })) cls += " selected";
      var g = svg("g", { "class": cls, "data-node": node.id, "data-step-id": node.stepId || null, tabindex: steps.length ? 0 : null });
      g.appendChild(svg("rect", { x: left, y: top(i), width: W, height: H, rx: 6 }));
      var title = node.title + (steps.length > 1 ? "  ×" + steps.length : "");
      g.appendChild(svg("text", { x: left + 10, y: top(i) + 17, text: clip(title, 38) }));
      var sub = node.detail || "";
      if (steps.length) {
        var last = steps[steps.length - 1];
        sub = [last.statusCode, ms(last.durationMs), node.detail].filter(function (x) { return x; }).join(" · ");
      } else if (node.kind === "step" || node.kind === "workflow-step" || node.kind === "asyncapi-step") {
        sub = "not run" + (node.detail ? " · " + node.detail : "");
      }
      g.appendChild(svg("text", { x: left + 10, y: top(i) + 33, "class": "detail", text: clip(sub, 44) }));
      g.appendChild(svg("title", { text: node.title + (node.detail ? "\n" + node.detail : "") }));
      if (steps.length) g.addEventListener("click", function () { openStep(steps[steps.length - 1].id); });
      root.appendChild(g);
    });
    holder.appendChild(el("div", { "class": "legend" }, [badge("passed"), badge("retried", "passed after retries"), badge("handled", "failed, handled"),
      badge("failed"), badge("not_run", "not run"), " blue: the path taken; dashed: failure and retry edges"]));
    holder.appendChild(el("div", { id: "graph" }, root));
    return holder;
  }

  function clip(text, n) { text = String(text); return text.length > n ? text.slice(0, n - 1) + "…" : text; }

  // The edges the execution went along: start -> first step, each step -> the next one that ran, the
  // retries, and the last step -> end or failed. Where no edge of the graph joins two steps that ran one
  // after the other (a step run before a retry, a join), a dotted "ran next" line is drawn instead.
  function pathTaken(execution, found, index, byStep) {
    var nodes = found.cluster.nodes;
    var edges = found.edges;
    var nodeOf = {};
    nodes.forEach(function (n) { if (n.stepId) nodeOf[n.stepId] = n.id; });
    var start = nodes.filter(function (n) { return n.kind === "start"; })[0];
    var end = nodes.filter(function (n) { return n.kind === "end"; })[0];
    var failed = nodes.filter(function (n) { return n.kind === "failed"; })[0];
    var result = { edges: [], jumps: [] };
    function link(from, to, action) {
      if (!from || !to) return;
      var candidates = edges.filter(function (e) { return e.from === from && e.to === to; });
      if (action) {
        var named = candidates.filter(function (e) { return e.action && action.indexOf(e.action) >= 0; });
        var typed = candidates.filter(function (e) { return e.kind !== "next"; });
        candidates = named.length ? named : typed.length ? typed : candidates;
      }
      if (candidates.length) result.edges.push(candidates[0]);
      else if (from !== to) result.jumps.push({ from: from, to: to, kind: "jump", jump: true });
    }
    var steps = execution.steps.map(function (id) { return DATA.steps[id]; });
    if (!steps.length) {
      if (execution.status === "passed" && start && end) link(start.id, end.id);
      return result;
    }
    link(start && start.id, nodeOf[steps[0].stepId]);
    steps.forEach(function (step, i) {
      var here = nodeOf[step.stepId];
      if (step.attempts > 1) {
        var retry = edges.filter(function (e) { return e.from === here && e.kind === "retry"; })[0];
        if (retry) result.edges.push(retry);
      }
      if (i + 1 < steps.length) link(here, nodeOf[steps[i + 1].stepId], step.action);
    });
    var last = steps[steps.length - 1];
    if (execution.status === "passed") link(nodeOf[last.stepId], end && end.id, last.action);
    else if (execution.status === "failed" && last.status === "failed") link(nodeOf[last.stepId], failed && failed.id, last.action);
    return result;
  }

  // ---- a step's details ----------------------------------------------------------------------------------
  function openStep(id) {
    var step = DATA.steps[id];
    if (step.execution !== state.execution) { openExecution(step.execution, id); return; }
    state.step = id;
    Array.prototype.forEach.call(executionPane.querySelectorAll("tr.selected, g.selected"), function (n) { n.classList.remove("selected"); });
    Array.prototype.forEach.call(executionPane.querySelectorAll('tr[data-step="' + id + '"]'), function (n) { n.classList.add("selected"); });
    Array.prototype.forEach.call(executionPane.querySelectorAll("g.node"), function (n) {
      if (n.getAttribute("data-step-id") === step.stepId) n.classList.add("selected");
    });
    if (state.view !== "overview") show("overview");
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

  // ---- the timeline -------------------------------------------------------------------------------------
  function renderTimeline() {
    var view = clear(views.timeline);
    var run = DATA.runs[state.run];
    view.appendChild(el("h2", { text: "Timeline of " + run.label }));
    var items = [];
    run.executions.forEach(function (index) {
      var execution = DATA.executions[index];
      var start = time(execution.startedAt);
      if (start !== null) items.push({ kind: "workflow", start: start, duration: execution.durationMs || 0, label: execution.name, status: execution.status, execution: index });
      execution.steps.forEach(function (id) {
        var step = DATA.steps[id];
        var at = time(step.startedAt);
        if (at !== null) items.push({ kind: "step", start: at, duration: step.durationMs || 0, label: execution.name + " / " + step.name, status: outcome(step), step: step });
      });
    });
    if (!items.length) { view.appendChild(el("p", { "class": "muted", text: "This report holds no times (written by an older version, or nothing ran)." })); return; }
    var t0 = Math.min.apply(null, items.map(function (i) { return i.start; }));
    var t1 = Math.max.apply(null, items.map(function (i) { return i.start + i.duration; }));
    var span = Math.max(t1 - t0, 1);
    items.sort(function (a, b) { return a.start - b.start || (a.kind === "workflow" ? -1 : 1); });
    view.appendChild(el("p", { "class": "muted", text: "From " + new Date(t0).toISOString() + ", " + ms(span) + " in all. Bars: step executions (purple: workflows); dark marks: HTTP exchanges." }));
    function pos(node, start, duration) {
      node.style.left = ((start - t0) / span * 100) + "%";
      node.style.width = Math.max(duration / span * 100, 0.2) + "%";
    }
    var list = el("div", { "class": "waterfall", id: "waterfall" });
    var body = el("div");
    list.appendChild(body);
    sliced(list, body, items, function (item) {
      var track = el("div", { "class": "wf-track" });
      var bar = el("div", { "class": "wf-bar " + (item.kind === "workflow" ? "workflow" : item.status) });
      pos(bar, item.start, item.duration);
      track.appendChild(bar);
      if (item.step) {
        (item.step.exchanges || []).forEach(function (x) {
          var at = time(x.startedAt);
          if (at === null) return;
          var mark = el("div", { "class": "wf-bar exchange" });
          pos(mark, at, x.durationMs || 0);
          track.appendChild(mark);
        });
      }
      var row = el("div", { "class": "wf-row", "data-timeline-step": item.step ? item.step.id : null }, [
        el("div", { "class": "wf-label", title: item.label, text: item.label }), track, el("div", { "class": "wf-time", text: ms(item.duration) })]);
      row.addEventListener("click", function () { if (item.step) openStep(item.step.id); else openExecution(item.execution); show("overview"); });
      return row;
    });
    view.appendChild(list);
    channels(view, run, t0, span);
  }

  function channels(view, run, t0, span) {
    var lanes = {}, order = [];
    run.executions.forEach(function (index) {
      DATA.executions[index].steps.forEach(function (id) {
        var step = DATA.steps[id];
        (step.messages || []).forEach(function (m) {
          var key = m.server + " " + m.channel;
          if (!lanes[key]) { lanes[key] = []; order.push(key); }
          lanes[key].push({ message: m, step: step });
        });
      });
    });
    if (!order.length) return;
    view.appendChild(el("h3", { text: "Messages on their channels" }));
    var box = el("div", { "class": "waterfall", id: "channels" });
    order.forEach(function (key) {
      var track = el("div", { "class": "wf-track" });
      lanes[key].forEach(function (entry) {
        var at = time(entry.message.at || entry.step.startedAt);
        if (at === null) return;
        var tick = el("div", { "class": "wf-tick " + entry.message.direction, title: entry.message.direction + " by " + entry.step.name + ": " + clip(entry.message.payload || "", 200) });
        tick.style.left = ((at - t0) / span * 100) + "%";
        tick.addEventListener("click", function (event) { event.stopPropagation(); openStep(entry.step.id); });
        track.appendChild(tick);
      });
      box.appendChild(el("div", { "class": "wf-row" }, [el("div", { "class": "wf-label mono", title: key, text: key }), track, el("div", { "class": "wf-time", text: lanes[key].length + " msg" })]));
    });
    view.appendChild(box);
  }

  // ---- grid and diff ------------------------------------------------------------------------------------
  function renderGrid() {
    var view = views.grid;
    view.appendChild(el("h2", { text: "Runs × workflows" }));
    var table = el("table", { id: "grid" });
    table.appendChild(el("thead", null, el("tr", null, [el("th", { text: "run" }), el("th", { text: "inputs" })].concat(DATA.grid.columns.map(function (c) { return el("th", { "class": "mono", text: c }); })))));
    var body = el("tbody");
    table.appendChild(body);
    var wrap = el("div", null, table);
    sliced(wrap, body, DATA.grid.rows, function (row) {
      var run = DATA.runs[row.run];
      var cells = row.cells.map(function (index, column) {
        if (index === null || index === undefined) return el("td", { "class": "muted", text: "—" });
        var execution = DATA.executions[index];
        return el("td", { "class": "cell", "data-execution": index, "data-column": DATA.grid.columns[column] }, el("button", { "class": "link", onclick: function () { show("overview"); openExecution(index); } },
          [badge(execution.status), " ", ms(execution.durationMs)]));
      });
      var inputs = run.inputs ? clip(JSON.stringify(run.inputs), 80) : "";
      return el("tr", { "data-run": run.id }, [el("td", { text: run.label }), el("td", { "class": "mono", text: inputs })].concat(cells));
    });
    view.appendChild(wrap);
  }

  function renderDiff() {
    var view = views.diff, diff = DATA.diff;
    view.appendChild(el("h2", { text: "What changed from " + DATA.runs[diff.before].label + " to " + DATA.runs[diff.after].label }));
    view.appendChild(el("p", { "class": "muted", text: diff.summary }));
    if (!diff.changes.length) { view.appendChild(el("p", { id: "no-changes", text: "No step changed its status, its outputs or its timing." })); return; }
    var table = el("table", { id: "diff" });
    table.appendChild(el("thead", null, el("tr", null, ["workflow", "step", "changed", "before", "after"].map(function (h) { return el("th", { text: h }); }))));
    var body = el("tbody");
    table.appendChild(body);
    var wrap = el("div", null, table);
    sliced(wrap, body, diff.changes, function (change) {
      function side(value, stepId) {
        var cell = el("td", { "class": "mono" });
        if (value === null || value === undefined) { cell.appendChild(el("span", { "class": "muted", text: "(absent)" })); return cell; }
        cell.appendChild(document.createTextNode(value));
        if (stepId !== null && stepId !== undefined) cell.appendChild(el("button", { "class": "link", text: " open", onclick: function () { openStep(stepId); } }));
        return cell;
      }
      return el("tr", { "data-diff-step": change.step || "" }, [el("td", { "class": "mono", text: change.workflow }), el("td", { "class": "mono", text: change.step || "(workflow)" }),
        el("td", { text: change.changed.join(", ") }), side(change.beforeText, change.beforeStep), side(change.afterText, change.afterStep)]);
    });
    view.appendChild(wrap);
  }

  // ---- start ---------------------------------------------------------------------------------------------
  show(DATA.diff ? "diff" : DATA.grid && DATA.runs.length > 1 ? "grid" : "overview");
  if (DATA.runs.length) openRun(0);
  else executionPane.appendChild(el("p", { "class": "muted", text: "The report holds no run." }));
  document.body.setAttribute("data-ready", "true");
})();
