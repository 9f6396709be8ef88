"""Strings with embedded runtime expressions: `{$..}` anywhere, and the bare `$..` form after a space.

A `{` that does not open a parseable expression closed by `}` is literal text (JSON and regex conditions are
full of braces); when it looked like one (`{$`), the error is kept in `Template.problems` for the validator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from ..errors import ExpressionError
from ..records import Record
from .ast import Expression
from .context import Context, Missing
from .lexer import DEFAULT_STOP
from .names import DeclaredNames
from .names import current as current_names
from .parser import parse_at
from .resolver import resolve


class Embedded(Record, frozen=True):
    """One expression inside a template; `start`/`end` span it in the template text (braces included).

    `braced` is False for the bare form (`Bearer $inputs.apiKey`), which a validator should flag.
    """

    expression: Expression
    braced: bool
    start: int
    end: int

    def __init__(self, expression: Expression, braced: bool, start: int, end: int) -> None:
        self.__dict__.update(expression=expression, braced=braced, start=start, end=end)  # frozen


class Template(Record, frozen=True):
    text: str
    parts: tuple[str | Embedded, ...]
    problems: tuple[ExpressionError, ...] = ()

    def __init__(self, text: str, parts: tuple[str | Embedded, ...], problems: tuple = ()) -> None:
        self.__dict__.update(text=text, parts=parts, problems=problems)  # frozen; one or more per step

    @property
    def embedded(self) -> tuple[Embedded, ...]:
        return tuple(p for p in self.parts if isinstance(p, Embedded))

    @property
    def is_constant(self) -> bool:
        return not any(isinstance(p, Embedded) for p in self.parts)

    def expressions(self) -> Iterator[Expression]:
        for part in self.parts:
            if isinstance(part, Embedded):
                yield part.expression

    def render(self, ctx: Context) -> str | Missing:
        """The text with every expression substituted; the first `Missing` if any value is missing."""
        chunks: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                chunks.append(part)
                continue
            value = resolve(part.expression, ctx)
            if isinstance(value, Missing):
                return value
            chunks.append(to_text(value))
        return "".join(chunks)


def to_text(value: Any) -> str:
    """How a value reads inside a string (Arazzo 1.1: scalars as text, parsed structures as JSON)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, (Mapping, list, tuple)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)
    return str(value)


def _json_default(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def parse_template(text: str, *, bare: bool = True) -> Template:
    """Split `text` into literal parts and embedded expressions (`bare=False` disables the bare form)."""
    return _parse_template(text, bare, current_names())


@lru_cache(maxsize=4096)
def _parse_template(text: str, bare: bool, names: DeclaredNames | None) -> Template:
    """`parse_template`, cached per text and the names the expressions read (`names.py`)."""
    parts: list[str | Embedded] = []
    problems: list[ExpressionError] = []
    literal_from = pos = 0
    while True:
        # an expression starts at a '$' or at the '{' before one: the text between is literal
        dollar = text.find("$", pos)
        if dollar == -1:
            break
        at = dollar - 1 if dollar > pos and text[dollar - 1] == "{" else dollar
        found = _embedded_at(text, at, bare, problems, names)
        if found is None:
            pos = at + 1
            continue
        if found.start > literal_from:
            parts.append(text[literal_from : found.start])
        parts.append(found)
        literal_from = pos = found.end
    if literal_from < len(text):
        parts.append(text[literal_from:])
    return Template(text, tuple(parts), tuple(problems))


def _embedded_at(
    text: str, pos: int, bare: bool, problems: list[ExpressionError], names: DeclaredNames | None
) -> Embedded | None:
    ch = text[pos]
    if ch == "{" and text.startswith("$", pos + 1):
        return _braced(text, pos, problems, names)
    if ch == "$" and bare and (pos == 0 or text[pos - 1].isspace()):
        return _bare(text, pos, names)
    return None


# the parser's uncached entry: this module caches the templates it builds
_NO_STOP: frozenset[str] = frozenset()
_BARE_STOP = frozenset(DEFAULT_STOP)


def _braced(
    text: str, pos: int, problems: list[ExpressionError], names: DeclaredNames | None
) -> Embedded | None:
    try:
        # inside braces only `}` ends the expression: the ABNF allows spaces in names and pointers
        expression, end = parse_at(text, pos + 1, _NO_STOP, names)
    except ExpressionError as error:
        # without its traceback: kept frames would make a text with many bad `{$` costly (GC work)
        problems.append(error.with_traceback(None))
        return None
    if not text.startswith("}", end):
        problems.append(ExpressionError("expected '}' to close the embedded expression", text, end))
        return None
    return Embedded(expression, True, pos, end + 1)


def _bare(text: str, pos: int, names: DeclaredNames | None) -> Embedded | None:
    # DESIGN: a bare expression counts only when complete and followed by whitespace or the end.
    try:
        expression, end = parse_at(text, pos, _BARE_STOP, names)
    except ExpressionError:
        return None
    if end < len(text) and not text[end].isspace():
        return None
    return Embedded(expression, False, pos, end)
