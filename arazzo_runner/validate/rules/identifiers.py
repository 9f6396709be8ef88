"""Uniqueness of ids and names, and references to sources and components inside the document."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ...errors import ExpressionError
from ...expressions import ComponentRef, parse_expression
from ...loader.pointer import ABSENT, format_pointer, parse_pointer, resolve_pointer
from ...model import Action, ParameterDef, Pointer, Reusable, Workflow
from ..checker import Checker, did_you_mean
from ..findings import WARNING
from .targets import source_prefix


def _duplicates(items: Iterable[tuple[Any, Pointer]]) -> Iterator[tuple[Any, Pointer, Pointer]]:
    """(value, pointer of the repeat, pointer of the first) for every repeated value."""
    first: dict[Any, Pointer] = {}
    for value, at in items:
        if value in first:
            yield value, at, first[value]
        else:
            first[value] = at


def _line_of(ck: Checker, at: Pointer) -> int:
    return ck.loaded.positions.locate(at)[0]


def workflow_id_unique(ck: Checker) -> None:
    items = [(w.workflow_id, (*w.at, "workflowId")) for w in ck.document.workflows if w.workflow_id]
    for value, at, first in _duplicates(items):
        ck.report(
            "workflow-id-unique", at, f"workflowId '{value}' is already used (line {_line_of(ck, first)})"
        )


def step_id_unique(ck: Checker) -> None:
    """A stepId used twice in a workflow. A run stops only where the id is read (`$steps.<id>`, a goto or
    retry `stepId`, a step's `dependsOn`, `$workflows.<w>.steps.<id>`): which step that means is not
    known. Nothing reading it, the steps simply run in order."""
    for workflow in ck.document.workflows:
        items = [(s.step_id, (*s.at, "stepId")) for s in workflow.steps if s.step_id]
        for value, at, first in _duplicates(items):
            line = _line_of(ck, first)
            message = f"stepId '{value}' is already used in workflow '{workflow.workflow_id}' (line {line})"
            ck.report("step-id-unique", at, message, blocks=_step_id_read(ck, workflow, value))


def _step_id_read(ck: Checker, workflow: Workflow, step_id: str) -> bool:
    import json

    text = json.dumps(ck.document.raw, default=str)
    if f"$steps.{step_id}" in text or f".steps.{step_id}" in text:
        return True
    for step in workflow.steps:
        if step_id in step.depends_on:
            return True
        for action in (*step.on_success, *step.on_failure):
            if getattr(action, "step_id", None) == step_id:
                return True
    return any(
        getattr(a, "step_id", None) == step_id for a in (*workflow.success_actions, *workflow.failure_actions)
    )


_PLAIN_ID = re.compile(r"[A-Za-z0-9_\-]+")


def id_pattern(ck: Checker) -> None:
    r"""workflowIds and stepIds SHOULD match `[A-Za-z0-9_\-]+`. Arazzo 1.0's expression grammar reads any
    character in `$steps.<id>`, and a run reads such ids as the document declares them; 1.1's grammar
    has only these characters, so there an expression cannot name the id as the specification writes it."""
    grammar = (
        "; Arazzo 1.1's runtime expressions read only these characters (identifier-strict)"
        if ck.is_1_1
        else "; a run reads it in expressions as declared"
    )
    for workflow in ck.document.workflows:
        items = [("workflowId", workflow.workflow_id, (*workflow.at, "workflowId"))]
        items += [("stepId", s.step_id, (*s.at, "stepId")) for s in workflow.steps]
        for field, value, at in items:
            if value and not _PLAIN_ID.fullmatch(value):
                suggestion = re.sub(r"[^A-Za-z0-9_\-]", "_", value)
                message = f"{field} '{value}' should match [A-Za-z0-9_\\-]+ (e.g. '{suggestion}'){grammar}"
                ck.report("id-pattern", at, message)


def source_name_unique(ck: Checker) -> None:
    items = [(s.name, (*s.at, "name")) for s in ck.document.sources if s.name]
    for value, at, first in _duplicates(items):
        ck.report(
            "source-name-unique", at, f"source name '{value}' is already used (line {_line_of(ck, first)})"
        )


def action_name_unique(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        lists = [
            (workflow.success_actions, "success", "successActions"),
            (workflow.failure_actions, "failure", "failureActions"),
        ]
        for step in workflow.steps:
            lists += [(step.on_success, "success", "onSuccess"), (step.on_failure, "failure", "onFailure")]
        for items, kind, field in lists:
            named = [(a.name, at) for a, at in ck.actions(items, kind) if a.name]
            for value, at, first in _duplicates(named):
                message = (
                    f"action name '{value}' appears twice in this {field} list (line {_line_of(ck, first)})"
                )
                ck.report("action-name-unique", at, message)


def parameter_unique(ck: Checker) -> None:
    """A name+in pair given twice is an error. Names are case-sensitive (the specification says so), so
    `Content-Type` and `content-type` are two parameters; in a header they are one field to HTTP: a
    warning (a run sends the last one, as Respect does)."""
    for params in _parameter_lists(ck.document.workflows):
        listed = ck.parameters(params)
        keyed = [((p.name, p.in_), at) for p, at in listed]
        exact = set()
        for (name, location), at, first in _duplicates(keyed):
            exact.add(format_pointer(at))
            where = f" in {location}" if location else ""
            message = f"parameter '{name}'{where} is given twice (line {_line_of(ck, first)})"
            ck.report("parameter-unique", at, message)
        headers = [(p.name.lower(), at) for p, at in listed if p.in_ == "header"]
        for _name, at, first in _duplicates(headers):
            if format_pointer(at) in exact:
                continue
            message = (
                f"header parameters '{_name_at(ck, first)}' and '{_name_at(ck, at)}' differ only in case: "
                f"HTTP reads them as one header, so a run sends the last one's value "
                f"(line {_line_of(ck, first)})"
            )
            ck.report("parameter-unique", at, message, severity=WARNING)


def _parameter_lists(workflows: list[Workflow]) -> Iterator[list[ParameterDef | Reusable]]:
    for workflow in workflows:
        yield workflow.parameters
        for step in workflow.steps:
            yield step.parameters
            for action in (*step.on_success, *step.on_failure):
                if isinstance(action, Action):
                    yield action.parameters
        for action in (*workflow.success_actions, *workflow.failure_actions):
            if isinstance(action, Action):
                yield action.parameters


def _name_at(ck: Checker, at: Pointer) -> str:
    item = ck.raw(at)
    name = item.get("name") if isinstance(item, dict) else None
    return name if isinstance(name, str) else "?"


def source_reference(ck: Checker) -> None:
    """`$sourceDescriptions.<name>` in step targets and dependsOn names a declared source."""
    names = [s.name for s in ck.document.sources]
    for workflow in ck.document.workflows:
        for index, entry in enumerate(workflow.depends_on):
            _check_source(ck, entry, (*workflow.at, "dependsOn", index), names)
        for step in workflow.steps:
            for field, value in (
                ("operationId", step.operation_id),
                ("operationPath", step.operation_path),
                ("workflowId", step.workflow_id),
            ):
                if value is not None:
                    _check_source(ck, value, (*step.at, field), names)
            for index, entry in enumerate(step.depends_on):
                _check_source(ck, entry, (*step.at, "dependsOn", index), names)
            for action, at in ck.actions(step.on_success, "success") + ck.actions(step.on_failure, "failure"):
                if action.workflow_id:
                    _check_source(ck, action.workflow_id, (*at, "workflowId"), names)
        for action, at in ck.workflow_actions(workflow):
            if action.workflow_id:
                _check_source(ck, action.workflow_id, (*at, "workflowId"), names)


def _check_source(ck: Checker, text: str, at: Pointer, names: list[str]) -> None:
    name = source_prefix(text)
    if name is not None and name not in names:
        hint = did_you_mean(name, names)
        ck.report("source-reference", at, f"no source description named '{name}'{hint}")


def component_reference(ck: Checker) -> None:
    """Reusable Objects name existing components of the right kind; `$ref`s in inputs resolve."""
    for reusable, kind in _reusables(ck):
        _check_reusable(ck, reusable, kind)
    _json_refs(ck)
    raw = ck.document.raw
    for workflow in ck.document.workflows:
        if workflow.inputs is not None:
            _check_refs(ck, workflow.inputs, (*workflow.at, "inputs"), raw)
    for name, schema in ck.document.components.inputs.items():
        _check_refs(ck, schema, ("components", "inputs", name), raw)


def _reusables(ck: Checker) -> Iterator[tuple[Reusable, str]]:
    document = ck.document
    action_holders: list[tuple[list[Any], str]] = []
    for workflow in document.workflows:
        action_holders += [
            (workflow.success_actions, "successActions"),
            (workflow.failure_actions, "failureActions"),
        ]
        for step in workflow.steps:
            action_holders += [(step.on_success, "successActions"), (step.on_failure, "failureActions")]
    for params in _parameter_lists(document.workflows):
        for item in params:
            if isinstance(item, Reusable):
                yield item, "parameters"
    for items, kind in action_holders:
        for item in items:
            if isinstance(item, Reusable):
                yield item, kind


_LISTS = {
    "parameters": "parameters",
    "onSuccess": "successActions",
    "onFailure": "failureActions",
    "successActions": "successActions",
    "failureActions": "failureActions",
}


def _json_refs(ck: Checker) -> None:
    """`$ref` items in parameter and action lists: Arazzo references components with `reference`."""
    holders = []
    for workflow in ck.document.workflows:
        holders.append(workflow.at)
        holders.extend(step.at for step in workflow.steps)
    raw = ck.document.raw
    for at in holders:
        node = resolve_pointer(raw, [str(t) for t in at])
        if not isinstance(node, dict):
            continue
        for field, kind in _LISTS.items():
            items = node.get(field)
            if not isinstance(items, list) or (field in ("successActions", "failureActions") and len(at) > 2):
                continue
            for index, item in enumerate(items):
                if isinstance(item, dict) and isinstance(item.get("$ref"), str) and "reference" not in item:
                    ref = item["$ref"]
                    prefix = f"#/components/{kind}/"
                    fix = (
                        f"$components.{kind}.{ref[len(prefix) :]}"
                        if ref.startswith(prefix)
                        else f"$components.{kind}.<name>"
                    )
                    message = f"'$ref: {ref}' is not an Arazzo component reference: write 'reference: {fix}'"
                    ck.report("component-reference", (*at, field, index, "$ref"), message, key=True)


def _check_reusable(ck: Checker, reusable: Reusable, kind: str) -> None:
    at = (*reusable.at, "reference")
    text = reusable.reference
    if not text:
        ck.report("component-reference", at, f"'reference' is empty; expected $components.{kind}.<name>")
        return
    try:
        expression = parse_expression(text)
    except ExpressionError as exc:
        ck.report("component-reference", at, f"'{text}' is not a component reference: {exc.message}")
        return
    if not isinstance(expression, ComponentRef):
        ck.report("component-reference", at, f"'{text}' must be $components.{kind}.<name>")
        return
    if expression.kind != kind:
        message = f"'{text}' names a {expression.kind} component where {kind} are expected"
        ck.report("component-reference", at, message)
        return
    known = ck.document.components.by_kind(kind)
    if expression.name not in known:
        hint = did_you_mean(expression.name, known)
        ck.report("component-reference", at, f"there is no components.{kind}.{expression.name}{hint}")
        return
    if reusable.has_value and kind != "parameters":
        ck.report(
            "component-reference", (*reusable.at, "value"), "'value' only applies to parameter references"
        )


def _check_refs(ck: Checker, schema: Any, at: Pointer, raw: dict) -> None:
    """`$ref`s in an inputs JSON Schema resolve inside the document (`#/components/inputs/x`, or an anchor
    `#x`); one naming another document is refused: inputs validation never fetches."""
    if isinstance(schema, dict):
        for keyword in ("$ref", "$dynamicRef"):
            ref = schema.get(keyword)
            if isinstance(ref, str):
                _check_ref(ck, keyword, ref, (*at, keyword), raw)
        for key, value in schema.items():
            if key not in ("enum", "const", "default", "examples", "example"):
                _check_refs(ck, value, (*at, key), raw)
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            _check_refs(ck, value, (*at, index), raw)


def _check_ref(ck: Checker, keyword: str, ref: str, at: Pointer, raw: dict) -> None:
    if not ref.startswith("#"):
        message = (
            f"'{keyword}: {ref}' names another document: an inputs schema resolves only inside its Arazzo "
            "document (schema validators never fetch)"
        )
        ck.report("component-reference", at, message)
        return
    fragment = ref[1:]
    if fragment and not fragment.startswith("/"):
        from ...sources.schema_registry import anchors_of

        if fragment not in anchors_of(raw):
            message = f"'{keyword}: {ref}': no schema of this document has that anchor"
            ck.report("component-reference", at, message)
        return
    try:
        target = resolve_pointer(raw, parse_pointer(ref))
    except ExpressionError:
        target = ABSENT
    if target is ABSENT:
        ck.report("component-reference", at, f"'{keyword}: {ref}' does not resolve in this document")


RULES = (
    workflow_id_unique,
    step_id_unique,
    id_pattern,
    source_name_unique,
    action_name_unique,
    parameter_unique,
    source_reference,
    component_reference,
)
