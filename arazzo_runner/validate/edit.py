"""Applying `Edit`s to a document's text in place: each edit replaces characters inside one scalar's
token, written in that token's own style, so every other byte of the file stays as it was.

An edit names characters of a string's value (`Edit.start`, `Edit.old`), and is made only where the
token at its pointer reads as the string at that pointer in the loaded data; the token's style says
where those characters are written (quotes doubled, escapes, a literal block's indentation). A plain scalar
that would no longer read as the same string (a `{` at its start, a `: ` inside, a `true`) is quoted
instead, as a whole, in single quotes (double quotes when it holds a line break). The result is loaded
again and must hold exactly the data the edits ask for, or nothing is written (`EditError`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from types import MappingProxyType
from typing import Any

from ..errors import ArazzoError
from ..loader import load_text
from ..loader.pointer import parse_pointer
from ..loader.spans import DOUBLE, FOLDED, JSON, LITERAL, PLAIN, SINGLE, Scalar, scalar_spans
from .findings import Edit


class EditError(Exception):
    """An edit that cannot be made in place (the message says why); nothing is written."""


def apply_edits(text: str, format: str, data: Any, edits: Iterable[Edit]) -> str:
    """`text` (a document the loader read as `data`, in `format`) with `edits` applied."""
    edits = list(edits)
    if not edits:
        return text
    spans = scalar_spans(text, format)
    groups: dict[tuple[str, bool], list[Edit]] = {}
    for edit in edits:
        if not edit.node:
            groups.setdefault((edit.path, edit.key), []).append(edit)
    replaced: list[tuple[int, int, str]] = []
    expected = copy.deepcopy(data)
    for edit in [e for e in edits if e.node]:  # a whole flow collection becomes a string
        span = spans.flows.get(edit.path)
        if span is None or (edit.path, False) in groups:
            raise EditError(f"the node at {edit.path or '/'} is not a flow collection written in place")
        replaced.append((span[0], span[1], _quoted(edit.new)))
        expected = _expect(expected, edit.path, False, edit.new)
    for (path, key), group in groups.items():
        scalar = (spans.keys if key else spans.values).get(path)
        if scalar is None:
            raise EditError(
                f"the {'key' if key else 'value'} at {path or '/'} is not a string written in place"
            )
        if scalar.value != _read(data, path, key):  # an edit is made from the scalar's own text only
            raise EditError(f"the text at {path or '/'} is not the string the finding read")
        value = _apply_to_value(scalar.value, group, path)
        replaced.append((scalar.start, scalar.end, _render(text, scalar, group, value)))
        expected = _expect(expected, path, key, value)
    result = _splice(text, replaced)
    _verify(result, format, expected)
    return result


def _apply_to_value(value: str, edits: list[Edit], path: str) -> str:
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        if value[edit.start : edit.start + len(edit.old)] != edit.old:
            raise EditError(
                f"the string at {path or '/'} changed: {edit.old!r} is not at offset {edit.start}"
            )
        value = value[: edit.start] + edit.new + value[edit.start + len(edit.old) :]
    return value


def _render(text: str, scalar: Scalar, edits: list[Edit], value: str) -> str:
    """The new token: the old one with each edit written in its style, else the value quoted anew."""
    token = text[scalar.start : scalar.end]
    offsets = _offsets(token, scalar)
    if offsets is not None:
        rendered = token
        for edit in sorted(edits, key=lambda e: e.start, reverse=True):
            piece = _escape(edit.new, scalar.style)
            end = edit.start + len(edit.old)
            if piece is None or (scalar.style == LITERAL and "\n" in scalar.value[edit.start : end]):
                break  # (not rendered in place)
            rendered = rendered[: offsets[edit.start]] + piece + rendered[offsets[end] :]
        else:
            if scalar.style != PLAIN or _plain_reads_as(rendered, value, scalar.flow):
                return rendered
    if scalar.style == JSON:
        return json.dumps(value, ensure_ascii=False)
    if scalar.style in (LITERAL, FOLDED):
        raise EditError("a block scalar (| or >) cannot be rewritten in place here")
    return _quoted(value)


def _offsets(token: str, scalar: Scalar) -> list[int] | None:
    """For each character of the value, where it is written in `token` (plus the end); None when the
    token cannot be mapped (a scalar over several lines, a folded block)."""
    style = scalar.style
    if style == PLAIN:
        return list(range(len(token) + 1)) if token == scalar.value else None
    if style == SINGLE:
        return _quoted_offsets(token, scalar.value, lambda t, i: (2, "'") if t.startswith("''", i) else None)
    if style in (DOUBLE, JSON):
        return _quoted_offsets(token, scalar.value, _escape_at)
    if style == LITERAL:
        return _literal_offsets(token, scalar.value)
    return None


def _quoted_offsets(token: str, value: str, special: Any) -> list[int] | None:
    if "\n" in token or len(token) < 2:
        return None
    offsets, decoded, index = [], [], 1
    while index < len(token) - 1:
        found = special(token, index)
        size, chars = found if found is not None else (1, token[index])
        for char in chars:
            offsets.append(index)
            decoded.append(char)
        index += size
    offsets.append(len(token) - 1)
    return offsets if "".join(decoded) == value else None


_SIMPLE_ESCAPES = MappingProxyType(
    {
        "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", '"': '"', "\\": "\\", "0": "\0",
        "a": "\a", "v": "\v", "e": "\x1b", " ": " ", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
        "\t": "\t",
    }
)  # fmt: skip
_HEX = MappingProxyType({"x": 2, "u": 4, "U": 8})


def _escape_at(token: str, index: int) -> tuple[int, str] | None:
    if token[index] != "\\" or index + 1 >= len(token):
        return None
    kind = token[index + 1]
    if kind in _HEX:
        digits = token[index + 2 : index + 2 + _HEX[kind]]
        code = int(digits, 16)
        if kind == "u" and 0xD800 <= code < 0xDC00 and token.startswith("\\u", index + 6):  # a JSON pair
            low = int(token[index + 8 : index + 12], 16)
            return 12, chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
        return 2 + _HEX[kind], chr(code)
    return 2, _SIMPLE_ESCAPES.get(kind, kind)


def _literal_offsets(token: str, value: str) -> list[int] | None:
    header, newline, body = token.partition("\n")
    if not newline or re.search(r"[1-9]", header.split("#")[0]):
        return None  # an explicit indentation indicator: not mapped
    lines = body.split("\n")
    indent = next((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), 0)
    offsets, decoded, at = [], [], len(header) + 1
    for line in lines:
        content = line[indent:] if line.strip() else ""
        start = at + (indent if line.strip() else len(line))
        for i, char in enumerate(content):
            offsets.append(start + i)
            decoded.append(char)
        offsets.append(at + len(line))
        decoded.append("\n")
        at += len(line) + 1
    text = "".join(decoded)
    for size in range(len(text), -1, -1):  # chomping: the value is a prefix of the lines read
        if text[:size] == value:
            return offsets[: size + 1] if size < len(offsets) else [*offsets, at]
    return None


def _escape(new: str, style: str) -> str | None:
    if style == PLAIN:
        return new
    if style == SINGLE:
        return None if "\n" in new else new.replace("'", "''")
    if style in (DOUBLE, JSON):
        return json.dumps(new, ensure_ascii=False)[1:-1]
    if style == LITERAL:
        return None if "\n" in new else new
    return None


def _plain_reads_as(token: str, value: str, flow: bool) -> bool:
    """Whether `token`, written plain, is still read as the string `value` (by PyYAML, which knows
    more non-string plain forms than the loader's YAML 1.2 schema: quoting is the safe side)."""
    import yaml

    if not token or token != token.strip() or " #" in token or "\n" in token:
        return False
    try:
        loaded = yaml.safe_load(f"[{token}]" if flow else f"k: {token}")
    except yaml.YAMLError:
        return False
    return loaded == ([value] if flow else {"k": value})


def _quoted(value: str) -> str:
    if value.isprintable() and "\n" not in value:
        return "'" + value.replace("'", "''") + "'"
    return json.dumps(value, ensure_ascii=False)


def _read(data: Any, path: str, key: bool) -> Any:
    """The string at `path` in `data` (with `key`, the mapping key naming that node), or None."""
    tokens = parse_pointer(path)
    node = data
    try:
        for token in tokens[:-1] if key else tokens:
            node = node[int(token)] if isinstance(node, list) else node[token]
    except (KeyError, IndexError, ValueError, TypeError):
        return None
    if key:
        return tokens[-1] if tokens and isinstance(node, dict) and tokens[-1] in node else None
    return node


def _expect(data: Any, path: str, key: bool, value: str) -> Any:
    tokens = parse_pointer(path)
    if not tokens:
        return value
    parent = data
    for token in tokens[:-1]:
        parent = parent[int(token)] if isinstance(parent, list) else parent[token]
    last = tokens[-1]
    if isinstance(parent, list):
        parent[int(last)] = value
    elif key:
        items = [(value if k == last else k, v) for k, v in parent.items()]
        parent.clear()
        parent.update(items)
    else:
        parent[last] = value
    return data


def _splice(text: str, replaced: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(replaced, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _verify(text: str, format: str, expected: Any) -> None:
    try:
        loaded = load_text(text, "<fixed>")
    except ArazzoError as exc:
        raise EditError(f"the edited text would not load ({exc})") from None
    if loaded.format != format or loaded.data != expected:
        raise EditError("the edited text would not hold the data the edits ask for")
