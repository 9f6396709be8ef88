"""The data of a report page, read from report documents: `arazzo run --report-json` (one run, or the rows
of `--inputs-file`) and `arazzo agent --format json` (turns and tool calls, with each call's run when
`arazzo agent --report-json` wrote it).

Everything the page, the Markdown summary and the annotations show is in one plain dict (`PageData`):
`runs` (a run each: a file, a row), `executions` (each workflow execution of a run, flattened: selected
workflows, their dependencies, the child runs of workflow steps), `steps` (each step execution, with
everything its report entry holds), `graphs` (the control-flow graph of each document), `grid` (rows x
workflows, when there are several runs). The documents are masked already (each writer masks); a
document written with `--no-mask` says so (`masked: false`) and the page says it in red.
"""

from __future__ import annotations

import json
from typing import Any

from ...errors import UsageError
from ..bodies import FILE_LIMIT

PAGE_BODY_LIMIT = 64 * 1024  # characters of one body kept in the page (the JSON report keeps 1 MiB)


class Source:
    """One report document and the name it is shown under (its file name)."""

    def __init__(self, label: str, data: Any) -> None:
        self.label = label
        self.data = data


def page_data(sources: list[Source], title: str | None = None) -> dict[str, Any]:
    builder = _Builder()
    for source in sources:
        builder.source(source)
    page: dict[str, Any] = {
        "title": title or _title(sources),
        "generatedAt": next((s.data.get("generatedAt") for s in sources if s.data.get("generatedAt")), None),
        "tool": next((s.data.get("tool") for s in sources if s.data.get("tool")), None),
        "unmasked": [s.label for s in sources if s.data.get("masked") is False],
        "limits": {"pageBody": PAGE_BODY_LIMIT, "fileBody": FILE_LIMIT},
        "runs": builder.runs,
        "executions": builder.executions,
        "steps": builder.steps,
        "graphs": builder.graphs,
        "grid": _grid(builder.runs, builder.executions) if len(builder.runs) > 1 else None,
        "diff": None,
        "coverage": _coverage(sources),
    }
    from ..summary import outcome_line

    page["outcome"] = outcome_line(page)  # the header's first words, written once for the page and the CLI
    return page


def _coverage(sources: list[Source]) -> dict[str, Any] | None:
    """The API coverage of the runs that recorded it (`--coverage`), merged: the page's Coverage tab."""
    sections = [s.data["coverage"] for s in sources if isinstance(s.data.get("coverage"), dict)]
    if not sections:
        return None
    from ..coverage import merge

    return merge(sections)


def _title(sources: list[Source]) -> str:
    names = ", ".join(s.label for s in sources[:3]) + (", ..." if len(sources) > 3 else "")
    return f"Arazzo report: {names}"


def kind_of(data: Any) -> str:
    """`run`, `rows` or `agent`; a usage error for anything else."""
    if isinstance(data, dict):
        if isinstance(data.get("workflows"), list):
            return "run"
        if isinstance(data.get("rows"), list):
            return "rows"
        if isinstance(data.get("toolCalls"), list) and "turns" in data:
            return "agent"
    raise UsageError(
        "not a report of `arazzo run --report-json`, `arazzo run --format json` or `arazzo agent`"
    )


class _Builder:
    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []
        self.executions: list[dict[str, Any]] = []
        self.steps: list[dict[str, Any]] = []
        self.graphs: list[dict[str, Any]] = []

    def source(self, source: Source) -> None:
        data = source.data
        try:
            kind = kind_of(data)
            self._source(source, data, kind)
        except UsageError as exc:
            raise UsageError(f"{source.label}: {exc}") from None

    def _source(self, source: Source, data: dict[str, Any], kind: str) -> None:
        graph = self._graph(data)
        common = {"source": source.label, "document": data.get("document"), "graph": graph}
        if kind == "run":
            self._run(source.label, data, common)
        elif kind == "rows":
            for i, row in enumerate(data["rows"]):
                row = _object(row, f"rows[{i}]")
                label = f"{source.label} row {row.get('row')}"
                result = _object(row.get("result") or {}, f"rows[{i}].result")
                run = self._run(label, result, common, f"rows[{i}].result.")
                run.update(row=row.get("row"), line=row.get("line"), inputs=row.get("inputs"))
        else:
            self._agent(source.label, data, common)

    def _graph(self, data: dict[str, Any]) -> int | None:
        graph = data.get("graph")
        if not isinstance(graph, dict):
            return None
        self.graphs.append(graph)
        return len(self.graphs) - 1

    def _run(self, label: str, data: dict[str, Any], common: dict[str, Any], at: str = "") -> dict[str, Any]:
        run: dict[str, Any] = {
            "id": len(self.runs),
            "label": label,
            "kind": "run",
            "status": data.get("status"),
            "executions": [],
            **common,
        }
        self.runs.append(run)
        names: dict[str, int] = {}
        for i, workflow in enumerate(_list(data.get("workflows"), f"{at}workflows")):
            self._walk(run, _object(workflow, f"{at}workflows[{i}]"), None, names)
        _timing(run, self.executions)
        return run

    def _agent(self, label: str, data: dict[str, Any], common: dict[str, Any]) -> None:
        run: dict[str, Any] = {
            "id": len(self.runs),
            "label": label,
            "kind": "agent",
            "status": data.get("status"),
            "executions": [],
            **common,
            "agent": {
                k: data.get(k) for k in ("answer", "error", "model", "endpoint", "stream", "turns", "usage")
            },
        }
        self.runs.append(run)
        names: dict[str, int] = {}
        calls = []
        for c, call in enumerate(data.get("toolCalls") or []):
            call = _object(call, f"toolCalls[{c}]")
            entry = {k: v for k, v in call.items() if k != "run"}
            first = len(run["executions"])
            nested = call.get("run")
            if isinstance(nested, dict):
                at = f"toolCalls[{c}].run.workflows"
                for i, workflow in enumerate(_list(nested.get("workflows"), at)):
                    parent = f"turn {call.get('turn')} / {call.get('name')}"
                    self._walk(run, _object(workflow, f"{at}[{i}]"), {"label": parent}, names)
            entry["executions"] = run["executions"][first:]
            calls.append(entry)
        run["agent"]["toolCalls"] = calls
        run["agent"]["messages"] = data.get("messages") or []
        _timing(run, self.executions)

    def _walk(
        self,
        run: dict[str, Any],
        workflow: dict[str, Any],
        parent: dict[str, Any] | None,
        names: dict[str, int],
    ) -> int:
        base = _name(workflow.get("workflowId"))
        for i, dependency in enumerate(
            _list(workflow.get("dependencies"), f"the dependencies of workflow {base}")
        ):
            self._walk(run, _object(dependency, f"dependency {i + 1} of workflow {base}"), None, names)
        if isinstance(workflow.get("item"), int):  # an `x-forEach` iteration
            base += f"[{workflow['item']}]"
        if parent is not None:
            base += f" (from {parent['label']})"
        names[base] = names.get(base, 0) + 1
        name = base if names[base] == 1 else f"{base}#{names[base]}"
        index = len(self.executions)
        execution: dict[str, Any] = {
            "id": index,
            "run": run["id"],
            "name": name,
            "steps": [],
            **{k: v for k, v in workflow.items() if k not in ("steps", "dependencies")},
        }
        if parent is not None and "step" in parent:
            execution["parent"] = {"execution": parent["execution"], "step": parent["step"]}
        self.executions.append(execution)
        run["executions"].append(index)
        counts: dict[str, int] = {}
        for i, step in enumerate(_list(workflow.get("steps"), f"the steps of workflow {base}")):
            step = _object(step, f"step {i + 1} of workflow {base}")
            step_id = _name(step.get("stepId"))
            counts[step_id] = counts.get(step_id, 0) + 1
            step_name = step_id if counts[step_id] == 1 else f"{step_id}#{counts[step_id]}"
            entry = {k: v for k, v in step.items() if k not in ("workflow", "earlierWorkflows")}
            entry.update(id=len(self.steps), run=run["id"], execution=index, name=step_name)
            _cut_bodies(entry)
            self.steps.append(entry)
            execution["steps"].append(entry["id"])
            where = f"step {step_name} of workflow {base}"
            children = [
                _object(child, f"a workflow run of {where}")
                for child in [
                    *_list(step.get("earlierWorkflows"), f"the earlierWorkflows of {where}"),
                    *([step["workflow"]] if step.get("workflow") else []),
                ]
            ]
            entry["children"] = []
            for child in children:
                label = f"{name}/{step_name}"
                parent = {"label": label, "execution": index, "step": entry["id"]}
                entry["children"].append(self._walk(run, child, parent, names))
        return index


# A report given to `arazzo report` may be written by anyone: the parts the page is built of (workflows,
# steps, the runs of workflow steps) must be lists of objects, or the file is refused with where it is not;
# names are shown as text; anything inside a step is the page's to show or to say it cannot (report.js).
def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise UsageError(f"{what} is {_kind(value)}, not a list")
    return value


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise UsageError(f"{what} is {_kind(value)}, not an object")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    names = {dict: "an object", list: "a list", str: "text", int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)


def _name(value: Any) -> str:
    """A workflowId or stepId as the page names it: text as it is, anything else as JSON, `?` if none."""
    if value is None or value == "":
        return "?"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _cut_bodies(step: dict[str, Any]) -> None:
    """Bodies longer than `PAGE_BODY_LIMIT` characters are cut in the page, with a note of how much.
    (Exchanges not in the form `arazzo run` writes are left as they are: the page says it cannot
    show them.)"""
    exchanges = step.get("exchanges")
    for exchange in exchanges if isinstance(exchanges, list) else ():
        if not isinstance(exchange, dict):
            continue
        for part in (exchange.get("request"), exchange.get("response")):
            if not isinstance(part, dict):
                continue
            body = part.get("body")
            if isinstance(body, str) and len(body) > PAGE_BODY_LIMIT:
                part["body"] = body[:PAGE_BODY_LIMIT]
                part["pageCutChars"] = len(body) - PAGE_BODY_LIMIT


def _timing(run: dict[str, Any], executions: list[dict[str, Any]]) -> None:
    """The run's start (its first workflow's) and its span in milliseconds, for the timeline."""
    starts, ends = [], []
    for index in run["executions"]:
        execution = executions[index]
        start = millis(execution.get("startedAt"))
        if start is not None:
            duration = execution.get("durationMs")
            starts.append(start)
            ends.append(start + (duration if isinstance(duration, (int, float)) else 0))
    run["startedAt"] = min(starts) if starts else None
    run["durationMs"] = round(max(ends) - min(starts), 3) if starts else None


def _grid(runs: list[dict[str, Any]], executions: list[dict[str, Any]]) -> dict[str, Any]:
    """Runs (rows, files) x the workflows they ran at the top: each cell the execution and its status."""
    columns: list[str] = []
    cells = []
    for run in runs:
        row: dict[str, int] = {}
        for index in run["executions"]:
            execution = executions[index]
            if "parent" in execution or " (from " in execution["name"]:
                continue
            workflow_id = execution.get("workflowId") or "?"
            if workflow_id not in columns:
                columns.append(workflow_id)
            row.setdefault(workflow_id, index)
        cells.append(row)
    return {
        "columns": columns,
        "rows": [
            {"run": run["id"], "cells": [cells[i].get(c) for c in columns]} for i, run in enumerate(runs)
        ],
    }


def millis(text: Any) -> float | None:
    """Milliseconds since the epoch of an ISO time the reports write (`2026-01-02T03:04:05.678Z`)."""
    if not isinstance(text, str):
        return None
    from datetime import datetime

    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return None
