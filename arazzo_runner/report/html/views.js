/* The timeline, the grid, the diff, and the start (part of the report's script: see report.js). */
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

  // API coverage (`--coverage`): per source, a row per operation, what of it the runs called and saw
  function renderCoverage() {
    var view = views.coverage, labels = { operations: "operations", statuses: "statuses", parameters: "parameters", bodyProperties: "body properties" };
    function figure(f) { return f.percent === null ? "-" : f.covered + "/" + f.total + " (" + f.percent.toFixed(1) + "%)"; }
    function totals(t) { return Object.keys(labels).map(function (k) { return labels[k] + " " + figure(t[k]); }).join(", "); }
    function part(p, done) {
      var missed = p.documented.filter(function (n) { return p[done].indexOf(n) < 0; });
      if (!p.documented.length) return el("td", { "class": "muted", text: "-" });
      return el("td", { "class": "mono", title: missed.length ? "missed: " + missed.join(", ") : "all", text: (p.documented.length - missed.length) + "/" + p.documented.length + (missed.length ? " (missed: " + missed.join(", ") + ")" : "") });
    }
    view.appendChild(el("h2", { text: "API coverage" }));
    view.appendChild(el("p", { id: "coverage-totals", text: totals(DATA.coverage.totals) }));
    DATA.coverage.sources.forEach(function (source) {
      view.appendChild(el("h3", { "class": "mono", text: source.name + " (" + source.url + ")" }));
      if (source.error) { view.appendChild(el("p", { "class": "muted", text: "not read: " + source.error })); return; }
      view.appendChild(el("p", { "class": "muted", text: totals(source.totals) }));
      var table = el("table", { "class": "coverage" });
      table.appendChild(el("thead", null, el("tr", null, ["operation", "operationId", "calls", "statuses", "parameters", "body"].map(function (h) { return el("th", { text: h }); }))));
      var body = el("tbody");
      source.operations.forEach(function (op) {
        body.appendChild(el("tr", { "class": op.calls ? "" : "missed" }, [el("td", { "class": "mono", text: op.method + " " + op.path }), el("td", { "class": "mono", text: op.operationId || "" }),
          el("td", { text: String(op.calls) }), part(op.statuses, "seen"), part(op.parameters, "sent"), part(op.bodyProperties, "sent")]));
      });
      table.appendChild(body);
      view.appendChild(table);
    });
  }

  // ---- start ---------------------------------------------------------------------------------------------
  // (whatever part of it fails to render, the page says so where it would be, and is ready)
  show(DATA.diff ? "diff" : DATA.grid && DATA.runs.length > 1 ? "grid" : "overview");
  guarded(executionPane, "where the runs went wrong", function () {
    var first = firstProblem();
    if (first) openExecution(first.execution, first.step, true);
    else if (DATA.runs.length) openRun(0);
    else executionPane.appendChild(el("p", { "class": "muted", text: "The report holds no run." }));
  });
  document.body.setAttribute("data-ready", "true");
