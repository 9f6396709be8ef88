"""How a message writes a value it quotes: in JSON (`null`, `true`, `"text"`, `{"a": [1, null]}`).

The values a message quotes come from JSON and YAML documents, and the messages are read by people who
wrote those documents and by JSON clients (an MCP client, an agent reading a tool's error): Python's
spelling (`None`, `True`, `'text'`, `{'a': [1, None]}`) is foreign to both, and `None` for YAML's `null`
reads like a bug. jsonschema builds its messages with `repr`; `schema_message` rewrites those.
"""

from __future__ import annotations

import ast
import json
import re
from types import MappingProxyType
from typing import Any

# What Python's repr writes for JSON's values, as a message holds them: a quoted string (single quotes,
# or double ones around a string holding a single quote) and the three words; numbers, brackets, braces,
# commas and colons are JSON's already. Strings first: a word inside one belongs to it.
_PYTHON_LITERAL = re.compile(
    r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|(?<![\w.'"])(?:None|True|False)(?![\w.'"])"""
)
_WORDS = MappingProxyType({"None": "null", "True": "true", "False": "false"})


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

    jsonschema writes every value it quotes with `repr` (the instance, the keyword's value, a property
    name, an enum's members, a type name), and its own words hold no quote: so each Python string
    literal of the message is rewritten as a JSON string and `None`, `True`, `False` outside strings as
    `null`, `true`, `false`. What is left of a dict's or a list's repr (`{`, `: `, `, `, `[`, numbers)
    is JSON already. One pass over the message, however large the value it quotes."""
    return _PYTHON_LITERAL.sub(_json_literal, str(getattr(error, "message", error)))


def _json_literal(found: re.Match[str]) -> str:
    text = found.group(0)
    if text in _WORDS:
        return _WORDS[text]
    if text[0] == "'" and "\\" not in text and '"' not in text:  # the common case, without parsing
        return f'"{text[1:-1]}"'
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):  # not a Python string literal after all: left as written
        return text
    return json_spelling(value) if isinstance(value, str) else text
