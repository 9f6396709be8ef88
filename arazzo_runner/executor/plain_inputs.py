"""The inputs check's shortcut for the schema nearly every workflow has: an object of properties that say
only their `type` (`{"type": "object", "required": [...], "properties": {"n": {"type": "integer"}}}`).

`--inputs-file` checks every row against its workflow's schema before anything is sent (`executor/
preflight.py`): with such a schema a row's check is a few dictionary lookups, once the schema has been
read into a `PlainSchema` (once per batch and workflow, `preflight.BatchChecks`; not once per row). The
shortcut only says that a row passes: any schema with another keyword, and any row it does not pass, go
the usual way (`inputs.schema_problems`: `simple_schema`, else jsonschema), which words the problems.
The types are `simple_schema`'s own, so a row the shortcut passes is one the usual way passes too.
"""

from __future__ import annotations

from typing import Any

from ..sources.simple_schema import _ANNOTATIONS, _TYPES
from .inputs import _strings

_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties"})


class PlainSchema:
    """An object schema of typed properties, read once: `passes(value)` for a value it surely admits;
    `filled(value)` and `secrets(value)` as `inputs.apply_defaults` and `inputs.secret_values` give them
    (a property's `default`; the strings of a `format: password` or `writeOnly` one), without walking
    the schema again for each row."""

    __slots__ = ("defaults", "extra", "properties", "required", "secret")

    def __init__(self, required: tuple[str, ...], properties: dict[str, Any], extra: bool) -> None:
        self.required = required
        self.properties = properties  # name -> the type tests of its `type` (None: any value)
        self.extra = extra  # additionalProperties: other names allowed
        self.defaults: tuple[tuple[str, Any], ...] = ()  # (name, default), in the schema's order
        self.secret: tuple[str, ...] = ()  # the properties marked secret

    def filled(self, value: dict[str, Any]) -> dict[str, Any]:
        filled = dict(value)
        for name, default in self.defaults:
            if name not in filled:
                filled[name] = default
        return filled

    def secrets(self, value: dict[str, Any]) -> list[str]:
        if not self.secret:
            return []
        return [s for name in self.secret if name in value for s in _strings(value[name])]

    def passes(self, value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for name in self.required:
            if name not in value:
                return False
        properties = self.properties
        for name, item in value.items():
            if not isinstance(name, str) or name not in properties:
                if not self.extra:
                    return False
                continue
            tests = properties[name]
            if tests is None:
                continue
            for test in tests:  # (a loop, not `any` over a generator: a frame fewer for each property)
                if test(item):
                    break
            else:
                return False
        return True


def plain_schema(schema: Any) -> PlainSchema | None:
    """`schema` read as a `PlainSchema`; None when it says anything else (then the usual way checks)."""
    if not _only(schema, _OBJECT_KEYS) or schema.get("type", "object") != "object" or _secret(schema):
        return None
    required = schema.get("required", [])
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
        return None
    if not isinstance(properties, dict) or not isinstance(extra, bool):
        return None
    tests: dict[str, Any] = {}
    defaults: list[tuple[str, Any]] = []
    secret: list[str] = []
    for name, sub in properties.items():
        if not isinstance(name, str):
            return None
        if sub is True:
            tests[name] = None
            continue
        if not _only(sub, frozenset({"type"})):
            return None
        if "default" in sub:
            defaults.append((name, sub["default"]))
        if _secret(sub):
            secret.append(name)
        declared = sub.get("type")
        names = [declared] if isinstance(declared, str) else declared
        if declared is None:
            tests[name] = None
        elif isinstance(names, list) and names and all(isinstance(n, str) and n in _TYPES for n in names):
            tests[name] = tuple(_TYPES[n] for n in names)
        else:
            return None
    plain = PlainSchema(tuple(required), tests, extra)
    plain.defaults, plain.secret = tuple(defaults), tuple(secret)
    return plain


def _secret(schema: dict[str, Any]) -> bool:
    """What `inputs.secret_values` reads as secret."""
    return schema.get("format") == "password" or schema.get("writeOnly") is True


def _only(schema: Any, assertions: frozenset[str]) -> bool:
    """Whether `schema` is a mapping whose keywords are `assertions`, annotations and `x-` extensions."""
    if not isinstance(schema, dict):
        return False
    for key in schema:
        if not isinstance(key, str):
            return False
        if key not in assertions and key not in _ANNOTATIONS and not key.startswith("x-"):
            return False
    return True
