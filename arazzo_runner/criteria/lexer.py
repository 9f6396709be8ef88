"""Lexer of `simple` conditions: text -> tokens with their offsets.

Runtime expressions are scanned by the expressions package (`parse_expression_prefix`), which knows
where each kind of expression ends; everything else is scanned here.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any

from ..errors import ExpressionError
from ..records import Record
from .runtime import parse_expression_prefix

# Token kinds
NUMBER, STRING, EXPR, NAME = "number", "string", "expression", "name"
TRUE, FALSE, NULL = "true", "false", "null"
COMPARE, NOT, AND, OR = "comparison", "!", "&&", "||"
LPAREN, RPAREN, LBRACKET, RBRACKET, DOT, END = "(", ")", "[", "]", ".", "end"

# Characters that end a runtime expression operand (besides `{` `}` which always do).
EXPRESSION_STOP = " \t\r\n\f\v)=!<>&|,]"

_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")  # ASCII digits only
_DIGITS = frozenset("0123456789")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_SPACE = re.compile(r"\s*")
_KEYWORDS = {"true": TRUE, "false": FALSE, "null": NULL}
_PUNCTUATION = {"(": LPAREN, ")": RPAREN, "[": LBRACKET, "]": RBRACKET, ".": DOT}
_TWO_CHAR = {"==": COMPARE, "!=": COMPARE, "<=": COMPARE, ">=": COMPARE, "&&": AND, "||": OR}
_ONE_CHAR = {"<": COMPARE, ">": COMPARE, "!": NOT}
_HINTS = {
    "=": "use '==' to compare",
    "&": "use '&&' for 'and'",
    "|": "use '||' for 'or'",
    '"': "unterminated string",
}


class Token(Record, frozen=True):
    kind: str
    value: Any
    start: int
    end: int


_JSON_ESCAPES = MappingProxyType({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"})
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")


class Lexer:
    """Turns a condition into tokens; `notes` collects non-standard spellings that were accepted."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.notes: list[str] = []

    def tokens(self) -> list[Token]:
        found: list[Token] = []
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos >= len(self.text):
                found.append(Token(END, None, self.pos, self.pos))
                return found
            found.append(self._next())

    def error(self, message: str, pos: int | None = None) -> ExpressionError:
        return ExpressionError(message, self.text, self.pos if pos is None else pos)

    def _next(self) -> Token:
        text, pos = self.text, self.pos
        ch = text[pos]
        if ch == "$":
            return self._expression(pos)
        if ch == "{" and text.startswith("$", _SPACE.match(text, pos + 1).end()):  # type: ignore[union-attr]
            return self._braced_expression(pos)
        if ch in _DIGITS or (ch == "-" and text[pos + 1 : pos + 2] in _DIGITS):
            return self._number(pos)
        if ch in "'\"":
            return self._string(pos, ch)
        pair = text[pos : pos + 2]
        if pair in _TWO_CHAR:
            return self._emit(_TWO_CHAR[pair], pair, pos + 2)
        if ch in _ONE_CHAR:
            return self._emit(_ONE_CHAR[ch], ch, pos + 1)
        if ch in _PUNCTUATION:
            return self._emit(_PUNCTUATION[ch], ch, pos + 1)
        word = _NAME.match(text, pos)
        if word:
            return self._emit(_KEYWORDS.get(word.group(), NAME), word.group(), word.end())
        hint = _HINTS.get(ch, "expected a runtime expression, a literal or an operator")
        raise self.error(f"unexpected {ch!r}: {hint}")

    def _emit(self, kind: str, value: Any, end: int) -> Token:
        token = Token(kind, value, self.pos, end)
        self.pos = end
        return token

    def _expression(self, pos: int) -> Token:
        expression, end = parse_expression_prefix(self.text, pos, stop=EXPRESSION_STOP)
        return self._emit(EXPR, expression, end)

    def _braced_expression(self, pos: int) -> Token:
        # `{$statusCode} == 200` is not Arazzo syntax but appears in documents: accept it, note it.
        start = _SPACE.match(self.text, pos + 1).end()  # type: ignore[union-attr]
        expression, end = parse_expression_prefix(self.text, start, stop=EXPRESSION_STOP + "}")
        end = _SPACE.match(self.text, end).end()  # type: ignore[union-attr]
        if not self.text.startswith("}", end):
            raise self.error("expected '}' to close the embedded expression", end)
        self.notes.append(f"braces around {expression} are not needed in a simple condition (offset {pos})")
        return self._emit(EXPR, expression, end + 1)

    def _number(self, pos: int) -> Token:
        found = _NUMBER.match(self.text, pos)
        assert found is not None  # guarded by the caller: a digit, or '-' then a digit
        end = found.end()
        if _NAME.match(self.text, end) or self.text.startswith(".", end):
            raise self.error("malformed number", pos)
        literal = found.group()
        try:
            value: int | float = float(literal) if found.group(1) or found.group(2) else int(literal)
        except ValueError:  # more digits than Python converts (4300 by default)
            raise self.error(f"number too long ({len(literal)} characters)", pos) from None
        return self._emit(NUMBER, value, end)

    def _string(self, pos: int, quote: str) -> Token:
        if quote == '"':
            self.notes.append(f"double-quoted string at offset {pos}: Arazzo strings use single quotes")
            return self._double_quoted(pos)
        chars: list[str] = []
        index = pos + 1
        text = self.text
        while True:
            close = text.find("'", index)
            if close == -1:
                raise self.error("unterminated string (strings are written 'like this')", pos)
            chars.append(text[index:close])
            if text.startswith("'", close + 1):  # '' stands for one quote
                chars.append("'")
                index = close + 2
                continue
            return self._emit(STRING, "".join(chars), close + 1)

    def _double_quoted(self, pos: int) -> Token:
        # Extension: "text" with JSON's escapes (\n, \t, \", \\, \u00e9 ...), as Respect reads them; a
        # backslash before any other character stands for that character.
        chars: list[str] = []
        index = pos + 1
        text = self.text
        while index < len(text):
            ch = text[index]
            if ch == '"':
                return self._emit(STRING, "".join(chars), index + 1)
            if ch == "\\" and index + 1 < len(text):
                index += 1
                ch = text[index]
                if ch == "u" and _HEX4.fullmatch(text, index + 1, index + 5):
                    ch, index = chr(int(text[index + 1 : index + 5], 16)), index + 4
                else:
                    ch = _JSON_ESCAPES.get(ch, ch)
            chars.append(ch)
            index += 1
        raise self.error("unterminated string", pos)
