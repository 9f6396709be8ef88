"""Parsing fetched content with the project's loader into data plus a position lookup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import DocumentError, SourceError
from ..loader import load_text
from ..records import Record, field

Locate = Callable[[str], tuple[int, int]]


def _no_position(pointer: str) -> tuple[int, int]:
    return (0, 0)


class ParsedDoc(Record, frozen=True):
    """One parsed document: where it came from, its data and a pointer -> (line, column) lookup."""

    location: str
    data: Any = field(repr=False)
    locate: Locate = field(default=_no_position, repr=False, compare=False)

    def error(self, pointer: str, message: str) -> SourceError:
        line, column = self.locate(pointer)
        return SourceError(message, file=self.location, line=line, column=column, pointer=pointer or None)


def parse_source(content: bytes, location: str) -> ParsedDoc:
    """Parse YAML or JSON `content`; malformed text is a located `SourceError`."""
    try:
        # Positions are only needed for error messages: the loader builds them on first use.
        loaded = load_text(content, location, positions=False)
    except DocumentError as exc:
        raise SourceError(
            exc.message, file=exc.file, line=exc.line, column=exc.column, pointer=exc.pointer
        ) from None
    return ParsedDoc(location, loaded.data, loaded.positions.locate)
