"""Character-level scanning for runtime expressions.

The expression grammar is context dependent (a header token, an identifier and a query name allow different
characters), so the lexer is a cursor with one method per lexical category and the parser picks the method its
grammar position needs. Every error carries the absolute offset in the scanned text.
"""

from __future__ import annotations

import string

from ..errors import ExpressionError
from ..loader.pointer import parse_pointer

# `{` and `}` can never be part of an expression: they delimit embedded expressions (Arazzo 1.1 ABNF).
ALWAYS_STOP = frozenset("{}")
WHITESPACE = " \t\r\n\f\v"
DEFAULT_STOP = WHITESPACE + "{}"

_ALNUM = frozenset(string.ascii_letters + string.digits)
ID_STRICT = _ALNUM | frozenset("-_")  # step/workflow ids, source names, accessor members
IDENTIFIER = ID_STRICT | frozenset(".")  # input/output/component names
TCHAR = _ALNUM | frozenset("!#$%&'*+-.^_`|~")  # RFC 9110 header token
DIGITS = frozenset(string.digits)


class Scanner:
    """A cursor over `text` starting at `pos`; `stop` characters end free-form runs."""

    def __init__(self, text: str, pos: int, stop: frozenset[str]) -> None:
        self.text = text
        self.pos = pos
        self.stop = stop | ALWAYS_STOP

    def peek(self, ahead: int = 0) -> str:
        index = self.pos + ahead
        return self.text[index] if index < len(self.text) else ""

    def error(self, message: str, pos: int | None = None) -> ExpressionError:
        return ExpressionError(message, self.text, self.pos if pos is None else pos)

    def accept(self, literal: str) -> bool:
        if self.text.startswith(literal, self.pos):
            self.pos += len(literal)
            return True
        return False

    def expect(self, literal: str, after: str) -> None:
        if not self.accept(literal):
            found = self.peek()
            got = f"{found!r}" if found else "the end"
            raise self.error(f"expected {literal!r} after {after!r}, found {got}")

    def run(self, chars: frozenset[str]) -> str:
        """Take the longest (possibly empty) run of `chars`, never crossing a stop character."""
        start = self.pos
        text, stop = self.text, self.stop
        end = len(text)
        pos = start
        while pos < end and text[pos] in chars and text[pos] not in stop:
            pos += 1
        self.pos = pos
        return text[start:pos]

    def take(self, chars: frozenset[str], what: str, after: str) -> str:
        """Take a non-empty run of `chars` naming `what`."""
        word = self.run(chars)
        if not word:
            found = self.peek()
            got = f"{found!r}" if found else "the end"
            raise self.error(f"expected {what} after {after!r}, found {got}")
        return word

    def until_stop(self) -> str:
        """Take everything up to the next stop character (free-form names, references, pointers)."""
        start = self.pos
        text, stop = self.text, self.stop
        end = len(text)
        pos = start
        while pos < end and text[pos] not in stop:
            pos += 1
        self.pos = pos
        return text[start:pos]

    def pointer(self) -> tuple[str, ...]:
        """Scan a JSON pointer after `#` (empty = whole value) and return its unescaped tokens."""
        start = self.pos
        raw = self.until_stop()
        if raw and not raw.startswith("/"):
            raise self.error("a JSON pointer must be empty or start with '/'", start)
        tilde = raw.find("~")
        while tilde != -1:
            if raw[tilde + 1 : tilde + 2] not in ("0", "1"):
                raise self.error("'~' must be followed by '0' or '1' in a JSON pointer", start + tilde)
            tilde = raw.find("~", tilde + 2)
        return parse_pointer(raw)

    def quoted(self) -> str:
        """Scan a '...' or "..." key; a backslash escapes the next character."""
        quote, start = self.peek(), self.pos
        self.pos += 1
        chars: list[str] = []
        while True:
            ch = self.peek()
            if not ch:
                raise self.error("unterminated quoted key", start)
            self.pos += 1
            if ch == quote:
                return "".join(chars)
            if ch == "\\":
                ch = self.peek()
                if not ch:
                    raise self.error("unterminated quoted key", start)
                self.pos += 1
            chars.append(ch)
