"""Parsing fetched content with the project's loader into data plus a position lookup."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import DocumentError, SourceError
from ..loader import PositionIndex, load_text
from ..records import Record, field
from .stored import MIN_BYTES

if TYPE_CHECKING:
    from .stored import ParsedStore

Locate = Callable[[str], tuple[int, int]]
Parse = Callable[[bytes, str], "ParsedDoc"]


def _no_position(pointer: str) -> tuple[int, int]:
    return (0, 0)


class ParsedDoc(Record, frozen=True):
    """One parsed document: where it came from, its data and a pointer -> (line, column) lookup."""

    location: str
    data: Any = field(repr=False)
    locate: Locate = field(default=_no_position, repr=False, compare=False)
    format: str = field(default="", repr=False, compare=False)  # "yaml" or "json", as the loader read it
    facts: Any = field(default=None, repr=False, compare=False)  # `stored.Facts` when read through the store

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
    return ParsedDoc(location, loaded.data, loaded.positions.locate, loaded.format)


def parse_stored(
    content: bytes, location: str, store: ParsedStore, parse: Parse, floor: int | None = None
) -> ParsedDoc:
    """`content` read from the local file `location`: its data read back from `store` when these exact
    bytes were parsed before (by any process), else `parse(content, location)` and kept there for the
    next one (a document that does not parse raises, and is never stored). Either way its positions
    come from the store, or from the text on first use (and are then stored): the same lines and
    columns as a parse would give. `floor`: the store's (`ParsedStore.data`)."""
    floor = MIN_BYTES if floor is None else floor
    found = store.data(location, content, floor)
    if found is None:
        parsed = parse(content, location)
        data, kind = parsed.data, parsed.format
        store.keep_data(location, content, data, kind, floor)
    else:
        data, kind = found
    from .stored import Facts

    index = stored_positions(store, location, content, kind, floor)
    return ParsedDoc(location, data, index.locate, kind, Facts(store, location, content, floor))


def stored_positions(
    store: ParsedStore, location: str, content: bytes, kind: str, floor: int
) -> PositionIndex:
    """The position index of a document whose data came from `store`: built on first use (`_positions`)."""
    return PositionIndex(lambda: _positions(store, location, content, kind, floor))


def _positions(store: ParsedStore, location: str, content: bytes, kind: str, floor: int) -> tuple[Any, Any]:
    """The position index's entries: stored ones, else built from the text (as the loader's lazy
    index would) and stored for the next process that needs to locate a finding in this document."""
    from ..loader.load import build_positions, line_col_function

    root = store.positions(location, content, floor)
    if root is not None:
        return root, line_col_function(kind, content, location)
    root, to_line_col = build_positions(content, location, kind)
    store.keep_positions(location, content, root, floor)
    return root, to_line_col
