"""Turning raw input into checked text: size limit, decoding, emptiness, format sniffing."""

from __future__ import annotations

import codecs
import re
from typing import Any

from ..errors import DocumentError
from .limits import Limits

# Byte-order marks in the order they must be tested (UTF-32 LE starts with the UTF-16 LE mark).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_LEADING_SPACE = re.compile(r"[ \t\r\n]*")


def check_size(size: int, file: str, limits: Limits) -> None:
    if size > limits.max_bytes:
        raise DocumentError(
            f"document is {size} bytes, above the limit of {limits.max_bytes} bytes",
            file=file,
            line=1,
            column=1,
        )


def decode(raw: bytes | str, file: str, limits: Limits) -> str:
    """Checked text without a byte-order mark; DocumentError for oversize, undecodable or empty input."""
    if isinstance(raw, str):
        # A str has at most as many characters as its UTF-8 form has bytes: a cheap lower bound.
        check_size(len(raw), file, limits)
        text = raw[1:] if raw.startswith("\ufeff") else raw
        if not text.isascii():
            _check_encodable(text, file)
    else:
        check_size(len(raw), file, limits)
        text = _decode_bytes(raw, file)
    if not text.strip():
        raise DocumentError("document is empty", file=file, line=1, column=1)
    return text


def sniff(text: str, file: str) -> str:
    """Which parser to use: `json` when the name and the first character both say JSON, `json?` when
    only one does (try JSON, then YAML), else `yaml`."""
    start = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # the pattern always matches
    votes = (text[start : start + 1] in ("{", "["), file.lower().endswith(".json"))
    return "json" if all(votes) else "json?" if any(votes) else "yaml"


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset (lines end at '\\n')."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def _check_encodable(text: str, file: str) -> None:
    """A str handed in directly may hold lone surrogates (never produced by decoding bytes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line, column = line_col(text, exc.start)
        message = f"the text holds U+{ord(text[exc.start]):04X}, half of a UTF-16 surrogate pair"
        raise DocumentError(message, file=file, line=line, column=column) from None


def _decode_bytes(raw: bytes, file: str) -> str:
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return _decode(raw[len(bom) :], encoding, file, len(bom))
    return _decode(raw, "utf-8", file, 0)


def _decode(raw: bytes, encoding: str, file: str, skipped: int) -> str:
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        offset = skipped + exc.start
        line = raw.count(b"\n", 0, exc.start) + 1
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        column = len(raw[line_start : exc.start].decode(encoding, errors="replace")) + 1
        byte = raw[exc.start]
        raise DocumentError(
            f"the document is not valid {encoding.upper()}: byte 0x{byte:02x} at offset {offset}",
            file=file,
            line=line,
            column=column,
        ) from None


def read_bounded(stream: Any, size: int, limit: int) -> bytes:
    """Up to `limit + 1` bytes of an open binary file whose size was `size`: one right-sized read for
    the usual file (reading `limit + 1` at once would reserve the whole limit in memory), more reads
    only if the file grew or reports no size (e.g. under /proc)."""
    expected = min(size, limit)
    data = stream.read(expected + 1)
    if len(data) <= expected:
        return data
    return data + stream.read(limit + 1 - len(data))
