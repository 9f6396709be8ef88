"""Comparison and truthiness rules of `simple` conditions (Arazzo 1.1 + DESIGN "Simple conditions").

* strings compare case-insensitively (equality and ordering);
* a numeric string is coerced to a number when compared with a number, and when two numeric strings
  are ordered (`'10' > '9'`);
* `null` equals only `null`; any ordering involving `null` is false;
* booleans are not numbers (`true == 1` is false);
* values of incompatible types are unequal (`==` false, `!=` true) and unordered (`<`... false);
* arrays and objects compare by deep equality (`==`, `!=` only).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
# compiled on first use (`re`'s cache): not at every start
_NUMERIC = r"\s*-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*"


def compare(op: str, left: Any, right: Any) -> bool:
    """`left <op> right` with the loose rules above."""
    ltype, rtype = type(left), type(right)
    if ltype is rtype and (ltype is int or ltype is float):  # fast path: $statusCode == 200
        return _ORDER[op](left, right)
    if ltype is bool and rtype is bool:  # fast path: $response.body#/ok == true (as _equal decides)
        return left is right if op == "==" else op == "!=" and left is not right
    if left is None or right is None:
        if op == "==":
            return left is right
        return op == "!=" and left is not right
    if is_number(left) or is_number(right):
        return _numbers(op, number_of(left), number_of(right))
    if isinstance(left, str) and isinstance(right, str):
        return _strings(op, left, right)
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    return False


def truthy(value: Any) -> bool:
    """A bare operand: true, a non-zero number, a non-empty string/array/object (null is false)."""
    if value is None or value is False:
        return False
    return bool(value)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number_of(value: Any) -> int | float | None:
    """The number a value stands for (numbers, numeric strings), or None."""
    if is_number(value):
        return value
    if isinstance(value, str) and re.fullmatch(_NUMERIC, value):
        text = value.strip()
        if any(c in text for c in ".eE"):
            return float(text)
        try:
            return int(text)
        except ValueError:  # more digits than Python converts to int (4300): still a number
            return float(text)
    return None


def _numbers(op: str, left: int | float | None, right: int | float | None) -> bool:
    if left is None or right is None:  # a number against a non-numeric value: incompatible
        return op == "!="
    return _ORDER[op](left, right)


def _strings(op: str, left: str, right: str) -> bool:
    if op not in ("==", "!="):
        lnum, rnum = number_of(left), number_of(right)
        if lnum is not None and rnum is not None:
            return _ORDER[op](lnum, rnum)
    return _ORDER[op](left.casefold(), right.casefold())


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_equal(v, right[k]) for k, v in left.items())
    if type(left) is not type(right) and not (is_number(left) and is_number(right)):
        return False
    return bool(left == right)
