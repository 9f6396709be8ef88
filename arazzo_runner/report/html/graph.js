/* The flow graph of a workflow execution, as SVG (part of the report's script: see report.js). */
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
      var terminal = terminalText(node, execution);
      if (terminal) sub = terminal;
      else if (steps.length) {
        var last = steps[steps.length - 1];
        sub = [last.statusCode, ms(last.durationMs), node.detail].filter(function (x) { return x; }).join(" · ");
      } else if (node.kind === "step" || node.kind === "workflow-step" || node.kind === "asyncapi-step") {
        sub = "not run" + (node.detail ? " · " + node.detail : "");
      }
      g.appendChild(svg("text", { x: left + 10, y: top(i) + 33, "class": "detail", text: clip(sub, 44) }));
      g.appendChild(svg("title", { text: node.title + (terminal ? "\n" + terminalMeaning[node.kind] : node.detail ? "\n" + node.detail : "") }));
      if (steps.length) g.addEventListener("click", function () { openStep(steps[steps.length - 1].id); });
      root.appendChild(g);
    });
    holder.appendChild(el("div", { "class": "legend" }, [badge("passed"), badge("retried", "passed after retries"), badge("handled", "failed, handled"),
      badge("failed"), badge("not_run", "not run"), " blue: the path taken; dashed: failure and retry edges; end: " +
      terminalMeaning.end + "; failed: " + terminalMeaning.failed]));
    holder.appendChild(el("div", { id: "graph" }, root));
    return holder;
  }

  // The end and failed nodes are places, not outcomes: what the graph's data calls the end node's detail
  // ("passed", for `arazzo graph`) would read, in grey, as if a failed execution had passed. Each says
  // what it means and whether this execution got there.
  var terminalMeaning = { end: "the workflow passes when it gets here", failed: "the workflow fails when it gets here" };
  function terminalText(node, execution) {
    if (node.kind === "end") return execution.status === "passed" ? "reached: the workflow passed" : "not reached: the workflow passes here";
    if (node.kind === "failed") return execution.status === "failed" ? "reached: the workflow failed" : "not reached: the workflow fails here";
    return null;
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

