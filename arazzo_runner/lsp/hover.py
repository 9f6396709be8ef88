"""Hover: the operation an `operationId` names (method, path, summary, parameters), the schema a
`$response.body#/...` pointer names (resolved in the step's operation's responses), an input's schema;
after it, the value the expression had in the last run when a report sits beside the document
(`lastrun.py`)."""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types

from . import model
from .schemas import body_schemas, describe, schema_at
from .targets import target_at

MAX_SCHEMA = 2000  # characters of a schema shown: a hover is a glance, not the description


def hover(analysis: Any, offset: int) -> types.Hover | None:
    target = target_at(analysis, offset)
    if target is None:
        return None
    text = None
    if target.kind == "operation":
        operation = model.step_operation(analysis, target.workflow, target.step)
        text = operation_text(operation) if operation is not None else None
    elif target.kind == "body":
        text = _body_text(analysis, target)
    elif target.kind == "input" and target.workflow is not None:
        workflow = model.workflows(analysis.data)[target.workflow]
        schema = (model.inputs_schema(analysis.data, workflow).get("properties") or {}).get(target.name)
        if schema is not None:
            text = f"**input `{target.name}`**: {describe(schema)}\n\n{_json(schema)}"
    if text is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(types.MarkupKind.Markdown, text),
        range=analysis.lines.range(target.start, target.end),
    )


def with_last_run(found: types.Hover | None, run: Any, analysis: Any) -> types.Hover | None:
    """The hover with the last run's value (`lastrun.py`) after it, or that value alone."""
    if run is None:
        return found
    text, start, end = run
    if found is None:
        content = types.MarkupContent(types.MarkupKind.Markdown, text)
        return types.Hover(contents=content, range=analysis.lines.range(start, end))
    assert isinstance(found.contents, types.MarkupContent)
    joined = f"{found.contents.value}\n\n---\n\n{text}"
    found.contents = types.MarkupContent(types.MarkupKind.Markdown, joined)
    return found


def operation_text(operation: Any) -> str:
    lines = [f"**{operation.method.upper()} {operation.path}**"]
    if operation.operation_id:
        lines[0] += f" `{operation.operation_id}`"
    if operation.summary:
        lines.append(operation.summary)
    try:
        parameters = list(operation.parameters)
    except Exception:  # a broken `$ref`: the diagnostics say so
        parameters = []
    if parameters:
        rows = ["| parameter | in | required | type |", "|---|---|---|---|"]
        for spec in parameters:
            required = "yes" if spec.required else "no"
            rows.append(f"| `{spec.name}` | {spec.in_} | {required} | {describe(spec.schema)} |")
        lines.append("\n".join(rows))
    return "\n\n".join(lines)


def _body_text(analysis: Any, target: Any) -> str | None:
    operation = model.step_operation(analysis, target.workflow, target.step)
    if operation is None:
        return None
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in target.pointer.split("/")[1:]]
    for schema in body_schemas(operation):
        found = schema_at(schema, [t for t in tokens if t != ""], operation)
        if found is not None:
            title = f"**`$response.body#{target.pointer}`**: {describe(found)}"
            return f"{title} ({operation.method.upper()} {operation.path})\n\n{_json(found)}"
    where = f"{operation.method.upper()} {operation.path}"
    return f"`$response.body#{target.pointer}`: not in the response schemas of {where}"


def _json(schema: Any) -> str:
    text = json.dumps(schema, indent=2, default=str)
    if len(text) > MAX_SCHEMA:
        text = text[:MAX_SCHEMA] + "\n..."
    return f"```json\n{text}\n```"
