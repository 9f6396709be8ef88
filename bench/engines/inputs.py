"""The inputs every engine gets for a workflow, generated from its `inputs` JSON Schema.

Preference per value: `const`, then the first of `examples`, `example`, `default`, the first `enum`
member; then a placeholder by type and format (strings "test", integers 1, booleans true, e-mail, uuid,
date-time, date, uri forms), bounded by minLength/maxLength and minimum/maximum. Objects get every
declared property (a workflow's optional inputs usually feed a request, and an engine should be seen
sending them); arrays one item. `$ref`s into the Arazzo document (`#/components/inputs/...`) are
followed; composition takes `allOf` merged and the first of `oneOf`/`anyOf`. Deterministic: the same
schema gives the same inputs, so every engine and every rerun sees the same values.
"""

from __future__ import annotations

from typing import Any

_FORMATS = {
    "email": "test@example.com",
    "idn-email": "test@example.com",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00Z",
    "uri": "http://example.com/test",
    "url": "http://example.com/test",
    "uri-reference": "http://example.com/test",
    "iri": "http://example.com/test",
    "hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
}
_DEPTH = 8  # recursive schemas stop here


def _pointer(document: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return None  # another file: not followed, a placeholder stands in
    node = document
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _resolve(schema: Any, document: Any, depth: int = 0) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < _DEPTH:
        target = _pointer(document, schema["$ref"])
        if target is None:
            return {}
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        depth += 1
    return schema


def _type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "string"


def _string(schema: dict[str, Any]) -> str:
    value = _FORMATS.get(str(schema.get("format", "")), "test")
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(low, int) and len(value) < low:
        value += "x" * (low - len(value))
    if isinstance(high, int) and len(value) > high:
        value = value[: max(high, 0)]
    return value


def _number(schema: dict[str, Any], kind: str) -> int | float:
    value: int | float = 1
    low, high = schema.get("minimum"), schema.get("maximum")
    if isinstance(low, (int, float)) and value < low:
        value = low
    if isinstance(schema.get("exclusiveMinimum"), (int, float)) and value <= schema["exclusiveMinimum"]:
        value = schema["exclusiveMinimum"] + 1
    if isinstance(high, (int, float)) and value > high:
        value = high
    return int(value) if kind == "integer" else value


def sample(schema: Any, document: Any, depth: int = 0) -> Any:
    """A value valid for `schema` as far as a placeholder can be; `document` resolves `$ref`s."""
    schema = _resolve(schema, document)
    if not isinstance(schema, dict) or depth > _DEPTH:
        return "test"
    for key in ("const",):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("example", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            part = _resolve(part, document)
            if isinstance(part, dict):
                props = {**merged.get("properties", {}), **part.get("properties", {})}
                merged = {**merged, **part, "properties": props}
        return sample(merged, document, depth + 1)
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            rest = {k: v for k, v in schema.items() if k != key}
            first = _resolve(schema[key][0], document)
            return sample({**rest, **first} if isinstance(first, dict) else first, document, depth + 1)
    kind = _type(schema)
    if kind == "object":
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        return {name: sample(sub, document, depth + 1) for name, sub in props.items()}
    if kind == "array":
        return [sample(schema.get("items", {}), document, depth + 1)]
    if kind in ("integer", "number"):
        return _number(schema, kind)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return _string(schema)


def workflow_inputs(workflow: dict[str, Any], document: dict[str, Any]) -> Any:
    """The inputs of one workflow: `{}` when it declares none."""
    schema = workflow.get("inputs")
    return {} if schema is None else sample(schema, document)
