"""Offsets into a document's text and LSP positions: 0-based lines, columns in UTF-16 code units (the
encoding LSP 3.17 assumes unless both sides agree on another); the loader's positions are 1-based lines
and columns in characters."""

from __future__ import annotations

import bisect

from lsprotocol import types


class Lines:
    """The line starts of one text, for converting between character offsets and LSP positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self.starts.append(index + 1)

    def line_text(self, line: int) -> str:
        """Line `line` (0-based) without its line break; empty past the end."""
        if line >= len(self.starts):
            return ""
        start = self.starts[line]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    def position(self, offset: int) -> types.Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        before = self.text[self.starts[line] : offset]
        return types.Position(line=line, character=_utf16(before))

    def offset(self, position: types.Position) -> int:
        """The character offset of an LSP position (clamped to its line)."""
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[position.line]
        text = self.line_text(position.line)
        units = 0
        for index, char in enumerate(text):
            if units >= position.character:
                return start + index
            units += 2 if ord(char) > 0xFFFF else 1
        return start + len(text)

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(end))

    def at_line_col(self, line: int, column: int) -> int:
        """The offset of a 1-based (line, column in characters), as the loader and the findings give."""
        index = max(0, min(line - 1, len(self.starts) - 1))
        return min(self.starts[index] + max(column - 1, 0), len(self.text))


def _utf16(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)
