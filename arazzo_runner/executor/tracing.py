"""What a step execution did, attempt by attempt, for the reports that show a run (`RunOptions.trace`,
on with `--report-json` and `--html`): where the step is written, when each attempt started and how long
it took, every success criterion with the values it read and its verdict, each runtime expression of
the step (parameters, body, outputs) with what it resolved to, and the wait before each retry.

Recorded only when asked: a run without reports pays nothing. Bounded: a value whose JSON text is longer
than `TRACE_VALUE_LIMIT` characters is kept as that text, cut (`secrets.clip`); at most `MAX_ENTRIES`
criteria and expressions per attempt. Never a secret: a value read where secrets travel or derived from
one (`arazzo_runner.masking.taint`) is recorded as `***`; the rest is masked by value by the report
writers, with every secret the run knew by its end.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from ..expressions import Missing
from ..expressions.resolver import resolve
from ..masking.secrets import MASK, VALUE_LIMIT, clip, json_text

if TYPE_CHECKING:
    from ..result import StepResult
    from ..workspace.plan import CompiledStep
    from .steps import Attempt

TRACE_VALUE_LIMIT = VALUE_LIMIT  # characters of one value's JSON text (the exchanges hold the bodies)
MAX_ENTRIES = 200  # criteria, and expressions, recorded per attempt


def location(workspace: Any, cstep: CompiledStep) -> dict[str, Any]:
    """Where the step is written: its document and the 1-based line and column of its object."""
    line, column = workspace.loaded.positions.locate(cstep.step.at)
    return {"file": workspace.file, "line": line, "column": column}


def trace_attempt(
    step_result: StepResult, attempt: Attempt, cstep: CompiledStep, workspace: Any, began: float
) -> None:
    """Record one attempt (made from `began`, a `time.time()`) in `step_result.trace`."""
    trace = step_result.trace
    if trace is None:
        trace = step_result.trace = {"location": location(workspace, cstep), "attempts": []}
    ctx = attempt.ctx
    entry: dict[str, Any] = {
        "attempt": len(trace["attempts"]) + 1,
        "startedAt": began,
        "durationMs": round((time.time() - began) * 1000, 3),
        "status": "passed" if attempt.ok else "failed",
    }
    if attempt.status_code is not None:
        entry["statusCode"] = attempt.status_code
    if attempt.message:  # in full on the step (`error`) when it is the last attempt's
        entry["message"] = clip(attempt.message, VALUE_LIMIT)
    if cstep.criteria and (attempt.ok or attempt.failed_criteria):  # checked (else: failed before)
        entry["criteria"] = [_criterion(c, ctx) for c in cstep.criteria[:MAX_ENTRIES]]
    expressions = list(_expressions(cstep, ctx))
    if expressions:
        entry["expressions"] = expressions
    trace["attempts"].append(entry)


def trace_retry(step_result: StepResult, action: Any, delay: float) -> None:
    """The last attempt is followed by the retry `action` after `delay` seconds."""
    if step_result.trace is not None and step_result.trace["attempts"]:
        step_result.trace["attempts"][-1]["retry"] = {"action": action.name, "delaySeconds": delay}


def _criterion(criterion: Any, ctx: Any) -> dict[str, Any]:
    """A success criterion evaluated again on the attempt's context (criteria are pure): its verdict,
    its message, and what each expression it reads resolved to."""
    check = criterion.check
    outcome = check.evaluate(ctx)
    entry: dict[str, Any] = {
        "condition": clip(criterion.text, VALUE_LIMIT),
        "type": check.type if check.version is None else f"{check.type}/{check.version}",
        "passed": outcome.passed,
    }
    if check.context:
        entry["context"] = check.context
    if outcome.message:
        entry["message"] = outcome.message
    values = []
    for expression in list(check.expressions())[:MAX_ENTRIES]:
        values.append(_value(expression, ctx, computes=check.computes))
    if values:
        entry["values"] = values
    return entry


def _expressions(cstep: CompiledStep, ctx: Any) -> Any:
    """(where, expression, value) of each runtime expression of the step's request and outputs."""
    count = 0
    for where, compiled in _values(cstep):
        for expression in compiled.expressions():
            if count >= MAX_ENTRIES:
                return
            count += 1
            yield {"where": where, **_value(expression, ctx)}


def _values(cstep: CompiledStep) -> Any:
    for param in cstep.params:
        yield (f"parameter {param.name}" + (f" (in {param.in_})" if param.in_ else "")), param.value
    body = cstep.body
    if body is not None:
        if body.payload is not None:
            yield "request body", body.payload
        for replacement in body.replacements:
            yield f"request body {replacement.target}", replacement.value
    if cstep.correlation is not None:
        yield "correlationId", cstep.correlation
    for name, value in cstep.outputs.items():
        yield f"output {name}", value


def _value(expression: Any, ctx: Any, computes: bool = False) -> dict[str, Any]:
    """`{expression, value}`: `***` when it read a secret; `missing` (why) when it reached nothing;
    a value longer than the limit as its JSON text, cut (`cut: true`)."""
    entry: dict[str, Any] = {"expression": clip(expression.text, VALUE_LIMIT)}
    try:
        value = resolve(expression, ctx)
    except Exception as exc:  # resolving is what the step did already; an odd value must not stop it
        entry["missing"] = clip(str(exc), VALUE_LIMIT)
        return entry
    if isinstance(value, Missing):
        entry["missing"] = clip(value.reason, VALUE_LIMIT)
        return entry
    taint = ctx.taint
    if taint is not None:
        if taint.by_name(expression, ctx) or (computes and taint.masker.touches(value)):
            entry["value"], entry["secret"] = MASK, True
            return entry
        members = taint.members(expression, ctx)  # an object read whole: its secret members masked
        if members:
            from ..masking.members import masked_at

            value = masked_at(value, members, MASK)
    entry["value"], cut = bounded(value)
    if cut:
        entry["cut"] = True
    return entry


def bounded(value: Any, limit: int = TRACE_VALUE_LIMIT) -> tuple[Any, bool]:
    """`value` as JSON data of at most about `limit` characters, and whether it was cut: a long string
    is cut (`clip`), a long container becomes its JSON text, cut; other values are copied as JSON."""
    if value is None or isinstance(value, (bool, int, float)):
        return value, False
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        return (value, False) if len(value) <= limit else (clip(value, limit), True)
    text = json_text(value)
    if len(text) > limit:
        return clip(text, limit), True
    try:
        return json.loads(text), False  # a copy, JSON-safe (what `json_text` could not encode, as text)
    except ValueError:
        return text, False
