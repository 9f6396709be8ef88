"""JSON Schemas of an operation's responses, walked along a JSON pointer: what `$response.body#/...`
can name (completion) and the schema it names (hover). Lenient: `allOf`/`anyOf`/`oneOf` members are
read together, a `$ref` left in place (a cycle) is followed in the operation's own document."""

from __future__ import annotations

from typing import Any

from ..validate.openapi_schemas import local_deref, response_schemas

_MAX_DEPTH = 32


def body_schemas(operation: Any) -> list[Any]:
    """The response schemas of `operation`, the success ones (2xx) first."""
    try:
        responses = operation.responses
    except Exception:  # a broken `$ref` in the description: the diagnostics say so
        return []
    ordered = sorted(responses, key=lambda status: (not str(status).startswith("2"), str(status)))
    return list(response_schemas({status: responses[status] for status in ordered}))


def schema_at(schema: Any, tokens: list[str], operation: Any) -> Any:
    """The schema of the value at `tokens` inside an instance of `schema`, or None."""
    deref = local_deref(operation.document)
    for token in tokens:
        schema = _child(_resolved(schema, deref), token, deref)
        if schema is None:
            return None
    return _resolved(schema, deref)


def members(schema: Any, operation: Any) -> dict[str, Any]:
    """The named members (object properties) an instance of `schema` can have: name -> schema."""
    deref = local_deref(operation.document)
    found: dict[str, Any] = {}
    for part in _parts(_resolved(schema, deref), deref):
        properties = part.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                found.setdefault(name, sub)
    return found


def describe(schema: Any) -> str:
    """A schema's type in a few words: `string`, `array of object`, `integer (int64)`."""
    if not isinstance(schema, dict):
        return "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {describe(schema['items'])}"
    text = str(kind) if kind else ("object" if "properties" in schema else "any")
    return f"{text} ({schema['format']})" if isinstance(schema.get("format"), str) else text


def _child(schema: Any, token: str, deref: Any) -> Any:
    for part in _parts(schema, deref):
        properties = part.get("properties")
        if isinstance(properties, dict) and token in properties:
            return properties[token]
        if token.isdigit() and isinstance(part.get("items"), dict):
            return part["items"]
        if isinstance(part.get("additionalProperties"), dict) and not token.isdigit():
            return part["additionalProperties"]
    return None


def _parts(schema: Any, deref: Any, depth: int = 0) -> list[dict[str, Any]]:
    """`schema` and the members of its `allOf`/`anyOf`/`oneOf`, references followed."""
    schema = _resolved(schema, deref)
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return []
    found = [schema]
    for keyword in ("allOf", "anyOf", "oneOf"):
        for member in schema.get(keyword) or []:
            found.extend(_parts(member, deref, depth + 1))
    return found


def _resolved(schema: Any, deref: Any) -> Any:
    for _ in range(_MAX_DEPTH):
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if not isinstance(ref, str):
            return schema
        target = deref(ref)
        if not isinstance(target, (dict, bool)):
            return schema
        schema = target
    return schema
