"""Turning evaluated values into what is sent or stored, reporting every missing part by location."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..expressions import Missing, ast
from ..loader.pointer import format_pointer
from ..masking.secrets import VALUE_LIMIT, clip


class Outputs(dict):
    """The outputs of a step or workflow execution. An output whose expression reached nothing is stored
    as null (what `$steps.x.outputs.y` then reads); `missing` keeps why, so that a required parameter
    that receives that null can say where the value went missing. `secret` names the outputs derived
    from a secret (`arazzo_runner.masking.taint`): every writer shows them as `***`; `members` gives, for an
    output that is not but holds secret members (it reads `$inputs` whole), where they are
    (`masking/members.py`): every writer shows those as `***`; `bound` gives, for those derived from a
    credential the engine added, that credential (`outbound.Bound`): they stay with its origins too."""

    __slots__ = ("bound", "members", "missing", "secret")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.missing: dict[str, str] = {}
        self.secret: set[str] = set()
        self.members: dict[str, tuple[tuple[Any, ...], ...]] = {}
        self.bound: dict[str, tuple[Any, ...]] = {}


def derived_output(taint: Any, compiled: Any, ctx: Any, outputs: Outputs, name: str) -> Any:
    """Evaluate output `name`; one derived from a secret (`arazzo_runner.masking.taint`) is marked in
    `outputs.secret` and its strings join the run's secrets; one holding secret members (it reads
    `$inputs` whole) has them in `outputs.members`. If it reaches nothing, why is not told: a selector's
    error could quote the value it computed."""
    value = compiled.evaluate(ctx)
    if taint is None:
        return value
    whole, members = taint.marks(compiled, ctx)
    if not whole:
        if members:
            outputs.members[name] = members
        return value
    outputs.secret.add(name)
    credentials = taint.credentials(compiled, ctx)
    if credentials:
        outputs.bound[name] = credentials
    if isinstance(value, Missing) and not value.withheld:
        return Missing("it could not be computed (derived from a secret: the reason is not shown)")
    taint.adopt(value)
    return value


def null_reason(compiled: Any, ctx: Any) -> str | None:
    """Why a whole-value output reference (`$steps.s.outputs.o`, `$outputs.o`, `$workflows.w.outputs.o`)
    is null, when the output was stored null because its own expression reached nothing."""
    expr = getattr(compiled, "expression", None)
    if expr is None or getattr(expr, "pointer", ()) or expr.accessors:
        return None
    holder: Any = None
    if isinstance(expr, ast.StepOutputRef):
        holder = ctx.steps.get(expr.step_id)
    elif isinstance(expr, ast.OutputsRef):
        holder = ctx.outputs
    elif isinstance(expr, ast.WorkflowRef) and expr.field == "outputs":
        workflow = ctx.workflows.get(expr.workflow_id)
        holder = workflow.get("outputs") if isinstance(workflow, Mapping) else None
    missing = getattr(holder, "missing", None)
    return missing.get(expr.name) if missing else None


def strip_missing(value: Any, where: str) -> tuple[Any, list[str]]:
    """Remove Missing members from containers; return the clean value and one message per removal.

    A Missing top-level value is returned as is (the caller decides whether that fails the step).
    """
    kind = type(value)
    if kind is not dict and kind is not list:  # scalars (the usual case): nothing to walk
        return value, ([f"{where}: {clip(value.reason, VALUE_LIMIT)}"] if kind is Missing else [])
    problems: list[str] = []
    clean = _strip(value, [], where, problems)
    return clean, problems


def _strip(value: Any, path: list[str | int], where: str, problems: list[str]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(item, Missing):
                reason = clip(item.reason, VALUE_LIMIT)
                problems.append(f"{where}{format_pointer([*path, key])}: {reason}; member omitted")
                continue
            out[key] = _strip(item, [*path, key], where, problems)
        return out
    if isinstance(value, list):
        out_list = []
        for index, item in enumerate(value):
            if isinstance(item, Missing):
                reason = clip(item.reason, VALUE_LIMIT)
                problems.append(f"{where}{format_pointer([*path, index])}: {reason}; null sent instead")
                out_list.append(None)
                continue
            out_list.append(_strip(item, [*path, index], where, problems))
        return out_list
    return value


def action_inputs(action: Any, ctx: Any) -> dict[str, Any]:
    """The inputs a `goto`/`retry` action passes to the workflow it names (absent values left out)."""
    inputs = {}
    for param in action.params:
        value, _ = strip_missing(param.value.evaluate(ctx), f"parameter '{param.name}'")
        if not isinstance(value, Missing):
            inputs[param.name] = value
    return inputs
