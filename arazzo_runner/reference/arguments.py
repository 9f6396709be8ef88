"""Tool-call arguments the scripted model derives from a function's `parameters` JSON Schema.

Only the schema's `required` properties are filled. For each one, in order:

- the property's `default`, else its first `enum` value, else its `const`;
- strings: `date` (or a name ending in `date`, or `format: date`) -> the configured date (default
  `2026-09-16`); `format: date-time` -> that date at 09:00 UTC; `location`, `city`, `place`, ... -> the
  capitalized words of the message that do not start a sentence (e.g. `Sydney`), else the whole message;
  anything else (`query`, `from`, ...) -> the whole message;
- integer and number -> 1, boolean -> false, array -> [], object -> its own required properties, filled
  the same way; a property without a type is treated as a string.

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
    return json.dumps(_object_value(parameters, message, date, 0))


def _object_value(schema: Any, message: str, date: str, depth: int) -> dict[str, Any]:
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return {}
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required")
    names = [name for name in required if isinstance(name, str)] if isinstance(required, list) else []
    return {name: _value(name, properties.get(name), message, date, depth) for name in names}


def _value(name: str, schema: Any, message: str, date: str, depth: int) -> Any:
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
        return _string_value(name, schema, message, date)
    if kind == "object":
        return _object_value(schema, message, date, depth + 1)
    return _SCALARS.get(kind)


def _type_of(schema: Mapping[str, Any]) -> str:
    declared = schema.get("type")
    if isinstance(declared, list):
        # ["string", "null"] -> "string": prefer a real type over null.
        declared = next((t for t in declared if t != "null"), "null")
    if isinstance(declared, str):
        return declared
    return "object" if "properties" in schema else "string"


def _string_value(name: str, schema: Mapping[str, Any], message: str, date: str) -> str:
    lowered = name.lower()
    fmt = schema.get("format")
    if fmt == "date-time":
        return f"{date}T09:00:00Z"
    if fmt == "date" or lowered.endswith("date"):
        return date
    if lowered in _PLACE_NAMES:
        return proper_noun(message) or message
    return message


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
