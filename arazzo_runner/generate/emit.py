"""YAML text for a generated document, with comments, written here rather than by a library: PyYAML
drops comments, and the project has no round-trip YAML library (nor needs one to write).

Block style throughout, two spaces, lists of short plain words in flow style (`required: [a, b]`).
A string is written plain only when every YAML reader reads it back as that same string: it starts
with a letter, `$`, `_`, `/`, `./` or `../`, holds nothing YAML treats specially (`: `, ` #`, flow
indicators, quotes, control characters), and is no word a YAML 1.1 or 1.2 reader takes for a
boolean or null (`yes`, `on`, `null`, `~`...). Numbers cannot start it, so `1e5`, `0x1F` or
`2024-01-01` are always quoted. Anything else is double-quoted with JSON's escapes (which YAML
shares), the characters YAML takes for line breaks or forbids escaped too (NEL, LS, PS, C1 controls,
BOM). A text of several lines is a literal block (`|-`) when it can be one exactly (no tab, no
trailing blank, no leading space).

`verify` reads the text back with the project's loader and compares: a document that would not read
back as the data it was made from is a bug, never a file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

Comments = dict[tuple[Any, ...], list[str]]

_PLAIN = re.compile(r"[A-Za-z_$/][A-Za-z0-9_$/.\-=<>!()+~^?;@|&*%' #:]*")
_FLOW_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_RESERVED = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~", "nan", "inf"})
_ESCAPED = re.compile("[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
_INDENT = "  "
COMMENT_WIDTH = 100


def emit(data: Any, comments: Comments | None = None, header: list[str] | None = None) -> str:
    """`data` as YAML text; `comments` are written above the entry at each path (keys and list indexes
    from the root); `header` above everything."""
    writer = _Writer(comments or {})
    for line in header or ():
        writer.comment(line, 0)
    writer.node(data, 0, ())
    return "".join(writer.out)


def verify(text: str, data: Any) -> None:
    """Read `text` back with the project's loader: it must be `data`."""
    from ..loader import load_text

    loaded = load_text(text, "<generated>").data
    if not _same(loaded, data):
        raise AssertionError("the generated YAML does not read back as the data it was written from")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


class _Writer:
    def __init__(self, comments: Comments) -> None:
        self.comments = comments
        self.out: list[str] = []

    def comment(self, text: str, level: int) -> None:
        import textwrap

        width = max(COMMENT_WIDTH - len(_INDENT) * level - 2, 40)
        for line in text.splitlines() or [""]:
            for part in textwrap.wrap(_one_line(line), width, break_long_words=False) or [""]:
                self.out.append(f"{_INDENT * level}# {part}".rstrip() + "\n")

    def node(self, value: Any, level: int, path: tuple[Any, ...]) -> None:
        if isinstance(value, Mapping) and value:
            self.mapping(value, level, path)
        elif isinstance(value, list) and value:
            self.sequence(value, level, path)
        else:
            self.out.append(_INDENT * level + self.inline(value, level) + "\n")

    def mapping(self, value: Mapping[str, Any], level: int, path: tuple[Any, ...], first: str = "") -> None:
        """The entries of `value` at `level`; the first line starts with `first` (a list item's `- `)."""
        prefix = first
        for index, (key, item) in enumerate(value.items()):
            here = (*path, key)
            for line in self.comments.get(here, ()):
                if index == 0 and first:
                    continue  # said above the list item
                self.comment(line, level)
            lead = prefix or _INDENT * level
            prefix = ""
            self.entry(lead + scalar(str(key)) + ":", item, level, here)

    def entry(self, lead: str, item: Any, level: int, path: tuple[Any, ...]) -> None:
        if isinstance(item, Mapping) and item:
            self.out.append(lead + "\n")
            self.mapping(item, level + 1, path)
        elif isinstance(item, list) and item and not _flow_list(item):
            self.out.append(lead + "\n")
            self.sequence(item, level + 1, path)
        elif isinstance(item, str) and "\n" in item and _literal_ok(item):
            self.out.append(lead + " " + ("|" if item.endswith("\n") else "|-") + "\n")
            for line in item.removesuffix("\n").split("\n"):
                self.out.append((_INDENT * (level + 1) + line).rstrip() + "\n" if line else "\n")
        else:
            self.out.append(lead + " " + self.inline(item, level) + "\n")

    def sequence(self, value: list[Any], level: int, path: tuple[Any, ...]) -> None:
        for index, item in enumerate(value):
            here = (*path, index)
            for line in self.comments.get(here, ()):
                self.comment(line, level)
            lead = _INDENT * level + "- "
            if isinstance(item, Mapping) and item:
                first_key = next(iter(item))
                for line in self.comments.get((*here, first_key), ()):
                    self.comment(line, level)
                self.mapping(item, level + 1, here, first=lead)
            elif isinstance(item, list) and item and not _flow_list(item):
                self.out.append(lead.rstrip() + "\n")
                self.sequence(item, level + 1, here)
            else:
                self.entry(lead.rstrip(), item, level, here) if isinstance(item, str) else self.out.append(
                    lead + self.inline(item, level) + "\n"
                )

    def inline(self, value: Any, level: int) -> str:
        if isinstance(value, Mapping):
            return "{}"
        if isinstance(value, list):
            return "[" + ", ".join(_flow_scalar(item) for item in value) + "]" if value else "[]"
        return scalar(value)


def _flow_list(items: list[Any]) -> bool:
    """Short lists of scalars read best in flow style: `[a, b]`."""
    if not all(isinstance(i, (str, int, float, bool)) or i is None for i in items):
        return False
    return len(", ".join(_flow_scalar(i) for i in items)) <= 80 and all("\n" not in str(i) for i in items)


def _flow_scalar(value: Any) -> str:
    if isinstance(value, str) and not (_FLOW_PLAIN.fullmatch(value) and value.lower() not in _RESERVED):
        return _quoted(value)
    return scalar(value)


def scalar(value: Any) -> str:
    """One scalar as YAML text (see the module docstring)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    text = str(value)
    return text if _plain_ok(text) else _quoted(text)


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _plain_ok(text: str) -> bool:
    if text.startswith(("./", "../")):  # a relative path: `.` starts no YAML token here
        text = "x" + text
    if not _PLAIN.fullmatch(text) or text.lower() in _RESERVED:
        return False
    return not (": " in text or " #" in text or text.endswith((":", " ")) or "  " in text)


def _quoted(text: str) -> str:
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    encoded = json.dumps(text, ensure_ascii=False)
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)


def _literal_ok(text: str) -> bool:
    body = text.removesuffix("\n")
    if not body or body.startswith((" ", "\n")) or "\t" in body or "\r" in body or body.endswith("\n"):
        return False
    if _ESCAPED.search(body) or re.search(r"[\x00-\x08\x0b-\x1f\x7f]", body):
        return False
    return all(line == line.rstrip() for line in body.split("\n"))


def _one_line(text: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f\u0080-\u009f\u2028\u2029]", " ", text)
