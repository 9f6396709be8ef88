"""`x-forEach`: a step that runs its workflow once per item of an array (a Specification Extension).

    - stepId: each
      workflowId: showItem
      x-forEach:
        items: $steps.list.outputs.items   # a runtime expression (or a literal array)
        input: item                        # the child workflow's input each item is given as
      parameters: [{name: suffix, value: "!"}]   # the same for every item
      outputs: {label: $outputs.label}    # each an array of the children's values, in item order

Its shape is checked here, once, for the plan (a malformed extension is a document error: the workflow
cannot run with one meaning) and for `arazzo validate` (rule `x-for-each`); what a run does with it is
`executor/steps/loop.py`, and docs/semantics.md (*Loops*) says it in full.
"""

from __future__ import annotations

from typing import Any

from ..model import Pointer, Reusable, Step
from ..records import Record

KEY = "x-forEach"
FIELDS = ("items", "input")


class CompiledForEach(Record):
    """A step's `x-forEach`, compiled: the items (a value), the child's input each item is given as."""

    items: Any  # expressions.CompiledValue
    input: str
    at: Pointer


def compile_for_each(step: Step, params: list[Any], value: Any, fail: Any) -> CompiledForEach:
    """The step's `x-forEach` compiled with `value(raw, at)` (the plan's compiler); a malformed one, or a
    parameter of the step, its own or the workflow's (`params`, compiled), named as its input (two
    meanings), is `fail(at, message)` raised (the plan's CompileError)."""
    problems = shape_problems(step)
    if problems:
        raise fail(*problems[0])
    raw = step.extensions[KEY]
    at = (*step.at, KEY)
    for param in params:
        if param.name == raw["input"]:
            message = f"parameter '{param.name}' is also x-forEach's input: each item is given as it"
            raise fail(param.at, message)
    return CompiledForEach(value(raw["items"], (*at, "items")), raw["input"], at)


def shape_problems(step: Step) -> list[tuple[Pointer, str]]:
    """What keeps the step's `x-forEach` from having one meaning, located: it applies only to a step
    that calls a workflow, holds `items` and `input` (a non-empty string) and nothing else, and no
    parameter of the step is named as its `input`."""
    raw = step.extensions.get(KEY)
    at = (*step.at, KEY)
    if step.workflow_id is None:
        what = "an operation" if step.target_kind == "operation" else "an AsyncAPI channel"
        return [
            (
                at,
                f"x-forEach applies to a step that calls a workflow (workflowId); step "
                f"'{step.step_id}' calls {what}",
            )
        ]
    if not isinstance(raw, dict):
        return [(at, f"x-forEach must be an object with 'items' and 'input', not {kind_of(raw)}")]
    problems: list[tuple[Pointer, str]] = []
    for name in raw:
        if name not in FIELDS:
            problems.append(((*at, name), f"x-forEach has no field '{name}' (its fields: items, input)"))
    for name in FIELDS:
        if name not in raw:
            problems.append((at, f"x-forEach needs '{name}'"))
    given = raw.get("input")
    if "input" in raw and (not isinstance(given, str) or not given):
        problems.append(
            ((*at, "input"), f"x-forEach 'input' must be a workflow input's name, not {kind_of(given)}")
        )
    if isinstance(given, str):
        for index, param in enumerate(step.parameters):
            name = None if isinstance(param, Reusable) else param.name
            if name == given:
                problems.append(
                    (
                        (*step.at, "parameters", index),
                        f"parameter '{given}' is also x-forEach's input: each item is given as '{given}'",
                    )
                )
    return problems


def kind_of(value: Any) -> str:
    """A JSON value's kind, as a message says it (`a string`, `an array`, `null`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "an empty string" if not value else "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
