"""A small JSON position scanner: character offsets of keys and values, keyed like the data.

It runs only when positions are needed or an error must be located, over text that `json` has already
accepted (or rejected for duplicates or nesting), so it skips validation and keeps an explicit stack.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from ..errors import DocumentError
from .limits import Limits
from .positions import NO_KEY, Entry, LineCol
from .text import line_col

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]|[^\s\[\]{},:"]+')


class _Frame:
    __slots__ = ("children", "expect_key", "is_map", "key", "key_loc", "loc")

    def __init__(self, is_map: bool, loc: int) -> None:
        self.is_map = is_map
        self.loc = loc
        self.children: Any = {} if is_map else []
        self.expect_key = is_map
        self.key = ""
        self.key_loc = NO_KEY


class JsonScanner:
    def __init__(self, text: str, file: str, limits: Limits) -> None:
        self.text = text
        self.file = file
        self.limits = limits
        self.stack: list[_Frame] = []
        self.root: Entry = (NO_KEY, 0, None)
        self.nodes = 0

    def scan(self) -> tuple[Entry, Callable[[int], LineCol]]:
        """The position index root; raises located errors for duplicate keys, depth and size."""
        for match in _TOKEN.finditer(self.text):
            self._token(match.group(), match.start())
        return self.root, offsets_to_line_col(self.text)

    def _token(self, token: str, offset: int) -> None:
        first = token[0]
        top = self.stack[-1] if self.stack else None
        if first == ",":
            if top is not None and top.is_map:
                top.expect_key = True
        elif first == ":":
            pass
        elif first in "]}":
            frame = self.stack.pop()
            self._add(self.stack[-1] if self.stack else None, frame.loc, frame.children)
        elif top is not None and top.expect_key:
            self._key(top, token, offset)
        else:
            self._value(top, first, offset)

    def _value(self, top: _Frame | None, first: str, offset: int) -> None:
        self.nodes += 1
        if self.nodes > self.limits.max_nodes:
            self._fail(f"document has more than {self.limits.max_nodes} nodes", offset)
        if first in "[{":
            if len(self.stack) >= self.limits.max_depth:
                self._fail(f"nesting is deeper than the limit of {self.limits.max_depth} levels", offset)
            self.stack.append(_Frame(first == "{", offset))
        else:
            self._add(top, offset, None)

    def _key(self, top: _Frame, token: str, offset: int) -> None:
        key = json.loads(token) if "\\" in token else token[1:-1]
        first = top.children.get(key)
        if first is not None:
            line = line_col(self.text, first[0])[0]
            self._fail(f"duplicate key {key!r} (first at line {line})", offset)
        top.key, top.key_loc, top.expect_key = key, offset, False

    def _add(self, top: _Frame | None, loc: int, children: Any) -> None:
        if top is None:
            self.root = (NO_KEY, loc, children)
        elif top.is_map:
            top.children[top.key] = (top.key_loc, loc, children)
        else:
            top.children.append((NO_KEY, loc, children))

    def _fail(self, message: str, offset: int) -> None:
        line, column = line_col(self.text, offset)
        raise DocumentError(message, file=self.file, line=line, column=column)


def offsets_to_line_col(text: str) -> Callable[[int], LineCol]:
    """A function from character offsets to 1-based (line, column), lines ending at '\\n'."""
    starts = [0]
    starts.extend(match.end() for match in re.finditer("\n", text))

    def to_line_col(offset: int) -> LineCol:
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    return to_line_col
