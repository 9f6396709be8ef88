"""JSON text -> (data, lazy positions) with the stdlib parser; limits checked without a second parse."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from ..errors import DocumentError
from .limits import Limits
from .positions import PositionIndex
from .text import line_col


class _Duplicate(Exception):
    """A JSON object repeats a key; the scanner finds where."""


class _Constant(Exception):
    """NaN / Infinity / -Infinity where they are not accepted (see `load_json`)."""


def load_json(text: str, file: str, limits: Limits, *, constants: bool = True) -> tuple[Any, PositionIndex]:
    """Parse JSON; raises DocumentError, or json.JSONDecodeError for text that is not JSON at all.

    `constants`: accept Python's NaN / Infinity / -Infinity (a .json file may use them); without it they
    make the text "not JSON", so that flow-style YAML such as `[Infinity]` is read as YAML (a string).
    """
    try:
        hook = None if constants else _no_constant
        data = json.loads(text, object_pairs_hook=_unique, parse_constant=hook)
    except _Constant as exc:
        found = re.search(_CONSTANT, text)
        position = found.start() if found else 0
        raise json.JSONDecodeError(f"{exc} is not a JSON value", text, position) from None
    except _Duplicate:
        _locate_problem(text, file, limits)
        raise DocumentError("an object has a duplicate key", file=file, line=1, column=1) from None
    except RecursionError:
        _locate_problem(text, file, limits)
        # Only reached when `max_depth` is above what the stdlib parser can recurse through.
        raise DocumentError("document is nested too deeply to parse", file=file, line=1, column=1) from None
    except json.JSONDecodeError:
        raise  # not JSON: the caller decides between reporting it and reading YAML
    except ValueError as exc:  # an integer with more digits than Python converts
        line, column = _long_number(text)
        raise DocumentError(f"number too long: {exc}", file=file, line=line, column=column) from None
    if _exceeds(text, data, limits):
        _locate_problem(text, file, limits)
        raise DocumentError("document exceeds the depth or size limits", file=file, line=1, column=1)
    if SURROGATE_ESCAPE.search(text):
        _check_surrogates(text, data, file)
    return data, PositionIndex(lambda: _scan(text, file, limits))


# `\ud800`-`\udfff`: valid only as a high+low pair. json.loads lets a lone one through into a str that
# cannot be encoded (printing it fails later); YAML refuses it, and so does this loader for JSON.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _check_surrogates(text: str, data: Any, file: str) -> None:
    pending = [data]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            pending.extend(node)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, str) and not node.isascii():
            try:
                node.encode("utf-8")
            except UnicodeEncodeError as exc:
                unit = f"{ord(node[exc.start]):04x}"
                found = re.search(r"\\u" + unit, text, re.IGNORECASE)
                line, column = line_col(text, found.start()) if found else (1, 1)
                message = f"\\u{unit} is half of a UTF-16 surrogate pair, not a character"
                raise DocumentError(message, file=file, line=line, column=column) from None


def _long_number(text: str) -> tuple[int, int]:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    match = re.search("[0-9]{" + str(limit + 1) + ",}", text) if limit else None
    return line_col(text, match.start()) if match else (1, 1)


# compiled on first use (`re`'s cache): not at every start
_CONSTANT = r"(?<![\w\"])(?:-?Infinity|NaN)(?![\w\"])"


def _no_constant(name: str) -> Any:
    raise _Constant(name)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Duplicate
    return result


def _locate_problem(text: str, file: str, limits: Limits) -> None:
    # The scanner raises the located error (duplicate key, depth or size) it meets first; callers
    # still raise a plain one in case it meets none.
    _scan(text, file, limits)


def scan_positions(text: str, file: str, limits: Limits) -> Any:
    """(root entry, to line/column) of a JSON text already known to load (see `load.positions_of`)."""
    return _scan(text, file, limits)


def _scan(text: str, file: str, limits: Limits) -> Any:
    """Positions (or the located error) from the scanner, imported the first time one is needed: a
    document that loads cleanly and is never reported on has none to find."""
    from .json_scan import JsonScanner

    return JsonScanner(text, file, limits).scan()


def _exceeds(text: str, data: Any, limits: Limits) -> bool:
    """Whether depth or node count pass the limits; character counts spare most documents the walks."""
    containers = text.count("[") + text.count("{")
    if containers > limits.max_depth and _deeper_than(data, limits.max_depth):
        return True
    # Every value but the first is preceded by a ',' or opens a container's first slot.
    return containers + text.count(",") + 1 > limits.max_nodes and _count_nodes(data) > limits.max_nodes


def _deeper_than(data: Any, max_depth: int) -> bool:
    try:
        return _depth_exceeds(data, max_depth)
    except RecursionError:  # only when max_depth is set near the interpreter's recursion limit
        return True


def _depth_exceeds(node: Any, remaining: int) -> bool:
    # Recursive on purpose: twice as fast as an explicit stack, and bounded by `max_depth`.
    if node.__class__ is not dict and node.__class__ is not list:
        return False
    if remaining == 0:
        return True
    for child in node.values() if node.__class__ is dict else node:
        if (child.__class__ is dict or child.__class__ is list) and _depth_exceeds(child, remaining - 1):
            return True
    return False


def _count_nodes(data: Any) -> int:
    nodes = 1
    pending = [data]
    while pending:
        node = pending.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        nodes += len(children)
        pending.extend(child for child in children if isinstance(child, (dict, list)))
    return nodes
