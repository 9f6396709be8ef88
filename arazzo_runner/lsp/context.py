"""Where the cursor is, read from the text as it is now (it may not parse while a line is being typed):
the key whose value is typed, what is typed before the cursor, and the keys of the enclosing mappings.

YAML block style is read by indentation: the ancestors of a line are the lines above it whose keys sit
further left (a sequence item's `- ` counts as indentation; a compact sequence under its key, at the
key's own column, is understood). In JSON, or in a YAML flow collection, only the key on the cursor's
line is known; the enclosing keys come from the last text that parsed (`Cursor.pointer`).
"""

from __future__ import annotations

import re

from ..records import Record, field

_KEY_VALUE = re.compile(r"""^(\s*)(-\s+)?["']?([^\s"':#{}\[\],][^"':#{}\[\],]*?)["']?\s*:(?:\s+|$)(.*)$""")
_ITEM = re.compile(r"^(\s*)-\s+(.*)$")
_KEY_TYPED = re.compile(r"""^(\s*)(-\s+)?["']?([\w$-]*)$""")


class Cursor(Record, frozen=True):
    """`key`: the key whose value is typed (None while a key itself is typed, or a sequence item's
    scalar); `typed`: the value (or key) typed so far, quotes left out; `item`: a `- value` line;
    `ancestors`: the keys of the enclosing mappings, outermost first (YAML block style)."""

    key: str | None
    typed: str
    item: bool = False
    typing_key: bool = False
    ancestors: tuple[str, ...] = field(default_factory=tuple)
    line: int = 0  # 0-based
    column: int = 0  # the cursor's character offset in its line


def cursor_at(lines: list[str], line: int, column: int) -> Cursor:
    """The cursor at `column` characters into 0-based `line` of `lines`."""
    text = lines[line] if line < len(lines) else ""
    before = text[:column]
    ancestors = tuple(_ancestors(lines, line, _key_column(before)))
    match = _KEY_VALUE.match(before)
    if match:
        typed = match.group(4).lstrip("\"'")
        return Cursor(match.group(3), typed, ancestors=ancestors, line=line, column=column)
    match = _KEY_TYPED.match(before)
    if match and not (match.group(2) and before.rstrip().endswith(("$", "."))):
        if match.group(2) and ancestors and ancestors[-1] in _ITEM_VALUE_KEYS:
            return Cursor(None, match.group(3), item=True, ancestors=ancestors, line=line, column=column)
        return Cursor(None, match.group(3), typing_key=True, ancestors=ancestors, line=line, column=column)
    match = _ITEM.match(before)
    if match:
        typed = match.group(2).lstrip("\"'")
        return Cursor(None, typed, item=True, ancestors=ancestors, line=line, column=column)
    return Cursor(None, before.strip().lstrip("\"'"), ancestors=ancestors, line=line, column=column)


_ITEM_VALUE_KEYS = frozenset({"dependsOn"})  # sequences of scalars: an item typed is a value


def _key_column(text: str) -> int:
    """The column of the key a line holds (or would hold): after its indentation and any `- `."""
    column = len(text) - len(text.lstrip(" "))
    rest = text[column:]
    while rest.startswith("- ") or rest == "-":
        column += 2
        rest = rest[2:].lstrip(" ") if len(rest) > 1 else ""
        column += len(text[column:]) - len(text[column:].lstrip(" ")) if rest else 0
    return column


def _ancestors(lines: list[str], line: int, column: int) -> list[str]:
    """The keys of the mappings enclosing a key at `column` on `line`, outermost first."""
    found: list[str] = []
    limit = column  # an ancestor's key sits left of this
    dash_at: int | None = None  # the `- ` of the sequence item we are in: its key may sit at that column
    for index in range(line - 1, -1, -1):
        text = lines[index]
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(text) - len(text.lstrip(" "))
        key_column = _key_column(text)
        if stripped.startswith("-") and indent < limit and dash_at is None:
            dash_at = indent  # the item holding the cursor's mapping
            limit = indent
            continue
        match = _KEY_VALUE.match(text)
        if match is None:
            continue
        if key_column < limit or (
            dash_at is not None and key_column == dash_at and not match.group(4).strip()
        ):
            if match.group(2):  # `- key: value`: an item's first key, at the item's column
                if key_column < column and dash_at is None:
                    dash_at = indent
                    limit = indent
                continue
            if match.group(4).strip() and match.group(4).strip() not in ("|", ">", "|-", ">-"):
                continue  # a scalar value: not a mapping above us
            found.append(match.group(3))
            limit = key_column
            dash_at = None
            if limit == 0:
                break
    return found[::-1]
