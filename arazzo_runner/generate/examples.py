"""Example values for inputs: what the description gives (the parameter's or media type's examples, the
schema's `examples`, `default`, `enum`, `const`), else a value made from the schema (its type, format,
bounds, and for a string without a format the name's hint: `email`, `url`...). Each candidate is checked
against the input's schema by the same validation `arazzo run` applies to inputs, so an example that
does not fit its own schema (descriptions have them) is passed over for one that does.

Made values are fixed, never random: a date is 2026-09-16, a uuid 3fa85f64-5717-4562-b3fc-2c963f66afa6.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from . import example_budget
from .schemas import COMPONENTS_REF

NOTHING: Any = type("NOTHING", (), {"__repr__": lambda self: "NOTHING"})()

DATE = "2026-09-16"
_FORMATS: Mapping[str, Any] = MappingProxyType(
    {
        "date": DATE,
        "date-time": f"{DATE}T09:00:00Z",
        "time": "09:00:00Z",
        "duration": "P1D",
        "email": "user@example.com",
        "idn-email": "user@example.com",
        "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "uri": "https://example.com/",
        "url": "https://example.com/",
        "iri": "https://example.com/",
        "uri-reference": "https://example.com/",
        "iri-reference": "https://example.com/",
        "uri-template": "https://example.com/{id}",
        "hostname": "example.com",
        "idn-hostname": "example.com",
        "ipv4": "192.0.2.1",
        "ipv6": "2001:db8::1",
        "byte": "ZXhhbXBsZQ==",
        "binary": "example",
        "password": "example-password",
        "json-pointer": "/example",
        "relative-json-pointer": "0",
        "regex": "^example$",
    }
)
_NAME_HINTS = (
    ("email", "user@example.com"),
    ("url", "https://example.com/"),
    ("uri", "https://example.com/"),
    ("date", DATE),
    ("phone", "+15555550100"),
)
_STRING_TRIES = ("example", "abc", "ABC", "a1", "1", "123", "a", "A", "example-1", DATE, "user@example.com")
_MAX_DEPTH = 8
_MAX_ITEMS = 64  # a made list is no longer: a larger minItems is not met (and the input said to lack one)
_MAX_LENGTH = 10_000  # nor is a made string padded further


class Examples:
    """Example values for schemas of one generated document (`components`: its `components.inputs`)."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.components = components
        self._short = True  # patterns: the least repetitions first, then one more
        self._container = False
        self._patterns = example_budget.Patterns()  # pattern time shared by every input's checks

    def value(
        self, schema: Any, name: str = "", given: Iterable[Any] = (), *, container: bool = False
    ) -> tuple[Any, str | None]:
        """(a value that fits `schema`, None) or (NOTHING or the best unfit value, why). `container`: a
        whole JSON request body, which must be an object or a list (a string payload is sent as the
        text it holds, not as a JSON string)."""
        self._container = container
        self._short = True
        candidates = [*given, *self.declared(schema)]
        self._undecided: str | None = None
        token = example_budget.active(example_budget.Budget(self._patterns))
        try:
            example_budget.check_deadline()
            return self._search(schema, name, candidates, container)
        except example_budget.OverBudget as exc:
            return NOTHING, f"no example was checked against {_schema_name(schema)} ({exc.reason})"
        finally:
            example_budget.reset(token)

    def _search(
        self, schema: Any, name: str, candidates: list[Any], container: bool
    ) -> tuple[Any, str | None]:
        made = [self.make(schema, name, 0)]
        self._short = False
        made.append(self.make(schema, name, 0))
        self._short = True
        tries = [*candidates, *made, *(({}, []) if container else _STRING_TRIES)]
        for candidate in tries:
            if container and not isinstance(candidate, (dict, list)):
                continue
            if self.fits(candidate, schema):
                return candidate, None
        if container:
            return NOTHING, "no object or list fits the body's schema (a JSON body is sent from one)"
        why = "no example fits its schema" if candidates or made[0] is not NOTHING else "no example"
        if self._undecided is not None:
            why = f"no example could be shown to fit its schema ({self._undecided})"
        return (candidates[0] if candidates else made[0]), why

    def declared(self, schema: Any) -> list[Any]:
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return []
        found = list(schema["examples"]) if isinstance(schema.get("examples"), list) else []
        for key in ("default", "const"):
            if key in schema:
                found.append(schema[key])
        if isinstance(schema.get("enum"), list):
            found.extend(item for item in schema["enum"] if item is not None)
        return found

    def fits(self, value: Any, schema: Any) -> bool:
        if value is NOTHING:
            return False
        document = {"components": {"inputs": self.components}, "schema": schema}
        try:
            return not example_budget.problems(value, document)
        except example_budget.OverBudget:
            raise
        except example_budget.Undecided as exc:
            self._undecided = exc.reason
            return False
        except Exception:  # a schema the validator cannot use: the value is not known to fit
            return False

    def resolve(self, schema: Any) -> Any:
        for _ in range(_MAX_DEPTH):
            ref = schema.get("$ref") if isinstance(schema, dict) else None
            if not (isinstance(ref, str) and ref.startswith(COMPONENTS_REF)):
                return schema
            target = self.components.get(ref[len(COMPONENTS_REF) :], {})
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return schema

    def make(self, schema: Any, name: str, depth: int) -> Any:
        """A value built from the schema alone (declared values first, at every level)."""
        example_budget.spend()
        schema = self.resolve(schema)
        if schema is True or schema == {}:
            return {} if self._container and depth == 0 else "example"
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return NOTHING
        declared = self.declared(schema)
        if declared:
            return declared[0]
        if isinstance(schema.get("allOf"), list):
            return self.make(self._all_of(schema, depth), name, depth + 1)
        for key in ("oneOf", "anyOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                return self._branch(schema, branches, name, depth)
        kind = _type_of(schema)
        if kind == "string":
            return _string(schema, name, self._short)
        if kind in ("integer", "number"):
            return _number(schema, kind)
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        if kind == "array":
            item = self.make(schema.get("items", {}), name, depth + 1)
            count = schema.get("minItems")
            if not isinstance(count, int):
                count = 1
            return [] if item is NOTHING else [_nth(item, n) for n in range(min(max(count, 1), _MAX_ITEMS))]
        return self._object(schema, depth)

    def _all_of(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        """`schema` with its `allOf` branches laid into it: properties and `required` joined, every
        other keyword the first one given."""
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for branch in schema["allOf"]:
            branch = self.resolve(branch)
            if isinstance(branch, dict) and "allOf" in branch and depth < _MAX_DEPTH:
                branch = self._all_of(branch, depth + 1)
            for key, value in branch.items() if isinstance(branch, dict) else ():
                if key == "properties" and isinstance(value, dict):
                    merged["properties"] = {**value, **merged.get("properties", {})}
                elif key == "required" and isinstance(value, list):
                    merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
                else:
                    merged.setdefault(key, value)
        return merged

    def _branch(self, schema: dict[str, Any], branches: list[Any], name: str, depth: int) -> Any:
        """The value of the first branch that fits the whole schema (`oneOf`: that one branch alone);
        objects first for a container."""
        real = [b for b in branches if self.resolve(b) != {"type": "null"}] or list(branches)
        if self._container and depth == 0:
            real.sort(key=lambda b: _type_of(self.resolve(b)) not in ("object", "array"))
        rest = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
        first = NOTHING
        for branch in real[:16]:
            merged = self.resolve(branch)
            if isinstance(merged, dict) and rest:
                merged = {**rest, **merged}
            value = self.make(merged, name, depth + 1)
            if self.fits(value, schema):
                return value
            first = value if first is NOTHING else first
        return first

    def _object(self, schema: dict[str, Any], depth: int) -> Any:
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            properties = {}
        required = [n for n in schema.get("required") or () if isinstance(n, str)]
        value: dict[str, Any] = {}
        for prop, sub in properties.items():
            if prop in required or self.declared(sub):
                made = self.make(sub, prop, depth + 1)
                if made is not NOTHING:
                    value[prop] = made
        for prop in required:
            if prop not in value:
                value[prop] = "example"
        return value


def _schema_name(schema: Any) -> str:
    """How a note (on its input) names an input's schema: by its component, when it is one."""
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if isinstance(ref, str) and ref.startswith(COMPONENTS_REF):
        return f"its schema '{ref[len(COMPONENTS_REF) :]}'"
    return "its schema"


def _type_of(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
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


def _nth(item: Any, index: int) -> Any:
    """The `index`th item of a made list: distinct ones (`uniqueItems`) where the kind allows."""
    if index == 0:
        return item
    if isinstance(item, str):
        return str(int(item) + index) if item.isdigit() else f"{item}{index + 1}"
    if isinstance(item, (int, float)) and not isinstance(item, bool):
        return item + index
    return item


def _string(schema: dict[str, Any], name: str, short: bool = True) -> str:
    fmt = schema.get("format")
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        from .regex_example import pattern_example

        found = pattern_example(pattern, short)
        if found is not None:
            return found
    text = _FORMATS.get(fmt) if isinstance(fmt, str) else None
    if text is None:
        lowered = name.lower()
        text = next((hint for word, hint in _NAME_HINTS if lowered.endswith(word)), "example")
    low = schema.get("minLength")
    high = schema.get("maxLength")
    if isinstance(low, int) and len(text) < low <= _MAX_LENGTH:
        text = text + "x" * (low - len(text))
    if isinstance(high, int) and len(text) > high:
        text = text[: max(high, 0)]
    return text


def _number(schema: dict[str, Any], kind: str) -> int | float:
    low, high = schema.get("minimum"), schema.get("maximum")
    above, below = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    value: int | float = 1
    if isinstance(low, (int, float)) and not isinstance(low, bool):
        value = max(value, low)
    if isinstance(above, (int, float)) and not isinstance(above, bool) and value <= above:
        value = above + 1
    if isinstance(high, (int, float)) and not isinstance(high, bool) and value > high:
        value = high
    if isinstance(below, (int, float)) and not isinstance(below, bool) and value >= below:
        value = below - 1
    step = schema.get("multipleOf")
    if isinstance(step, (int, float)) and not isinstance(step, bool) and step > 0:
        with contextlib.suppress(OverflowError, ValueError):  # a step too small to divide by
            value = step * max(round(value / step), 1)
    if kind == "integer":
        return int(value)
    return value
