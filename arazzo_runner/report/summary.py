"""For CI: a Markdown summary of runs (`--summary FILE`, and `$GITHUB_STEP_SUMMARY` in GitHub Actions) and
GitHub annotations (`::error file=...,line=...::message`) pointing at the line of each step that failed a
workflow, and at each problem that kept a workflow from running, then a `::warning` at each step whose
response violated its contract without failing it.

Both read the page data of `report/html/model.py`, so `arazzo run` and `arazzo report` say the same.
Both are bounded (`MAX_ROWS` table rows, `MAX_ANNOTATIONS` annotations, each text cut) and hold only what
the masked reports hold. Paths are relative to `$GITHUB_WORKSPACE` (or the working directory) when the
file is inside it, as GitHub wants them.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import MappingProxyType
from typing import Any

MAX_ROWS = 100  # workflow rows of the summary's table; failed steps listed
MAX_ANNOTATIONS = 20  # GitHub shows at most 10 errors per step anyway
TEXT_LIMIT = 300
_MARKS = MappingProxyType({"passed": "✅", "failed": "❌", "answered": "✅"})


def markdown_summary(page: dict[str, Any]) -> str:
    runs, executions, steps = page["runs"], page["executions"], page["steps"]
    top = [executions[i] for run in runs for i in run["executions"] if not _nested(executions[i])]
    failed = [e for e in top if e.get("status") != "passed"]
    head = "✅" if not failed and all(r.get("status") in ("passed", "answered") for r in runs) else "❌"
    title = f"{len(top) - len(failed)} of {len(top)} workflow runs passed"
    if len(runs) > 1:
        title += f" ({len(runs)} runs)"
    lines = [f"### {head} Arazzo: {title}", ""]
    several = len(runs) > 1
    lines.append("| | " + ("run | " if several else "") + "workflow | steps | time | failed at |")
    lines.append("|---|" + ("---|" if several else "") + "---|---|---|---|")
    shown = sorted(top, key=lambda e: e.get("status") == "passed")[:MAX_ROWS]  # failures first
    for execution in shown:
        run = runs[execution["run"]]
        cells = [_MARKS.get(execution.get("status"), "⏭")]
        if several:
            cells.append(cell(run["label"]))
        cells += [
            "`" + cell(execution["name"]).replace("`", "'") + "`",
            str(len(execution["steps"])) if execution.get("status") != "not_run" else "not run",
            _ms(execution.get("durationMs")) if execution.get("status") != "not_run" else "",
            cell(_failure(execution, executions, steps)),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if len(top) > MAX_ROWS:
        lines.append(f"\n{len(top) - MAX_ROWS} more workflow runs are not listed.")
    lines += _contract(steps)
    if isinstance(page.get("coverage"), dict):
        from .coverage_text import markdown

        lines += markdown(page["coverage"], cell, MAX_ROWS)
    for run in runs:
        if run.get("kind") == "agent":
            agent = run.get("agent") or {}
            calls = agent.get("toolCalls") or []
            turns = f"{agent.get('turns')} turn(s), {len(calls)} tool call(s)"
            lines += ["", f"Agent run {cell(run['label'])}: {run.get('status')}, {turns}."]
    if page.get("diff"):
        from .html.diff import diff_lines

        diff = page["diff"]
        lines += ["", "#### Changes", "", cell(diff["summary"]), ""]
        lines += [f"- {cell(line.strip())}" for line in diff_lines(diff)[1 : MAX_ROWS + 1]]
    if page.get("unmasked"):
        lines += ["", "**Written with --no-mask: secrets may show in the reports.**"]
    return "\n".join(lines) + "\n"


def _contract(steps: list[dict[str, Any]]) -> list[str]:
    """The contract violations of the run's responses (`http/contract.py`), one item each, the step and
    where it is written first."""
    from ..http.contract import Violation

    found = [(step, v) for step in steps for v in step.get("contract") or () if isinstance(v, dict)]
    if not found:
        return []
    lines = ["", f"#### Contract violations ({len(found)})", ""]
    for step, violation in found[:MAX_ROWS]:
        location = (step.get("trace") or {}).get("location")
        where = f" ({_where(location)})" if location else ""
        text = Violation.from_dict(violation).text()
        name = cell(step.get("name", "")).replace("`", "'")
        lines.append(f"- step `{name}`{where}: {cell(text)}")
    if len(found) > MAX_ROWS:
        lines.append(f"\n{len(found) - MAX_ROWS} more contract violations are not listed.")
    return lines


def outcome_line(page: dict[str, Any]) -> str:
    """What the page's header says first (`report.js` shows it, `arazzo report -o` prints it): the
    workflows at the top by outcome, then runs and step executions ("4 workflows: 1 passed, 2 failed, 1
    not run · 1 run, 5 step executions"): how many step executions there were says less about how a run
    went. An agent run has no workflow at the top (its workflows are its tool calls): it is counted as a
    run, beside the workflows when the page has both ("...; 1 agent run: 1 failed"), or alone."""
    runs = page["runs"]
    top = [e for e in page["executions"] if not _nested(e)]
    steps = _count(len(page["steps"]), "step execution")
    if not top:
        return f"{_tally(runs, 'run') if runs else 'no run'} · {steps}"
    agents = [run for run in runs if run.get("kind") == "agent"]
    head = _tally(top, "workflow") + (f"; {_tally(agents, 'agent run')}" if agents else "")
    return f"{head} · {_count(len(runs), 'run')}, {steps}"


def _tally(items: list[dict[str, Any]], noun: str) -> str:
    """`3 workflows: 1 passed, 2 failed` (passed, failed, not run, then others as met), or `all passed`."""
    counts: dict[str, int] = {}
    for item in items:
        status = "not run" if item.get("status") == "not_run" else str(item.get("status") or "unknown")
        counts[status] = counts.get(status, 0) + 1
    rank = {"passed": 0, "answered": 0, "failed": 1, "not run": 2}
    order = sorted(counts, key=lambda status: rank.get(status, 3))
    if len(order) == 1 and order[0] in ("passed", "answered"):
        return f"{_count(len(items), noun)}: all {order[0]}"
    return f"{_count(len(items), noun)}: " + ", ".join(f"{counts[s]} {s}" for s in order)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _nested(execution: dict[str, Any]) -> bool:
    return "parent" in execution or " (from " in execution["name"]


def _failure(execution: dict[str, Any], executions: list[dict[str, Any]], steps: list[dict[str, Any]]) -> str:
    if execution.get("status") == "passed":
        return ""
    if execution.get("problems"):
        first = execution["problems"][0]
        more = f" (+{len(execution['problems']) - 1} more)" if len(execution["problems"]) > 1 else ""
        return f"{_where(first)}: {first.get('message', '')}{more}"
    step = failed_step(execution, steps)
    error = execution.get("error") or {}
    if step is None:
        return str(error.get("message") or execution.get("status"))
    location = (step.get("trace") or {}).get("location")
    where = f" ({_where(location)})" if location else ""
    return f"step {step['name']}{where}: {step.get('error') or error.get('message') or 'failed'}"


def failed_step(execution: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last execution of the step the workflow's error names (it ended the workflow)."""
    step_id = (execution.get("error") or {}).get("stepId")
    found = [steps[i] for i in execution["steps"] if steps[i].get("stepId") == step_id]
    return found[-1] if found else None


def _where(location: dict[str, Any]) -> str:
    text = relative(str(location.get("file") or "?"))
    for key in ("line", "column"):
        if location.get(key) is not None:
            text += f":{location[key]}"
    return text


def relative(file: str) -> str:
    """`file` relative to `$GITHUB_WORKSPACE` (or the working directory) when inside it, with `/`."""
    base = os.environ.get("GITHUB_WORKSPACE") or os.getcwd()
    try:
        return Path(file).resolve().relative_to(Path(base).resolve()).as_posix()
    except (ValueError, OSError):
        return file


def cell(text: Any) -> str:
    """Text for a Markdown table cell: one line, no markup or HTML of its own, cut."""
    text = " ".join(str(text).split())
    if len(text) > TEXT_LIMIT:
        text = text[: TEXT_LIMIT - 3] + "..."
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for char in "\\|*_[]~`#":
        text = text.replace(char, "\\" + char)
    return text


def _ms(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return ""
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


# -- GitHub annotations ------------------------------------------------------------------------------------


def github_annotations(page: dict[str, Any]) -> list[str]:
    """`::error file=F,line=L,col=C,title=T::message` for each step that failed a workflow (nested ones
    too: the step where it went wrong) and each problem that kept a workflow from running; then a
    `::warning` at each step whose response violated its contract without failing it."""
    found: list[str] = []
    executions, steps = page["executions"], page["steps"]
    for execution in executions:
        if execution.get("status") == "passed":
            continue
        for problem in execution.get("problems") or []:
            title = f"workflow {execution.get('workflowId')} not run"
            found.append(_command(problem, title, problem.get("message") or "not run"))
        step = failed_step(execution, steps)
        if step is None or step.get("children"):  # a workflow step: its child's step is annotated
            continue
        location = (step.get("trace") or {}).get("location") or {}
        title = f"workflow {execution['name']}, step {step['name']} failed"
        found.append(_command(location, title, step.get("error") or "failed"))
    found += _contract_warnings(executions, steps)
    if len(found) > MAX_ANNOTATIONS:
        more = len(found) - MAX_ANNOTATIONS
        found = [*found[:MAX_ANNOTATIONS], f"::notice::{more} more annotations: see the summary or report"]
    return found


def _contract_warnings(executions: list[dict[str, Any]], steps: list[dict[str, Any]]) -> list[str]:
    """`::warning ...` at each step whose response violated its contract and did not fail for it
    (`--contract warn`: under `fail` the step's failure is annotated, the violations in its message)."""
    from ..http.contract import Violation

    found = []
    for execution in executions:
        for index in execution.get("steps") or ():
            step = steps[index]
            violations = [v for v in step.get("contract") or () if isinstance(v, dict)]
            if not violations or step.get("status") == "failed":
                continue
            location = (step.get("trace") or {}).get("location") or {}
            title = f"workflow {execution['name']}, step {step['name']}: contract violated"
            text = "; ".join(Violation.from_dict(v).text() for v in violations)
            found.append(_command(location, title, text, "warning"))
    return found


def _command(location: dict[str, Any], title: str, message: str, level: str = "error") -> str:
    props = []
    if location.get("file"):
        props.append("file=" + _property(relative(str(location["file"]))))
        if location.get("line") is not None:
            props.append(f"line={int(location['line'])}")
        if location.get("column") is not None:
            props.append(f"col={int(location['column'])}")
    props.append("title=" + _property(title))
    text = str(message)
    if len(text) > 2 * TEXT_LIMIT:
        text = text[: 2 * TEXT_LIMIT - 3] + "..."
    return f"::{level} {','.join(props)}::{_data(text)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
