"""Map JSON pointers to source positions.

The index mirrors the data: every node has an entry `(key_loc, value_loc, children)` where `children`
is a dict (mapping members by key), a list (sequence items) or None (scalars). Locations are opaque
ints turned into 1-based (line, column) by a format-specific function, so YAML and JSON share the walk.
The index may be built lazily: JSON positions are only scanned when first asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import ArazzoError
from .pointer import parse_pointer

Children = dict[str, "Entry"] | list["Entry"] | None
Entry = tuple[int, int, Children]  # key_loc (-1 when the node has no key), value_loc, children
LineCol = tuple[int, int]
Pointer = str | Sequence[str | int]
Built = tuple[Entry, Callable[[int], LineCol]]

NO_KEY = -1


class PositionIndex:
    """Answers "where in the source is this node?"; builds itself on first use when given a builder."""

    def __init__(self, build: Callable[[], Built]) -> None:
        self._build: Callable[[], Built] | None = build
        self._root: Entry = (NO_KEY, 0, None)
        self._to_line_col: Callable[[int], LineCol] = _unknown

    @classmethod
    def of(cls, root: Entry, to_line_col: Callable[[int], LineCol]) -> PositionIndex:
        return cls(lambda: (root, to_line_col))

    def locate(self, pointer: Pointer) -> LineCol:
        """1-based position of the node's value, or of its nearest existing ancestor."""
        entry, _ = self._find(pointer)
        return self._to_line_col(entry[1])

    def locate_key(self, pointer: Pointer) -> LineCol:
        """1-based position of the mapping key naming the node; the value's position when it has none."""
        entry, _ = self._find(pointer)
        return self._to_line_col(entry[0] if entry[0] != NO_KEY else entry[1])

    def exists(self, pointer: Pointer) -> bool:
        """Whether the pointer reaches a node (rather than falling back to an ancestor)."""
        return self._find(pointer)[1]

    def _find(self, pointer: Pointer) -> tuple[Entry, bool]:
        self._ensure()
        entry = self._root
        for token in _tokens(pointer):
            child = _child(entry[2], token)
            if child is None:
                return entry, False
            entry = child
        return entry, True

    def _ensure(self) -> None:
        if self._build is not None:
            build, self._build = self._build, None
            self._root, self._to_line_col = build()


def _child(children: Children, token: str) -> Entry | None:
    if isinstance(children, dict):
        return children.get(token)
    if isinstance(children, list) and token.isdigit() and token.isascii():
        index = int(token)
        return children[index] if index < len(children) else None
    return None


def _tokens(pointer: Pointer) -> Sequence[str]:
    if not isinstance(pointer, str):
        return [str(token) for token in pointer]
    try:
        return parse_pointer(pointer)
    except ArazzoError:
        # A malformed pointer while reporting another error must not hide that error: use the root.
        return ()


def _unknown(loc: int) -> LineCol:
    return (1, 1)
