"""Go to definition, find references, rename, document symbols.

A step is referenced, in its own workflow, by `$steps.<id>` in any string (templates included), by an
action's `stepId` and by a step's `dependsOn`; a step's output by `$steps.<id>.outputs.<name>`; a
workflow, anywhere in the document, by `$workflows.<id>`, a `workflowId` of a step or an action, and a
workflow's `dependsOn`. Rename rewrites the definition and every reference, only the characters of the
name: the rest of each string, its quoting and the file's formatting stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from . import model
from .diagnostics import operation_location
from .targets import Target, target_at

_ID = re.compile(r"^[A-Za-z0-9_\-]+$")
_AFTER = r"(?![A-Za-z0-9_\-])"
_ACTIONS = frozenset({"onSuccess", "onFailure", "successActions", "failureActions"})


def definition(analysis: Any, uri: str, offset: int) -> types.Location | None:
    target = target_at(analysis, offset)
    if target is None:
        return None
    if target.kind == "operation":
        operation = model.step_operation(analysis, target.workflow, target.step)
        return operation_location(operation) if operation is not None else None
    if target.kind == "input":
        span = _input_span(analysis, target)
    else:
        found = [span for span, declaration in occurrences(analysis, target) if declaration]
        span = found[0] if found else None
    return types.Location(uri, analysis.lines.range(*span)) if span else None


def references(analysis: Any, uri: str, offset: int, declaration: bool) -> list[types.Location]:
    target = target_at(analysis, offset)
    if target is None or target.kind not in _RENAMEABLE:
        return []
    return [
        types.Location(uri, analysis.lines.range(*span))
        for span, is_declaration in occurrences(analysis, target)
        if declaration or not is_declaration
    ]


_RENAMEABLE = frozenset({"step", "output", "workflow", "workflow-output"})


def prepare_rename(analysis: Any, offset: int) -> types.Range | None:
    target = target_at(analysis, offset)
    if (
        target is None
        or target.kind not in _RENAMEABLE
        or not any(d for _, d in occurrences(analysis, target))
    ):
        return None
    return analysis.lines.range(target.start, target.end)


def rename(analysis: Any, uri: str, offset: int, new_name: str) -> types.WorkspaceEdit | None:
    """The edits renaming what is under the cursor; ValueError when `new_name` is not an id."""
    target = target_at(analysis, offset)
    if target is None or target.kind not in _RENAMEABLE:
        return None
    if not _ID.match(new_name):
        raise ValueError(f"{new_name!r} is not a valid name: letters, digits, '_' and '-' only")
    edits = [
        types.TextEdit(analysis.lines.range(*span), new_name) for span, _ in occurrences(analysis, target)
    ]
    return types.WorkspaceEdit(changes={uri: edits}) if edits else None


def occurrences(analysis: Any, target: Target) -> list[tuple[tuple[int, int], bool]]:
    """((start, end), is_declaration) of every place naming the target, in document order."""
    spans = analysis.spans
    found: list[tuple[tuple[int, int], bool]] = []
    name = re.escape(target.name)
    if target.kind in ("step", "output"):
        prefix = model.pointer("workflows", target.workflow) + "/"
        if target.kind == "step":
            pattern = re.compile(rf"\$steps\.({name}){_AFTER}")
        else:
            pattern = re.compile(rf"\$steps\.{name}\.outputs\.({re.escape(target.output)}){_AFTER}")
    else:
        prefix = "/"
        if target.kind == "workflow":
            pattern = re.compile(rf"\$workflows\.({name}){_AFTER}")
        else:
            pattern = re.compile(rf"\$workflows\.{name}\.outputs\.({re.escape(target.output)}){_AFTER}")
    for pointer, scalar in spans.values.items():
        if not pointer.startswith(prefix):
            continue
        text = analysis.text[scalar.start : scalar.end]
        for match in pattern.finditer(text):
            found.append(((scalar.start + match.start(1), scalar.start + match.end(1)), False))
        kind = _names(pointer, scalar.value, target)
        if kind is not None:
            found.append((_inner(analysis.text, scalar), kind))
    if target.kind in ("output", "workflow-output"):
        declared = _output_key(analysis, target)
        if declared is not None:
            found.append(((declared.start, declared.end), True))
    return sorted(set(found))


def _names(pointer: str, value: Any, target: Target) -> bool | None:
    """Whether the scalar at `pointer` is the target's id: True as its definition, False as a reference,
    None when it is not."""
    if value != target.name or target.kind not in ("step", "workflow"):
        return None
    parts = model.tokens(pointer)
    if target.kind == "step":
        if len(parts) == 5 and parts[2] == "steps" and parts[4] == "stepId":
            return True
        if parts[-1] == "stepId" and _ACTIONS & set(parts):
            return False
        if len(parts) == 6 and parts[2] == "steps" and parts[4] == "dependsOn":
            return False
        return None
    if len(parts) == 3 and parts[0] == "workflows" and parts[2] == "workflowId":
        return True
    if parts[-1] == "workflowId" and ("steps" in parts or _ACTIONS & set(parts)):
        return False
    if len(parts) == 4 and parts[0] == "workflows" and parts[2] == "dependsOn":
        return False
    return None


def _inner(text: str, scalar: Any) -> tuple[int, int]:
    token = text[scalar.start : scalar.end]
    index = token.find(scalar.value) if scalar.value else -1
    if index < 0:
        return (scalar.start, scalar.end)
    return (scalar.start + index, scalar.start + index + len(scalar.value))


def _output_key(analysis: Any, target: Target) -> Any:
    data = analysis.data
    if target.kind == "output":
        step = (
            model.step_by_id(model.workflows(data)[target.workflow], target.name)
            if target.workflow is not None
            else None
        )
        if step is None:
            return None
        where = model.pointer("workflows", target.workflow, "steps", step, "outputs", target.output)
    else:
        index = model.workflow_by_id(data, target.name)
        if index is None:
            return None
        where = model.pointer("workflows", index, "outputs", target.output)
    return analysis.spans.keys.get(where)


def _input_span(analysis: Any, target: Target) -> tuple[int, int] | None:
    """The input's property in the workflow's inputs schema (in the components when it is a `$ref`)."""
    if target.workflow is None:
        return None
    where = model.pointer("workflows", target.workflow, "inputs")
    inputs = model.workflows(analysis.data)[target.workflow].get("inputs")
    if isinstance(inputs, dict) and isinstance(inputs.get("$ref"), str) and inputs["$ref"].startswith("#/"):
        where = inputs["$ref"][1:]
    key = analysis.spans.keys.get(f"{where}/properties/{target.name}")
    return (key.start, key.end) if key is not None else None


def symbols(analysis: Any) -> list[types.DocumentSymbol]:
    """The workflows, each with its steps."""
    if analysis is None or analysis.loaded is None:
        return []
    extents: dict[tuple[int | None, ...], list[int]] = {}
    for start, end, pointer, _ in analysis.tokens:
        at_workflow, at_step = model.enclosing(pointer)
        for key in ((at_workflow,), (at_workflow, at_step)) if at_step is not None else ((at_workflow,),):
            if key[0] is None:
                continue
            extent = extents.setdefault(key, [start, end])
            extent[0], extent[1] = min(extent[0], start), max(extent[1], end)
    found = []
    for index, workflow in enumerate(model.workflows(analysis.data)):
        children = []
        for number, step in enumerate(workflow.get("steps") or []):
            if isinstance(step, dict) and (index, number) in extents:
                where = model.pointer("workflows", index, "steps", number, "stepId")
                children.append(_symbol(analysis, str(step.get("stepId", "?")), types.SymbolKind.Method,
                                        extents[(index, number)], where, _step_detail(step)))  # fmt: skip
        if (index,) in extents:
            where = model.pointer("workflows", index, "workflowId")
            symbol = _symbol(analysis, str(workflow.get("workflowId", "?")), types.SymbolKind.Function,
                             extents[(index,)], where, workflow.get("summary"))  # fmt: skip
            symbol.children = children
            found.append(symbol)
    return found


def _step_detail(step: dict[str, Any]) -> str | None:
    for key in ("operationId", "operationPath", "workflowId", "channelPath"):
        if isinstance(step.get(key), str):
            return step[key]
    return None


def _symbol(
    analysis: Any, name: str, kind: Any, extent: list[int], where: str, detail: Any
) -> types.DocumentSymbol:
    whole = analysis.lines.range(*extent)
    scalar = analysis.spans.values.get(where)
    selection = analysis.lines.range(scalar.start, scalar.end) if scalar is not None else whole
    return types.DocumentSymbol(name=name, kind=kind, range=whole, selection_range=selection,
                                detail=detail if isinstance(detail, str) else None)  # fmt: skip
