"""A workflow's inputs schema: that it describes an object, and which `$inputs.<name>` it declares.

Inputs are always an object (name -> value), so a schema of another type (`type: string`) can never be
satisfied: an error, and so is every `$inputs.x` against it. A name the schema does not declare is an
error when the schema is closed (`additionalProperties: false`), since no run can supply it, and a
warning otherwise (a run may still pass it). A schema whose `additionalProperties` is itself a schema,
or with `patternProperties`, declares names by rule: not checked.
"""

from __future__ import annotations

from typing import Any

from ...errors import ExpressionError
from ...loader.pointer import ABSENT, format_pointer, parse_pointer, resolve_pointer
from ...model import Pointer, Workflow
from ...records import Record
from ..checker import Checker, did_you_mean
from ..findings import WARNING

_MAX_DEPTH = 32  # `$ref`s and allOf/anyOf/oneOf followed; deeper (or a cycle) counts as unknown


class InputsShape(Record, frozen=True):
    names: frozenset[str] | None  # declared property names; None: cannot be known (an external $ref)
    closed: bool  # additionalProperties/unevaluatedProperties false: nothing else is accepted
    by_rule: bool  # additionalProperties is a schema, or patternProperties: any name may be declared
    other_type: str | None  # the type the schema declares when it is not an object
    type_at: Pointer  # where that type is written


def inputs_shape(ck: Checker, workflow: Workflow) -> InputsShape | None:
    """What the workflow's inputs schema declares; None when it has no inputs schema."""
    key = ("inputs-shape", id(workflow))
    if key not in ck.cache:
        if workflow.inputs is None:
            ck.cache[key] = None
        else:
            ck.cache[key] = _shape(workflow.inputs, (*workflow.at, "inputs"), ck.document.raw)
    return ck.cache[key]


def _shape(schema: Any, at: Pointer, root: dict) -> InputsShape:
    top, top_at = _follow(schema, at, root)
    names = _names(top, root, 0) if top is not None else None
    if not isinstance(top, dict):
        return InputsShape(names, False, False, None, at)
    closed = top.get("additionalProperties") is False or top.get("unevaluatedProperties") is False
    by_rule = isinstance(top.get("additionalProperties"), dict) or bool(top.get("patternProperties"))
    kind = top.get("type")
    other = None
    if isinstance(kind, str) and kind != "object":
        other = kind
    elif isinstance(kind, list) and kind and "object" not in kind:
        other = " or ".join(str(k) for k in kind)
    return InputsShape(names, closed, by_rule, other, (*top_at, "type"))


def _follow(schema: Any, at: Pointer, root: dict) -> tuple[Any, Pointer]:
    """The schema a chain of local `$ref`s leads to, and where it is; (None, at) when unknown."""
    for _ in range(_MAX_DEPTH):
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if not isinstance(ref, str):
            return schema, at
        if not ref.startswith("#"):
            return None, at
        try:
            tokens = parse_pointer(ref)
        except ExpressionError:
            return None, at
        target = resolve_pointer(root, tokens)
        if target is ABSENT:
            return None, at
        schema, at = target, tuple(tokens)
    return None, at


def _names(schema: Any, root: dict, depth: int) -> frozenset[str] | None:
    schema, _ = _follow(schema, (), root)
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return None
    names: set[str] = set()
    properties = schema.get("properties")
    if isinstance(properties, dict):
        names.update(properties)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(keyword) or ():
            sub = _names(branch, root, depth + 1)
            if sub is None:
                return None
            names |= sub
    return frozenset(names)


def inputs_schema(ck: Checker) -> None:
    """A workflow's inputs schema describes an object. Reported in the workflow (at `inputs`, naming
    where the type is when a `$ref` leads elsewhere), so that a run not reaching it is not refused."""
    for workflow in ck.document.workflows:
        shape = inputs_shape(ck, workflow)
        if shape is None or shape.other_type is None:
            continue
        inputs_at = (*workflow.at, "inputs")
        inside = shape.type_at[: len(inputs_at)] == inputs_at
        where = "" if inside else f" (at {format_pointer(shape.type_at)})"
        message = (
            f"the inputs schema of workflow '{workflow.workflow_id}' has type {shape.other_type}{where}, but "
            "inputs are an object (name -> value): no run can satisfy it; declare `type: object` with "
            "`properties`"
        )
        ck.report("inputs-schema", shape.type_at if inside else inputs_at, message)


def declared(name: str, names: Any) -> bool:
    """`name` or, since names may contain dots, one of its dotted prefixes (the rest is a member)."""
    if not name or name in names:
        return True
    parts = name.split(".")
    return any(".".join(parts[:i]) in names for i in range(1, len(parts)))


def check_input(ck: Checker, text: str, name: str, at: Pointer, workflow: Workflow, rule: str) -> None:
    """`text` reads input `name` of `workflow` (`$inputs.x`, or `$workflows.<id>.inputs.x` with `rule`
    workflow-reference): report it when the schema cannot supply it."""
    label = f"{text}: workflow '{workflow.workflow_id}'"
    shape = inputs_shape(ck, workflow)
    if shape is None:
        # Without any inputs schema nothing is validated, but nothing is contradicted either: a warning.
        ck.report(rule, at, f"{label} declares no inputs schema", severity=WARNING)
        return
    if shape.other_type is not None:
        message = f"{label} has an inputs schema of type {shape.other_type}, which has no input '{name}'"
        ck.report(rule, at, message)
        return
    if shape.names is None or shape.by_rule or declared(name, shape.names):
        return
    listed = ", ".join(sorted(shape.names)) or "none"
    hint = did_you_mean(name, shape.names)
    if shape.closed:
        message = f"{label} declares no input '{name}' and accepts no other (inputs: {listed}){hint}"
        ck.report(rule, at, message, blocks=True)  # it can never be given: the run could only fail
    else:
        message = f"{label} declares no input '{name}' (inputs: {listed}){hint}"
        ck.report(rule, at, message, severity=WARNING)


RULES = (inputs_schema,)
