"""A string a schema's `pattern` matches, for the example inputs (`^CR[0-9a-fA-F]{32}$` -> `CR000...0`).

A small reader of the regular expressions descriptions write: literals and escapes, `.`, classes
(ranges, negation, `\\d\\w\\s`), groups (capturing, named, non-capturing) with alternatives (the first
is taken), quantifiers (`*`, `+`, `?`, `{n}`, `{n,m}`, lazy too) and anchors. What it does not read
(lookarounds, backreferences, Unicode properties), a pattern over 2,000 characters and a string over
4,096 give None: the caller tries other values, and checks whatever it gets against the schema, which
uses the real matcher. `short` takes each quantifier's least count, otherwise one more (a `minLength`
may need it).
"""

from __future__ import annotations

from types import MappingProxyType

_ESCAPES = MappingProxyType(
    {"d": "1", "w": "a", "s": " ", "D": "a", "W": "-", "S": "a", "t": "\t", "n": "\n", "r": "\r"}
)
_ANCHORS = frozenset("bBAZzG")
_CANDIDATES = "a1A-_. x0zZ9"
_MAX_REPEAT = 64
MAX_PATTERN = 2000  # characters read; a longer pattern gives None
MAX_LENGTH = 4096  # characters written; a pattern that needs more gives None


class _Unsupported(Exception):
    pass


def pattern_example(pattern: str, short: bool = True) -> str | None:
    if len(pattern) > MAX_PATTERN:
        return None
    try:
        reader = _Reader(pattern, short)
        text = reader.alternatives()
        if reader.pos != len(pattern):
            return None  # an unbalanced `)`
        return text
    except (_Unsupported, IndexError, ValueError, RecursionError):
        return None


class _Reader:
    def __init__(self, pattern: str, short: bool) -> None:
        self.text, self.pos, self.short = pattern, 0, short

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def alternatives(self) -> str:
        first = self.sequence()
        while self.peek() == "|":
            self.pos += 1
            self.sequence()  # read past the other alternatives; the first one is the example
        return first

    def sequence(self) -> str:
        out, length = [], 0
        while self.peek() not in ("", "|", ")"):
            atom = self.atom()
            count = self.repeat()
            length += len(atom) * count
            if length > MAX_LENGTH:
                raise _Unsupported("too long")
            out.append(atom * count)
        return "".join(out)

    def atom(self) -> str:
        char = self.text[self.pos]
        self.pos += 1
        if char in "^$":
            return ""
        if char == ".":
            return "a"
        if char == "\\":
            return self.escape(in_class=False)
        if char == "[":
            return self.char_class()
        if char == "(":
            return self.group()
        if char in "*+?{":
            raise _Unsupported(char)  # a quantifier with nothing before it
        return char

    def escape(self, in_class: bool) -> str:
        char = self.text[self.pos]
        self.pos += 1
        if char in _ESCAPES:
            return _ESCAPES[char]
        if char in _ANCHORS and not in_class:
            return ""
        width = {"x": 2, "u": 4}.get(char)
        if width and len(self.text) >= self.pos + width:
            value = self.text[self.pos : self.pos + width]
            self.pos += width
            return chr(int(value, 16))
        if char.isdigit() or char in "pPk":
            raise _Unsupported(char)  # backreferences, Unicode properties
        return char

    def char_class(self) -> str:
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        members: list[tuple[str, str]] = []
        first = True
        while self.peek() != "]" or first:
            first = False
            char = self.text[self.pos]
            self.pos += 1
            low = self.escape(in_class=True) if char == "\\" else char
            if self.peek() == "-" and self.text[self.pos + 1] != "]":
                self.pos += 1
                high = self.text[self.pos]
                self.pos += 1
                if high == "\\":
                    high = self.escape(in_class=True)
                members.append((low, high))
            else:
                members.append((low, low))
        self.pos += 1  # the `]`
        if not negated:
            return members[0][0]
        for candidate in _CANDIDATES:
            if not any(low <= candidate <= high for low, high in members):
                return candidate
        raise _Unsupported("[^...]")

    def group(self) -> str:
        if self.peek() == "?":
            kind = self.text[self.pos + 1]  # an IndexError at the end: not a pattern we read
            if kind == ":":
                self.pos += 2
            elif kind in "P<" and self.text[self.pos + 1 : self.pos + 3] not in ("<=", "<!"):
                self.pos = self.text.index(">", self.pos) + 1
            else:
                raise _Unsupported("(?" + kind)  # lookarounds, flags
        inner = self.alternatives()
        if self.peek() != ")":
            raise _Unsupported("(")
        self.pos += 1
        return inner

    def repeat(self) -> int:
        char = self.peek()
        low, high = 1, 1
        if char and char in "*+?":
            self.pos += 1
            low, high = {"*": (0, _MAX_REPEAT), "+": (1, _MAX_REPEAT), "?": (0, 1)}[char]
        elif char == "{" and "}" in self.text[self.pos :]:
            close = self.text.index("}", self.pos)
            body = self.text[self.pos + 1 : close]
            parts = body.split(",")
            if not all(p.strip().isdigit() or p.strip() == "" for p in parts) or not parts[0].strip():
                return 1  # a literal `{`
            self.pos = close + 1
            low = int(parts[0])
            high = low if len(parts) == 1 else int(parts[1]) if parts[1].strip() else low + _MAX_REPEAT
        else:
            return 1
        if self.peek() and self.peek() in "?+":
            self.pos += 1  # lazy or possessive
        count = low if self.short else min(max(low, 1) + 1, high)
        return count
