"""A small `.env` reader: `KEY=VALUE` lines, `#` comments, optional `export`, single or double quotes.

Nothing is executed or expanded: `$VAR`, `${VAR}` and backticks stay as written. Double-quoted values
understand `\\n`, `\\t`, `\\r`, `\\"` and `\\\\`; single-quoted values are literal; both may span lines.
An unquoted value ends at a ` #` comment and is stripped.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType

from ..errors import UsageError

_KEY = re.compile(r"[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*")
_ESCAPES = MappingProxyType({"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"})


def read_dotenv(path: Path) -> dict[str, str]:
    """The variables of a `.env` file; a line that is not `KEY=VALUE` is a usage error naming it."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc} (use --no-dotenv to skip it)") from None
    return parse_dotenv(text, str(path))


def parse_dotenv(text: str, name: str = ".env") -> dict[str, str]:
    values: dict[str, str] = {}
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        number = index + 1
        index += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.match(line)
        if match is None:
            raise UsageError(f"{name}:{number}: expected KEY=VALUE (use --no-dotenv to skip the file)")
        rest = line[match.end() :]
        if rest[:1] in ("'", '"'):
            value, index = _quoted(rest, lines, index, name, number)
        else:
            value = _unquoted(rest)
        values[match.group(1)] = value
    return values


def _unquoted(rest: str) -> str:
    """`value  # comment` -> `value`; a `#` inside the value (no space before it) is kept."""
    comment = re.search(r"[ \t]#", rest)
    return (rest[: comment.start()] if comment else rest).strip()


def _quoted(rest: str, lines: list[str], index: int, name: str, number: int) -> tuple[str, int]:
    """A quoted value, possibly continued on the following lines; returns it and the next line index."""
    quote, text = rest[0], rest[1:]
    chunks: list[str] = []
    while True:
        value, closed, tail = _scan(text, quote)
        chunks.append(value)
        if closed:
            if tail.strip() and not tail.lstrip().startswith("#"):
                raise UsageError(f"{name}:{number}: unexpected text after the closing quote")
            return "".join(chunks), index
        if index >= len(lines):
            raise UsageError(f"{name}:{number}: the quoted value is never closed")
        chunks.append("\n")
        text, index = lines[index], index + 1


def _scan(text: str, quote: str) -> tuple[str, bool, str]:
    """Read up to the closing quote: (value, closed?, text after the quote)."""
    out: list[str] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char == quote:
            return "".join(out), True, text[position + 1 :]
        if char == "\\" and quote == '"' and position + 1 < len(text) and text[position + 1] in _ESCAPES:
            out.append(_ESCAPES[text[position + 1]])
            position += 2
            continue
        out.append(char)
        position += 1
    return "".join(out), False, ""
