"""The non-RFC `<query> <op> <literal>` JSONPath condition (`$.status == 'requires_capture'`).

Widespread in real documents though not valid RFC 9535. The text is split at its first comparison operator
outside quotes, brackets and parentheses; the right side must be a JSON-ish literal: a double- or
single-quoted string, a number, true, false or null. Values compare like RFC 9535 filter comparisons:
exact (case-sensitive) strings, numbers by value, booleans are not numbers, `<=` is `<` or `==`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import ExpressionError
from .compare import is_number

OPERATORS = ("==", "!=", "<=", ">=", "<", ">")
_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?")
_KEYWORDS = {"true": True, "false": False, "null": None}
_CLOSERS = {"]": "[", ")": "("}


def split_comparison(text: str) -> tuple[str, str, str, int] | None:
    """(left, operator, right, offset of right) at the first top-level operator, or None (blanks trimmed)."""
    depth, quote, index = 0, "", 0
    while index < len(text):
        ch = text[index]
        if quote:
            if ch == "\\":
                index += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(depth - 1, 0)
        elif depth == 0:
            op = _operator_at(text, index)
            if op:
                rest = text[index + len(op) :]
                start = index + len(op) + len(rest) - len(rest.lstrip())
                return text[:index].rstrip(), op, rest.strip(), start
        index += 1
    return None


def _operator_at(text: str, index: int) -> str | None:
    for op in OPERATORS:
        if text.startswith(op, index):
            return op
    return None


def parse_literal(text: str, source: str, position: int) -> Any:
    """A JSON-ish literal; ExpressionError (at `position` in `source`) when `text` is not one."""
    if text in _KEYWORDS:
        return _KEYWORDS[text]
    if _NUMBER.fullmatch(text):
        return json.loads(text)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        from ..bounds import json_text

        try:
            # read as the values it is compared with are (a lone `\ud800` as U+FFFD): the same rule
            return json_text.loads(text)
        except ValueError:
            pass
    elif len(text) >= 2 and text[0] == text[-1] == "'":
        return _single_quoted(text[1:-1])
    raise ExpressionError(
        "the right side of a JSONPath comparison must be a string, number, true, false or null",
        source,
        position,
    )


def _single_quoted(inner: str) -> str:
    # '' and \' both stand for a quote; a backslash escapes any other character too.
    out: list[str] = []
    index = 0
    while index < len(inner):
        ch = inner[index]
        if ch == "\\" and index + 1 < len(inner):
            index += 1
            ch = inner[index]
        elif ch == "'" and inner[index + 1 : index + 2] == "'":
            index += 1
        out.append(ch)
        index += 1
    return "".join(out)


def json_compare(op: str, left: Any, right: Any) -> bool:
    """RFC 9535 comparison semantics between two JSON values."""
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    if op == "<":
        return _less(left, right)
    if op == ">":
        return _less(right, left)
    if op == "<=":
        return _less(left, right) or _equal(left, right)
    return _less(right, left) or _equal(left, right)


def _less(left: Any, right: Any) -> bool:
    if is_number(left) and is_number(right):
        return bool(left < right)
    if isinstance(left, str) and isinstance(right, str):
        return left < right
    return False


def _equal(left: Any, right: Any) -> bool:
    if is_number(left) and is_number(right):
        return bool(left == right)
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_equal(v, right[k]) for k, v in left.items())
    return bool(left == right)
