"""How a message writes a value it quotes: in JSON (`null`, `true`, `"text"`, `{"a": [1, null]}`).

The values a message quotes come from JSON and YAML documents, and the messages are read by people who
wrote those documents and by JSON clients (an MCP client, an agent reading a tool's error): Python's
spelling (`None`, `True`, `'text'`, `{'a': [1, None]}`) is foreign to both, and `None` for YAML's `null`
reads like a bug. jsonschema builds its messages with `repr`; `schema_message` rewrites those.
"""

from __future__ import annotations

import json
import re
from typing import Any

_WORDS = frozenset({"None", "True", "False"})  # reprs that are words: matched as whole words only
_MAX_VALUES = 2000  # the values of one error looked at; beyond, a message keeps the rest as written


def json_spelling(value: Any) -> str:
    """`value` in JSON, as a message quotes it (`null`, `true`, `"a"`, `[1, 2]`, `{"a": null}`).

    A value JSON cannot spell (bytes, a set, a circular structure) falls back to its `str`."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def schema_message(error: Any) -> str:
    """A jsonschema `ValidationError`'s message with the values it quotes in JSON: `null is not of type
    "integer"`, not `None is not of type 'integer'`.

    jsonschema writes every value it quotes with `repr`: the instance, the keyword's value, or one of
    their parts (a property name, an enum's member, a type name), or a part of the schema (the patterns
    of `patternProperties` that a name did not match). Each repr of those values (and of their members)
    that differs from the JSON text is replaced, longest first, in one pass; `None`, `True` and `False`
    only as whole words."""
    message = str(getattr(error, "message", error))
    spelled: dict[str, str] = {}
    budget = [_MAX_VALUES]
    parts = ("instance", "validator_value", "schema")
    for value in (getattr(error, part, None) for part in parts):
        _collect(value, spelled, budget)
    if not spelled:
        return message
    alternatives = [
        rf"(?<![\w.]){re.escape(text)}(?![\w.])" if text in _WORDS else re.escape(text)
        for text in sorted(spelled, key=len, reverse=True)
    ]
    return re.sub("|".join(alternatives), lambda m: spelled[m.group(0)], message)


def _collect(value: Any, spelled: dict[str, str], budget: list[int]) -> None:
    """The reprs of `value` and of its members that JSON spells differently, mapped to the JSON."""
    stack = [value]
    while stack and budget[0] > 0:
        item = stack.pop()
        budget[0] -= 1
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            continue  # a number is written the same way in both
        try:
            written = repr(item)
        except Exception:  # an odd object's repr: nothing to rewrite
            continue
        if written not in spelled:
            text = json_spelling(item)
            if text != written:
                spelled[written] = text
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
