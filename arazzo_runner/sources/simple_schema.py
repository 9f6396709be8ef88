"""A fast path for validating workflow inputs against the common subset of JSON Schema.

Why not always jsonschema: importing it costs 25-45 ms, paid by every `arazzo run` of a workflow with
an inputs schema, and building a validator per run costs more than the check itself. Inputs schemas are
almost always plain objects of typed properties, so those are checked here; any schema using a keyword
outside the subset (`oneOf`, `if`, `$defs`, `patternProperties`, a remote `$ref`, ...) returns None and
the caller uses jsonschema. A differential test holds the two to the same verdicts.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ExpressionError
from ..loader.pointer import ABSENT, parse_pointer, resolve_pointer
from ..masking.secrets import clip
from ..spelling import json_spelling

_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "format", "deprecated", "readOnly", "writeOnly",
     "$comment", "$schema", "$id", "contentMediaType", "contentEncoding"}
)  # fmt: skip
_ASSERTIONS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum",
     "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems",
     "maxItems", "uniqueItems", "minProperties", "maxProperties", "$ref", "multipleOf"}
)  # fmt: skip
_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


class Unsupported(Exception):
    """The schema uses something outside the subset: let jsonschema decide."""


class Stopped(Exception):
    """A pattern ran out of the check's time (its problem is the last one): the check ends there."""


def subset_problems(schema: Any, value: Any, document: dict) -> list[str] | None:
    """Problems as `path: message` lines (like the jsonschema path), or None when unsupported. A
    pattern that runs out of the check's time ends the check with a problem that says so."""
    problems: list[str] = []
    try:
        _check(schema, value, document, "", problems, 0)
    except Unsupported:
        return None
    except Stopped:
        problems[-1] += "; the rest of the inputs was not validated"
    return problems


def _check(schema: Any, value: Any, document: dict, where: str, out: list[str], depth: int) -> None:
    if depth > 32 or not isinstance(schema, (dict, bool)):
        raise Unsupported
    if schema is True or schema == {}:
        return
    if schema is False:
        out.append(f"{where or 'inputs'}: {_show(value)} is not allowed here")
        return
    for key in schema:
        if key not in _ASSERTIONS and key not in _ANNOTATIONS and not key.startswith("x-"):
            raise Unsupported
    if "$ref" in schema:
        if len(schema) > 1 and any(k in _ASSERTIONS for k in schema if k != "$ref"):
            raise Unsupported  # sibling assertions next to a $ref: leave to jsonschema
        _check(_target(schema["$ref"], document), value, document, where, out, depth + 1)
        return
    if not _type_ok(schema, value, where, out):
        return
    _values(schema, value, where, out)
    if isinstance(value, dict):
        _object(schema, value, document, where, out, depth)
    elif isinstance(value, list):
        _array(schema, value, document, where, out, depth)
    elif isinstance(value, str):
        _string(schema, value, where, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _number(schema, value, where, out)


def _target(ref: Any, document: dict) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise Unsupported
    try:
        found = resolve_pointer(document, parse_pointer(ref))
    except ExpressionError:
        raise Unsupported from None  # not a valid pointer: jsonschema explains it
    if found is ABSENT:
        raise Unsupported  # jsonschema explains an unresolvable $ref
    return found


def _type_ok(schema: dict, value: Any, where: str, out: list[str]) -> bool:
    declared = schema.get("type")
    if declared is None:
        return True
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list) or any(n not in _TYPES for n in names):
        raise Unsupported
    if any(_TYPES[n](value) for n in names):
        return True
    wanted = ", ".join(json_spelling(name) for name in names)  # as jsonschema lists them
    out.append(f"{where or 'inputs'}: {_show(value)} is not of type {wanted}")
    return False


def _values(schema: dict, value: Any, where: str, out: list[str]) -> None:
    if "enum" in schema:
        if not isinstance(schema["enum"], list):
            raise Unsupported
        if not any(json_equal(value, option) for option in schema["enum"]):
            out.append(f"{where or 'inputs'}: {_show(value)} is not one of {_show(schema['enum'])}")
    if "const" in schema and not json_equal(value, schema["const"]):
        out.append(f"{where or 'inputs'}: {_show(schema['const'])} was expected")


def _object(schema: dict, value: dict, document: dict, where: str, out: list[str], depth: int) -> None:
    required = schema.get("required", [])
    properties = schema.get("properties", {})
    if not isinstance(required, list) or not isinstance(properties, dict):
        raise Unsupported
    for name in required:
        if name not in value:
            out.append(f"{where or 'inputs'}: {json_spelling(name)} is required but was not provided")
    extra = schema.get("additionalProperties", True)
    unexpected = []
    for name, item in value.items():
        path = f"{where}/{name}" if where else str(name)
        if name in properties:
            _check(properties[name], item, document, path, out, depth + 1)
        elif extra is False:
            unexpected.append(name)
        elif extra is not True:
            _check(extra, item, document, path, out, depth + 1)
    if unexpected:
        names = ", ".join(json_spelling(n) for n in unexpected)
        verb = "was" if len(unexpected) == 1 else "were"
        out.append(f"{where or 'inputs'}: Additional properties are not allowed ({names} {verb} unexpected)")
    _bounds(value, schema, "minProperties", "maxProperties", where, out)


def _array(schema: dict, value: list, document: dict, where: str, out: list[str], depth: int) -> None:
    items = schema.get("items", True)
    for index, item in enumerate(value):
        _check(items, item, document, f"{where}/{index}" if where else str(index), out, depth + 1)
    _bounds(value, schema, "minItems", "maxItems", where, out)
    if schema.get("uniqueItems") is True:
        seen: list[Any] = []
        for item in value:
            if any(json_equal(item, other) for other in seen):
                out.append(f"{where or 'inputs'}: {_show(value)} has non-unique elements")
                break
            seen.append(item)


def _string(schema: dict, value: str, where: str, out: list[str]) -> None:
    _bounds(value, schema, "minLength", "maxLength", where, out)
    pattern = schema.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            raise Unsupported
        from .schema_patterns import PatternStopped, matches

        try:
            matched = matches(pattern, value)  # within the check's time, as jsonschema's would be
        except (re.error, RecursionError, OverflowError):
            raise Unsupported from None
        except PatternStopped as exc:
            out.append(f"{where or 'inputs'}: {exc}")
            raise Stopped from None
        if not matched:
            out.append(f"{where or 'inputs'}: {_show(value)} does not match {json_spelling(pattern)}")


def _number(schema: dict, value: float, where: str, out: list[str]) -> None:
    checks = (
        ("minimum", lambda b: value >= b, "less than the minimum of"),
        ("maximum", lambda b: value <= b, "greater than the maximum of"),
        ("exclusiveMinimum", lambda b: value > b, "less than or equal to the minimum of"),
        ("exclusiveMaximum", lambda b: value < b, "greater than or equal to the maximum of"),
    )
    for key, holds, text in checks:
        bound = schema.get(key)
        if bound is None:
            continue
        if isinstance(bound, bool) or not isinstance(bound, (int, float)):
            raise Unsupported
        if not holds(bound):
            out.append(f"{where or 'inputs'}: {value!r} is {text} {bound!r}")
    if "multipleOf" in schema:
        raise Unsupported  # float arithmetic subtleties: jsonschema's rules


def _bounds(value: Any, schema: dict, low: str, high: str, where: str, out: list[str]) -> None:
    """minLength/maxLength, minItems/maxItems, minProperties/maxProperties (jsonschema's wording)."""
    size = len(value)
    for key, word in ((low, "short"), (high, "long")):
        bound = schema.get(key)
        if bound is None:
            continue
        if isinstance(bound, bool) or not isinstance(bound, int):
            raise Unsupported
        if (size < bound) if key == low else (size > bound):
            out.append(f"{where or 'inputs'}: {_show(value)} is too {word}")


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality (enum, const, uniqueItems): booleans are not numbers; 1 == 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if type(a) in (int, float) and type(b) in (int, float):
        return a == b
    return type(a) is type(b) and a == b


def _show(value: Any) -> str:
    """A value in JSON (`null`, `"text"`, as `spelling.schema_message` has jsonschema write it), cut by
    the one rule (`clip`): masking the message afterwards still hides a secret the cut split."""
    return clip(json_spelling(value), 60)
