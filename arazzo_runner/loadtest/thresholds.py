"""Thresholds of a load test, judged on Locust's statistics when the test ends.

    METRIC(NAME) OP LIMIT[UNIT]        p95(createOrder)<300ms   failures(checkout)<1%   rps(checkout)>=50

METRIC: `pN` (a percentile of the response time, e.g. p50, p95, p99.9), `avg`, `min`, `max`, `median`
(milliseconds; `ms` or `s`, none meaning ms), `rps` (requests per second over the whole test),
`failures` (a share with `%`, a count without), `requests` (a count). OP: `<`, `<=`, `>`, `>=`, `==`.
NAME: a step (`stepId`, or `workflowId.stepId` when several workflows have that step), a workflow
(`workflowId`, or `workflow workflowId` when a step has the same name), or `*` for every step.

Every threshold is parsed and its name resolved against the document before the test starts (a typo
is a usage error, not a broken threshold after ten minutes). A threshold on something that never ran
has nothing to judge and is broken, except `rps` and `requests`, whose value is then a real 0.
Response times are Locust's: above 100 ms it keeps them to two significant digits.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from ..records import Record
from .naming import WORKFLOW_PREFIX, step_name, workflow_name

_FORM = re.compile(
    r"\s*(?P<metric>p\d+(?:\.\d+)?|avg|min|max|median|rps|failures|requests)\s*\((?P<name>[^()]+)\)\s*"
    r"(?P<op><=|>=|==|<|>)\s*(?P<limit>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|%|/s)?\s*",
    re.IGNORECASE,
)
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
}
_TIMES = ("avg", "min", "max", "median")
ALL_STEPS = "*"
SYNTAX = "METRIC(NAME) OP LIMIT, e.g. p95(createOrder)<300ms, failures(checkout)<1%, rps(checkout)>=50"


class Threshold(Record, frozen=True):
    text: str  # as the user wrote it
    metric: str  # p95, avg, ..., rps, failures, requests
    name: str  # as written between the parentheses
    op: str
    limit: float  # in the metric's unit: ms, requests/s, a share (0..1) for `failures ... %`, a count
    share: bool = False  # `failures(...) < 1%`: a share of the requests, not a count
    rows: tuple[str, ...] = ()  # the statistics rows it reads (resolved); () with `every_step`
    every_step: bool = False
    label: str = ""  # what the name resolved to, for messages


class Verdict(Record, frozen=True):
    threshold: Threshold
    passed: bool
    value: float | None  # None: nothing to judge
    message: str  # `p95(createOrder)<300ms: 412 ms (orders.createOrder)`


def parse(text: str) -> Threshold:
    match = _FORM.fullmatch(text)
    if match is None:
        raise UsageError(f"--threshold {text!r}: expected {SYNTAX}")
    metric, unit = match["metric"].lower(), (match["unit"] or "").lower()
    limit = float(match["limit"])
    share = False
    if metric.startswith("p"):
        fraction = float(metric[1:]) / 100
        if not 0 < fraction <= 1:
            raise UsageError(f"--threshold {text!r}: a percentile is between p0 (excluded) and p100")
    if metric.startswith("p") or metric in _TIMES:
        if unit not in ("", "ms", "s"):
            raise UsageError(f"--threshold {text!r}: {metric} is a time: give ms or s, not {unit}")
        limit = limit * 1000 if unit == "s" else limit
    elif metric == "failures":
        if unit not in ("", "%"):
            raise UsageError(f"--threshold {text!r}: failures is a count, or a share with %")
        share = unit == "%"
        limit = limit / 100 if share else limit
    elif unit not in ("", "/s" if metric == "rps" else ""):
        raise UsageError(f"--threshold {text!r}: {metric} takes no unit")
    return Threshold(text.strip(), metric, match["name"].strip(), match["op"], limit, share)


def resolve(threshold: Threshold, workspace: Any) -> Threshold:
    """The statistics rows a threshold reads, by the names the document gives its workflows and steps."""
    from ..records import replace

    name = threshold.name
    if name == ALL_STEPS:
        return replace(threshold, every_step=True, label="every step")
    workflows = {w.workflow_id: w for w in workspace.document.workflows}
    steps: dict[str, list[str]] = {}
    for workflow in workflows.values():
        for step in workflow.steps:
            steps.setdefault(step.step_id, []).append(workflow.workflow_id)
    known = ", ".join(workflows) or "none"
    where = f"--threshold {threshold.text!r}"
    if name.startswith(WORKFLOW_PREFIX):
        workflow_id = name[len(WORKFLOW_PREFIX) :].strip()
        if workflow_id not in workflows:
            raise UsageError(f"{where}: no workflow '{workflow_id}' in {workspace.file} (workflows: {known})")
        return replace(threshold, rows=(workflow_name(workflow_id),), label=workflow_name(workflow_id))
    for at in (i for i, char in enumerate(name) if char == "."):
        workflow_id, step_id = name[:at], name[at + 1 :]
        if workflow_id in steps.get(step_id, ()):
            return replace(threshold, rows=(step_name(workflow_id, step_id),), label=name)
    owners = steps.get(name, [])
    if name in workflows and owners:
        forms = ", ".join([f"workflow {name}", *(step_name(w, name) for w in owners)])
        raise UsageError(f"{where}: '{name}' is a workflow and a step; write one of: {forms}")
    if name in workflows:
        return replace(threshold, rows=(workflow_name(name),), label=workflow_name(name))
    if len(owners) == 1:
        row = step_name(owners[0], name)
        return replace(threshold, rows=(row,), label=row)
    if owners:
        forms = ", ".join(step_name(w, name) for w in owners)
        raise UsageError(f"{where}: several workflows have a step '{name}'; write one of: {forms}")
    raise UsageError(f"{where}: no step or workflow '{name}' in {workspace.file} (workflows: {known})")


def judge(threshold: Threshold, entries: list[Any]) -> Verdict:
    """The verdict on Locust statistics entries (`StatsEntry`) of the threshold's rows (merged when
    there are several: a step run with two methods, or every step)."""
    entry = _merged(entries, threshold.label)
    requests = entry.num_requests if entry is not None else 0
    value: float | None
    if threshold.metric == "requests":
        value = float(requests)
    elif threshold.metric == "rps":
        value = float(entry.total_rps) if entry is not None else 0.0
    elif not requests:
        return Verdict(threshold, False, None, f"{threshold.text}: no requests of {threshold.label} to judge")
    elif threshold.metric == "failures":
        value = entry.num_failures / requests if threshold.share else float(entry.num_failures)
    elif threshold.metric.startswith("p"):
        value = float(entry.get_response_time_percentile(float(threshold.metric[1:]) / 100))
    elif threshold.metric == "median":
        value = float(entry.median_response_time)
    else:
        value = float(getattr(entry, f"{threshold.metric}_response_time") or 0.0)
    passed = _OPS[threshold.op](value, threshold.limit)
    return Verdict(
        threshold, passed, value, f"{threshold.text}: {_shown(threshold, value)} ({threshold.label})"
    )


def rows_of(threshold: Threshold, entries: dict[tuple[str, str], Any]) -> list[Any]:
    """The entries of Locust's `stats.entries` ({(name, method): entry}) that a threshold reads."""
    if threshold.every_step:
        return [e for (name, _), e in entries.items() if not name.startswith(WORKFLOW_PREFIX)]
    return [e for (name, _), e in entries.items() if name in threshold.rows]


def _merged(entries: list[Any], label: str) -> Any:
    if len(entries) <= 1:
        return entries[0] if entries else None
    first = entries[0]
    merged = type(first)(first.stats, label, "")
    for entry in entries:
        merged.extend(entry)
    return merged


def _shown(threshold: Threshold, value: float) -> str:
    if threshold.metric in ("requests",) or (threshold.metric == "failures" and not threshold.share):
        return f"{value:g}"
    if threshold.metric == "failures":
        return f"{value * 100:.2f}%"
    if threshold.metric == "rps":
        return f"{value:.1f}/s"
    return f"{value:g} ms"
