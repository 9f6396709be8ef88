"""Completion: what can be written where the cursor is.

- `operationId`: the operations of the OpenAPI sources (method, path and summary shown); `operationPath`:
  `{$sourceDescriptions.<name>.url}#/paths/...` of each;
- `stepId` (in an action), `dependsOn` items, `workflowId`: the steps of the workflow, the workflows;
- runtime expressions after `$`: `$inputs.<name>`, `$steps.<id>.outputs.<name>`, `$workflows.<id>...`,
  `$sourceDescriptions.<name>...`, `$components...`, and after `$response.body#/` the members of the
  step's operation's response schema at the pointer typed so far;
- a step parameter's `name` (with its `in`) and `in`, from the step's operation;
- the field names of the Arazzo object the cursor is in.
"""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from . import model
from .context import Cursor, cursor_at
from .fields import fields_for
from .schemas import body_schemas, describe, members, schema_at

Kind = types.CompletionItemKind
_EXPRESSION = re.compile(r"\$[A-Za-z0-9_.\-#/~]*$")
_ACTIONS = frozenset({"onSuccess", "onFailure", "successActions", "failureActions"})
_ROOTS = ("$url", "$method", "$statusCode", "$request.", "$response.", "$inputs.", "$outputs.", "$steps.",
          "$workflows.", "$sourceDescriptions.", "$components.", "$self")  # fmt: skip


def complete(doc: Any, position: types.Position) -> list[types.CompletionItem]:
    analysis = doc.usable()
    lines = doc.text.split("\n")
    column = _characters(lines[position.line] if position.line < len(lines) else "", position.character)
    cursor = cursor_at(lines, position.line, column)
    if analysis is None:
        return _fields(cursor) if cursor.typing_key else []
    where = model.enclosing_at_line(analysis, position.line + 1)
    expression = _EXPRESSION.search(cursor.typed) if not cursor.typing_key else None
    if expression:
        return _expression(analysis, where, cursor, expression.group(0))
    if cursor.typing_key:
        return _fields(cursor)
    key = cursor.key or (cursor.ancestors[-1] if cursor.item and cursor.ancestors else None)
    workflow = _workflow(analysis, where)
    if key == "operationId":
        return [
            _operation(cursor, source, op, len(_sources(analysis)) > 1)
            for source, op in model.operations(analysis)
            if op.operation_id
        ]
    if key == "operationPath":
        return [_operation_path(cursor, source, op) for source, op in model.operations(analysis)]
    if key == "stepId" and _ACTIONS & set(cursor.ancestors):
        return [_word(cursor, step_id, Kind.Reference, "step") for step_id in model.step_ids(workflow)]
    if key == "dependsOn":
        if "steps" in cursor.ancestors:
            return [_word(cursor, s, Kind.Reference, "step") for s in model.step_ids(workflow)]
        return [_word(cursor, w, Kind.Reference, "workflow") for w in _workflow_ids(analysis)]
    if key == "workflowId" and ("steps" in cursor.ancestors or _ACTIONS & set(cursor.ancestors)):
        return [_word(cursor, w, Kind.Reference, "workflow") for w in _workflow_ids(analysis)]
    if key in ("name", "in") and cursor.ancestors[-1:] == ("parameters",) and "steps" in cursor.ancestors:
        return _parameters(analysis, where, cursor, key, lines)
    return []


def _characters(text: str, units: int) -> int:
    """The character offset of `units` UTF-16 code units into `text`."""
    count = 0
    for index, char in enumerate(text):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def _edit(cursor: Cursor, replaced: str, text: str) -> types.TextEdit:
    """Replace the `replaced` characters before the cursor with `text`."""
    start = types.Position(cursor.line, _units_before(cursor, len(replaced)))
    end = types.Position(cursor.line, _units_before(cursor, 0))
    return types.TextEdit(range=types.Range(start, end), new_text=text)


def _units_before(cursor: Cursor, back: int) -> int:
    return cursor.column - back  # BMP text assumed on the cursor's line (surrogates only shift columns)


def _word(cursor: Cursor, label: str, kind: Any, detail: str, replaced: str | None = None,
          documentation: str | None = None) -> types.CompletionItem:  # fmt: skip
    replaced = cursor.typed if replaced is None else replaced
    return types.CompletionItem(
        label=label,
        kind=kind,
        detail=detail,
        documentation=types.MarkupContent(types.MarkupKind.Markdown, documentation)
        if documentation
        else None,
        text_edit=_edit(cursor, replaced, label),
        filter_text=label,
    )


def _workflow(analysis: Any, where: tuple[int | None, int | None]) -> dict[str, Any]:
    found = model.workflows(analysis.data)
    return found[where[0]] if where[0] is not None and where[0] < len(found) else {}


def _workflow_ids(analysis: Any) -> list[str]:
    return [w["workflowId"] for w in model.workflows(analysis.data) if isinstance(w.get("workflowId"), str)]


def _sources(analysis: Any) -> list[str]:
    return model.source_names(analysis.data)


def _operation(cursor: Cursor, source: str, op: Any, qualified: bool) -> types.CompletionItem:
    detail = f"{op.method.upper()} {op.path}"
    item = _word(cursor, op.operation_id, Kind.Function, detail, documentation=_op_doc(source, op))
    if qualified:  # several sources: the id alone may be ambiguous, the label says whose it is
        item.label_details = types.CompletionItemLabelDetails(description=source)
    return item


def _op_doc(source: str, op: Any) -> str:
    lines = [f"**{op.method.upper()} {op.path}** (source `{source}`)"]
    if op.summary:
        lines.append(op.summary)
    return "\n\n".join(lines)


def _operation_path(cursor: Cursor, source: str, op: Any) -> types.CompletionItem:
    text = f"{{$sourceDescriptions.{source}.url}}#{op.pointer}"
    item = _word(
        cursor, text, Kind.Function, f"{op.method.upper()} {op.path}", documentation=_op_doc(source, op)
    )
    item.filter_text = f"{text} {op.operation_id or ''}"
    return item


def _fields(cursor: Cursor) -> list[types.CompletionItem]:
    found = []
    for name, description in fields_for(cursor.ancestors):
        item = _word(cursor, name, Kind.Field, description)
        item.text_edit.new_text = f"{name}: "
        found.append(item)
    return found


def _parameters(
    analysis: Any, where: Any, cursor: Cursor, key: str, lines: list[str]
) -> list[types.CompletionItem]:
    operation = model.step_operation(analysis, *where)
    if operation is None:
        return []
    try:
        specs = list(operation.parameters)
    except Exception:
        return []
    if key == "name":
        items = []
        for spec in specs:
            item = _word(
                cursor, spec.name, Kind.Property, f"in: {spec.in_}" + (" (required)" if spec.required else "")
            )
            items.append(item)
        return items
    sibling = _sibling_name(lines, cursor.line)
    locations = sorted({spec.in_ for spec in specs}, key=lambda loc: loc != _location_of(specs, sibling))
    return [
        _word(cursor, loc, Kind.EnumMember, f"parameters of {operation.operation_id or operation.path}")
        for loc in locations
    ]


def _location_of(specs: list[Any], name: str | None) -> str | None:
    for spec in specs:
        if spec.name == name:
            return spec.in_
    return None


def _sibling_name(lines: list[str], line: int) -> str | None:
    """The `name:` of the parameter item holding `line`."""
    for index in range(line, max(line - 6, -1), -1):
        match = re.match(r"^\s*(-\s+)?name:\s*[\"']?([^\"'#]+?)[\"']?\s*$", lines[index])
        if match:
            return match.group(2)
        if index < line and lines[index].lstrip().startswith("-"):
            break
    return None


def _expression(analysis: Any, where: Any, cursor: Cursor, typed: str) -> list[types.CompletionItem]:
    """Completion inside a runtime expression: the segment after its last `.` (or `/` in a pointer)."""
    data = analysis.data
    workflow = _workflow(analysis, where)
    if "#/" in typed:
        return _pointer(analysis, where, cursor, typed)
    head, _, segment = typed.rpartition(".")
    if not head:
        return [_word(cursor, root, Kind.Keyword, "runtime expression", replaced=typed) for root in _ROOTS]
    parts = head.split(".")
    names: list[tuple[str, str]] = []
    if parts == ["$inputs"]:
        properties = model.inputs_schema(data, workflow).get("properties") or {}
        names = [(name, f"input: {describe(schema)}") for name, schema in properties.items()]
    elif parts == ["$steps"]:
        names = [(step_id, "step") for step_id in model.step_ids(workflow)]
    elif len(parts) == 2 and parts[0] in ("$steps", "$workflows"):
        names = (
            [("outputs", "outputs")]
            if parts[0] == "$steps"
            else [("outputs", "outputs"), ("inputs", "inputs")]
        )
    elif len(parts) == 3 and parts[0] == "$steps" and parts[2] == "outputs":
        index = model.step_by_id(workflow, parts[1])
        step = workflow["steps"][index] if index is not None else {}
        names = [(name, f"output of step {parts[1]}") for name in (step.get("outputs") or {})]
    elif parts == ["$workflows"]:
        names = [(w, "workflow") for w in _workflow_ids(analysis)]
    elif len(parts) == 3 and parts[0] == "$workflows":
        index = model.workflow_by_id(data, parts[1])
        target = model.workflows(data)[index] if index is not None else {}
        if parts[2] == "outputs":
            names = [(name, f"output of workflow {parts[1]}") for name in (target.get("outputs") or {})]
        elif parts[2] == "inputs":
            names = [(name, "input") for name in (model.inputs_schema(data, target).get("properties") or {})]
    elif parts == ["$sourceDescriptions"]:
        names = [(name, "source description") for name in model.source_names(data)]
    elif len(parts) == 2 and parts[0] == "$sourceDescriptions":
        names = [("url", "the source's URL")]
        operations = [op for source, op in model.operations(analysis) if source == parts[1]]
        names += [(op.operation_id, f"{op.method.upper()} {op.path}") for op in operations if op.operation_id]
    elif parts == ["$components"]:
        names = [
            (name, "components") for name in ("inputs", "parameters", "successActions", "failureActions")
        ]
    elif len(parts) == 2 and parts[0] == "$components":
        group = (data.get("components") or {}).get(parts[1]) or {}
        names = [(name, parts[1]) for name in group] if isinstance(group, dict) else []
    elif parts == ["$response"] or parts == ["$request"]:
        names = [("body", "the body"), ("header", "a header")]
        if parts == ["$request"]:
            names += [("query", "a query parameter"), ("path", "a path parameter")]
    return [_word(cursor, name, Kind.Variable, detail, replaced=segment) for name, detail in names]


def _pointer(analysis: Any, where: Any, cursor: Cursor, typed: str) -> list[types.CompletionItem]:
    """After `$response.body#/`: the members of the response schema at the pointer typed so far."""
    if not typed.startswith("$response.body#/"):
        return []
    operation = model.step_operation(analysis, *where)
    if operation is None:
        return []
    pointer = typed[len("$response.body#/") :]
    *parents, segment = pointer.split("/")
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in parents]
    found: dict[str, Any] = {}
    for schema in body_schemas(operation):
        at = schema_at(schema, tokens, operation)
        if at is not None:
            for name, sub in members(at, operation).items():
                found.setdefault(name, sub)
            item = at.get("items") if isinstance(at, dict) else None
            if isinstance(item, dict):  # an array: its first item
                found.setdefault("0", item)
    items = []
    for name, sub in found.items():
        label = name.replace("~", "~0").replace("/", "~1")
        documentation = sub.get("description") if isinstance(sub, dict) else None
        items.append(
            _word(cursor, label, Kind.Property, describe(sub), replaced=segment, documentation=documentation)
        )
    return items
