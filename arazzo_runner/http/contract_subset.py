"""A body checked against a response schema of the common subset without jsonschema-rs, for the contract
checks (`contract_schema.BodyChecker`): the same mismatches, in the same words and order, as the general
path (jsonschema-rs's verdict, then jsonschema's errors explained by `contract_explain`).

Why: the contract checks are on by default, and importing jsonschema-rs (its extension's own init, ~51 M
instructions) was most of what checking a one-step run's response cost. Response schemas are mostly
objects of typed properties, so those are checked here, keyword by keyword in the order jsonschema
visits them (the schema's own order), each failure made into the error object `contract_explain` reads
and explained by it. `admitted` says, once per schema, whether all of it is in the subset and well-formed
for its draft (so the meta-schema check the general path does first would pass: `type` a known name,
`required` unique strings, Draft 4's boolean `exclusiveMinimum` beside a `minimum`, ...); anything else
(`$ref`, `oneOf`, `pattern`, a `format` a validator asserts, `multipleOf`, ...) goes the general way.
`mismatches` gives None, the general way too, for a value where the validators' own readings could part:
a number past 2**53, an integral float where Draft 4 wants an integer, or as many problems as the
general path reports at most (which of them it keeps depends on its own order). The differential test
(tests/unit/test_simple_schema_responses.py) holds both to the same outcome.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..sources.simple_schema import json_equal
from .contract_explain import WRITE_ONLY, Mismatch, explain

_NAMES = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})
_TEXT = frozenset({"title", "description", "format", "$comment"})
_FLAGS = frozenset({"deprecated", "readOnly", "writeOnly", "uniqueItems"})
_ANY = frozenset({"default", "example", "nullable", "externalDocs", "xml"})
_SIZES = frozenset({"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"})
_BOUNDS = frozenset({"minimum", "maximum"})
_EXCLUSIVE = frozenset({"exclusiveMinimum", "exclusiveMaximum"})
# formats neither validator asserts (OpenAPI's own names): any other may fail a string
_IGNORED_FORMATS = frozenset({"int32", "int64", "float", "double", "byte", "binary", "password"})
_LIMIT = 2**53  # numbers both validators read exactly
_MAX_NODES = 20_000  # past this many values, jsonschema-rs (compiled) checks faster than this walk


class _Outside(Exception):
    """A value the subset does not decide: the general path does."""


def admitted(schema: Any, v30: bool) -> bool:
    """Whether `schema` (as `contract_schema.prepare` made it) is all in the subset, well-formed."""
    try:
        _admit(schema, v30, 0)
    except _Outside:
        return False
    return True


def _admit(schema: Any, v30: bool, depth: int) -> None:
    if depth > 64 or not isinstance(schema, dict):
        raise _Outside
    if "not" in schema:  # only the mark of a writeOnly property (`prepare`'s)
        if schema != {"not": {}, WRITE_ONLY: True}:
            raise _Outside
        return
    for key, value in schema.items():
        if str(key).startswith("x-") or key in _ANY:
            continue
        if key in _TEXT:
            ok = isinstance(value, str) and (key != "format" or value in _IGNORED_FORMATS)
        elif key in _FLAGS:
            ok = isinstance(value, bool)
        elif key == "examples":
            ok = v30 or isinstance(value, list)  # an array in 2020-12's meta-schema
        elif key == "type":
            ok = _type_ok(value)
        elif key in _SIZES:
            ok = type(value) is int and value >= 0
        elif key in _BOUNDS:
            ok = _number(value)
        elif key in _EXCLUSIVE:
            # Draft 4: a boolean beside its bound (the meta-schema's dependency); later drafts: a number
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            ok = isinstance(value, bool) and bound in schema if v30 else _number(value)
        elif key in ("enum", "required"):
            ok = _unique_list(value, strings=key == "required", empty=key == "required" and not v30)
        elif key == "const":
            ok = not v30  # Draft 4 has no const: ignored there, and jsonschema-rs may differ
        elif key == "properties":
            ok = isinstance(value, dict)
            for item in value.values() if ok else ():
                _admit(item, v30, depth + 1)
        elif key == "additionalProperties":
            ok = True
            if not isinstance(value, bool):
                _admit(value, v30, depth + 1)
        elif key == "items":
            ok = True
            _admit(value, v30, depth + 1)
        else:
            ok = False
        if not ok:
            raise _Outside


def _type_ok(value: Any) -> bool:
    if isinstance(value, str):
        return value in _NAMES
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, str) and v in _NAMES for v in value)
        and len(set(value)) == len(value)
    )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) <= _LIMIT


def _unique_list(value: Any, *, strings: bool, empty: bool) -> bool:
    from ..sources.json_unique import all_unique as _all_unique

    if not isinstance(value, list) or (not value and not empty):
        return False
    if strings and not all(isinstance(v, str) for v in value):
        return False
    try:
        return _all_unique(value)
    except Exception:
        return False


def mismatches(schema: Any, body: Any, v30: bool, limit: int) -> list[Mismatch] | None:
    """The mismatches of `body` under an admitted `schema`, as the general path gives them (sorted by
    place, at most `limit`), or None: the general path decides (see the module doc)."""
    found: list[Mismatch] = []
    budget = [_MAX_NODES]
    try:
        _check(schema, body, v30, deque(), found, budget)
    except _Outside:
        return None
    if len(found) >= limit:
        return None  # which `limit` of them the general path keeps is its own order's
    if len(found) > 1:
        found.sort(key=lambda m: m.pointer)
    return found


class _Error:
    """What `contract_explain` reads of a jsonschema error."""

    __slots__ = ("absolute_path", "context", "instance", "message", "schema", "validator", "validator_value")

    def __init__(
        self, keyword: str, value: Any, instance: Any, schema: dict, path: deque, message: str | None = None
    ) -> None:
        self.validator, self.validator_value, self.instance = keyword, value, instance
        self.schema, self.absolute_path, self.context, self.message = schema, deque(path), None, message


def _check(schema: dict, value: Any, v30: bool, path: deque, out: list, budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise _Outside
    kind = type(value)  # (the usual values first, by their type: no isinstance for them)
    if kind is dict or kind is list or kind is str or value is None or isinstance(value, (bool, str)):
        pass
    elif isinstance(value, int):
        if abs(value) > _LIMIT:
            raise _Outside
    elif isinstance(value, float):
        if not abs(value) <= _LIMIT:  # (NaN too)
            raise _Outside
    elif not isinstance(value, (dict, list)):
        raise _Outside  # not a JSON value
    if "not" in schema:  # a writeOnly property sent: always a mismatch
        out.extend(explain(_Error("not", schema["not"], value, schema, path)))
        return
    for key, expected in schema.items():
        failed = _keyword(key, expected, schema, value, v30, path, out, budget)
        if failed:
            out.extend(explain(_Error(key, expected, value, schema, path)))


def _keyword(
    key: str, expected: Any, schema: dict, value: Any, v30: bool, path: deque, out: list, budget: list[int]
) -> bool:
    """Whether the keyword `key` fails for `value` (subschemas' failures go to `out` themselves)."""
    if key == "type":
        if isinstance(expected, str):  # (the usual one name: no generator over a list of it)
            return not _is(expected, value, v30)
        return not any(_is(name, value, v30) for name in expected)
    if key == "enum":
        return not any(json_equal(value, option) for option in expected)
    if key == "const":
        return not json_equal(value, expected)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if key in _BOUNDS or key in _EXCLUSIVE:
        if not number or (v30 and key in _EXCLUSIVE):
            return False  # (Draft 4's boolean modifies its bound: read there)
        exclusive = schema.get(f"exclusive{key[0].upper()}{key[1:]}") is True if v30 else False
        low = key in ("minimum", "exclusiveMinimum")
        strict = exclusive or key in _EXCLUSIVE
        if low:
            return value <= expected if strict else value < expected
        return value >= expected if strict else value > expected
    if key in _SIZES:
        kind = {"L": str, "I": list, "P": dict}[key[3]]
        if not isinstance(value, kind):
            return False
        return len(value) < expected if key.startswith("min") else len(value) > expected
    if key == "uniqueItems":
        from ..sources.json_unique import all_unique as _all_unique

        return expected is True and isinstance(value, list) and not _all_unique(value)
    if isinstance(value, dict):
        return _object_keyword(key, expected, schema, value, v30, path, out, budget)
    if key == "items" and isinstance(value, list):
        for index, item in enumerate(value):
            path.append(index)
            _check(expected, item, v30, path, out, budget)
            path.pop()
    return False


def _object_keyword(
    key: str, expected: Any, schema: dict, value: dict, v30: bool, path: deque, out: list, budget: list[int]
) -> bool:
    if key == "required":  # one error each, with jsonschema's message naming it (`contract_explain`)
        for name in expected:
            if name not in value:
                said = f"{name!r} is a required property"
                out.extend(explain(_Error(key, expected, value, schema, path, said)))
        return False
    if key == "properties":
        for name, subschema in expected.items():
            if name in value:
                path.append(name)
                _check(subschema, value[name], v30, path, out, budget)
                path.pop()
    elif key == "additionalProperties":
        known = schema.get("properties", {})
        extras = [name for name in value if name not in known]
        if expected is False:
            return bool(extras)
        if isinstance(expected, dict):
            for name in extras:
                path.append(name)
                _check(expected, value[name], v30, path, out, budget)
                path.pop()
    return False


def _is(name: str, value: Any, v30: bool) -> bool:
    if name == "integer":
        if isinstance(value, float) and value.is_integer():
            if v30:
                raise _Outside  # Draft 4: jsonschema says no, jsonschema-rs may say yes
            return True
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    return value is None
