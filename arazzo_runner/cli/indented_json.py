"""`json.dumps(value, indent=2, ensure_ascii=False)` of plain JSON data, with a base indent, for the rows
of `--inputs-file --format json` (`batch_out._entry`). Python 3.11's json module writes an indented text
with its pure-Python encoder, a generator per container resumed once per token: ~0.2 ms a row's entry.
Here one recursive pass appends the same tokens to a list (strings by the same C function json uses),
~3x cheaper. What is not plain JSON data (a key not a str, NaN or an infinity, a value only `default`
can write, nesting deeper than `_DEEPEST`) gives None: the caller then uses `json.dumps`, whose text,
errors and limits are unchanged."""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring  # (the C function, ensure_ascii=False's, when present)
from typing import Any

_DEEPEST = 100  # deeper data goes to json.dumps (its recursion limit, its circular reference check)
_INFINITY = float("inf")


class _NotPlain(Exception):
    """The value holds something `indented` leaves to `json.dumps`."""


def indented(value: Any, base: str = "") -> str | None:
    """`json.dumps(value, indent=2, ensure_ascii=False)` with `base` after each line end, or None when
    `value` is not plain JSON data."""
    parts: list[str] = []
    try:
        _encode(value, "\n" + base, parts.append, 0)
    except _NotPlain:
        return None
    return "".join(parts)


def _encode(value: Any, newline: str, add: Callable[[str], None], depth: int) -> None:
    # the tests in the order of json's encoder (`_iterencode`): a bool is an int, a str subclass a str
    if isinstance(value, str):
        add(encode_basestring(value))
    elif value is None:
        add("null")
    elif value is True:
        add("true")
    elif value is False:
        add("false")
    elif isinstance(value, int):
        add(int.__repr__(value))
    elif isinstance(value, float):
        if value != value or value == _INFINITY or value == -_INFINITY:
            raise _NotPlain
        add(float.__repr__(value))
    elif isinstance(value, (list, tuple)):
        if not value:
            add("[]")
            return
        if depth >= _DEEPEST:
            raise _NotPlain
        inner = newline + "  "
        add("[" + inner)
        first = True
        for item in value:
            if not first:
                add("," + inner)
            first = False
            _encode(item, inner, add, depth + 1)
        add(newline + "]")
    elif isinstance(value, dict):
        if not value:
            add("{}")
            return
        if depth >= _DEEPEST:
            raise _NotPlain
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotPlain
            add(separator + encode_basestring(key) + ": ")
            separator = "," + inner
            _encode(item, inner, add, depth + 1)
        add(newline + "}")
    else:
        raise _NotPlain
