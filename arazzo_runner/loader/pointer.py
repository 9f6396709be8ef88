"""RFC 6901 JSON Pointer: parse, format and resolve, shared by every stage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ExpressionError

Token = str
Tokens = tuple[str, ...]


def parse_pointer(text: str) -> Tokens:
    """Split a pointer (`/a/b~1c`, or `#/a` as a URI fragment) into unescaped tokens."""
    if text.startswith("#"):
        text = text[1:]
    if text == "":
        return ()
    if not text.startswith("/"):
        raise ExpressionError("a JSON pointer must start with '/'", text, 0)
    tilde = text.find("~")
    while tilde != -1:
        if text[tilde + 1 : tilde + 2] not in ("0", "1"):
            raise ExpressionError("'~' must be followed by '0' or '1' in a JSON pointer", text, tilde)
        tilde = text.find("~", tilde + 2)
    tokens = text[1:].split("/")
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in tokens)


def escape_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def format_pointer(tokens: Sequence[str | int]) -> str:
    """Build a pointer string such as `/workflows/0/steps/1` from tokens."""
    return "".join("/" + escape_token(t) for t in tokens)


class _Absent:
    """Marker for 'the pointer reaches nothing'; see `resolve_pointer`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Any = _Absent()


def resolve_pointer(document: Any, tokens: Sequence[str]) -> Any:
    """Follow `tokens` into `document`; return `ABSENT` (not None) when the path reaches nothing."""
    node = document
    for token in tokens:
        if isinstance(node, dict):
            if token not in node:
                return ABSENT
            node = node[token]
        elif isinstance(node, list):
            if not _is_index(token):
                return ABSENT
            index = int(token)
            if index >= len(node):
                return ABSENT
            node = node[index]
        else:
            return ABSENT
    return node


def describe_miss(document: Any, tokens: Sequence[str]) -> str:
    """Explain where `tokens` stops matching `document`, for messages about missing values."""
    node = document
    for depth, token in enumerate(tokens):
        where = format_pointer(tokens[:depth]) or "the root"
        if isinstance(node, dict):
            if token not in node:
                return f"no member {token!r} at {where}"
            node = node[token]
        elif isinstance(node, list):
            if not _is_index(token):
                return f"{token!r} is not an array index at {where}"
            if int(token) >= len(node):
                return f"index {token} is out of range at {where} (length {len(node)})"
            node = node[int(token)]
        else:
            kind = "null" if node is None else type(node).__name__
            return f"cannot descend into a {kind} at {where}"
    return "found"


def _is_index(token: str) -> bool:
    # RFC 6901: array indexes are '0' or digits without a leading zero.
    return token.isdigit() and token.isascii() and (token == "0" or not token.startswith("0"))
