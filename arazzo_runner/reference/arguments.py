"""Tool-call arguments the scripted model derives from a function's `parameters` JSON Schema.

Only the schema's `required` properties are filled. For each one, in order:

- the property's `default`, else its first `enum` value, else its `const`;
- strings: `date` (or a name ending in `date`, or `format: date`) -> the configured date (default
  `2026-09-16`); `format: date-time` -> that date at 09:00 UTC; `location`, `city`, `place`, ... -> the
  capitalized words of the message that do not start a sentence (e.g. `Sydney`), else the whole message;
  anything else (`query`, `from`, ...) -> the whole message;
- integer and number -> 1, boolean -> false, array -> [], object -> its own required properties, filled
  the same way; a property without a type is treated as a string.

A local `$ref` (`#/$defs/Address`, `#/definitions/...`, any JSON Pointer into the same schema) is
followed, and of an `anyOf` / `oneOf` the first branch that is not `{"type": "null"}` is used: schemas
generated from pydantic models (tools and `response_format` schemas alike) are written that way.

The result is encoded with `json.dumps` (`{"location": "Sydney"}`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

DEFAULT_DATE = "2026-09-16"

_PLACE_NAMES = frozenset({"location", "city", "place", "town", "region", "country", "destination", "origin"})
_SCALARS: dict[str, Any] = {"integer": 1, "number": 1, "boolean": False, "array": [], "null": None}
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|[.!?]")
# Nested objects deeper than this are left empty: schemas can be recursive.
_MAX_DEPTH = 8


def build_arguments(parameters: Any, message: str, *, date: str = DEFAULT_DATE) -> str:
    """The JSON-encoded arguments for a call of a function with these `parameters`."""
    return json.dumps(schema_value(parameters, message, date=date))


def schema_value(
    schema: Any, message: str, *, date: str = DEFAULT_DATE, places: str | None = None
) -> dict[str, Any]:
    """The object the model fills for an object `schema` (its required properties): strings from
    `message`, place names from `places` (default: `message` too)."""
    return _Filler(schema, message, message if places is None else places, date).object_value(schema, 0)


class _Filler:
    """Fills one schema: `root` is where its local `$ref`s point into."""

    def __init__(self, root: Any, message: str, places: str, date: str) -> None:
        self.root, self.message, self.places, self.date = root, message, places, date

    def object_value(self, schema: Any, depth: int) -> dict[str, Any]:
        schema = _resolve(schema, self.root)
        if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
            return {}
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        names = [name for name in required if isinstance(name, str)] if isinstance(required, list) else []
        return {name: self.value(name, properties.get(name), depth) for name in names}

    def value(self, name: str, schema: Any, depth: int) -> Any:
        schema = _resolve(schema, self.root)
        schema = schema if isinstance(schema, Mapping) else {}
        if "default" in schema:
            return schema["default"]
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        if "const" in schema:
            return schema["const"]
        kind = _type_of(schema)
        if kind == "string":
            return self.string_value(name, schema)
        if kind == "object":
            return self.object_value(schema, depth + 1)
        return _SCALARS.get(kind)

    def string_value(self, name: str, schema: Mapping[str, Any]) -> str:
        lowered = name.lower()
        fmt = schema.get("format")
        if fmt == "date-time":
            return f"{self.date}T09:00:00Z"
        if fmt == "date" or lowered.endswith("date"):
            return self.date
        if lowered in _PLACE_NAMES:
            return proper_noun(self.places) or self.message
        return self.message


def _resolve(schema: Any, root: Any) -> Any:
    """`schema` with local `$ref`s followed and `anyOf`/`oneOf` narrowed to a non-null branch."""
    for _ in range(_MAX_DEPTH):  # a cycle of `$ref`s ends here
        if not isinstance(schema, Mapping):
            return schema
        ref = schema.get("$ref")
        branches = schema.get("anyOf", schema.get("oneOf"))
        if isinstance(ref, str) and ref.startswith("#"):
            schema = _pointer(root, ref[1:])
        elif isinstance(branches, list) and branches:
            real = [b for b in branches if not (isinstance(b, Mapping) and b.get("type") == "null")]
            schema = (real or branches)[0]
        else:
            return schema
    return {}


def _pointer(root: Any, pointer: str) -> Any:
    target = root
    for part in pointer.split("/")[1:] if pointer else ():
        part = part.replace("~1", "/").replace("~0", "~")
        target = target.get(part) if isinstance(target, Mapping) else None
    return target


def _type_of(schema: Mapping[str, Any]) -> str:
    declared = schema.get("type")
    if isinstance(declared, list):
        # ["string", "null"] -> "string": prefer a real type over null.
        declared = next((t for t in declared if t != "null"), "null")
    if isinstance(declared, str):
        return declared
    return "object" if "properties" in schema else "string"


def proper_noun(message: str) -> str | None:
    """The first run of capitalized words that does not start a sentence (`Sydney`, `New York`)."""
    run: list[str] = []
    sentence_start = True
    for token in _TOKEN.findall(message):
        if token in ".!?":
            if run:
                break
            sentence_start = True
            continue
        capitalized = token[0].isupper() and token != "I"
        if capitalized and not sentence_start:
            run.append(re.sub(r"['\u2019]s$", "", token))
        elif run:
            break
        sentence_start = False
    return " ".join(run) or None
