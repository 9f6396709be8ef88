"""LSP positions (`lsp/text.py`): lines are 0-based and columns count UTF-16 code units, so a character
outside the Basic Multilingual Plane (an emoji) counts two; the loader's 1-based lines and columns count
characters."""

from __future__ import annotations

from lsprotocol import types

from arazzo_runner.lsp.text import Lines

TEXT = "a\U0001f600b\nxyz\r\n\U0001f600\U0001f600c"


def test_a_character_outside_the_bmp_counts_two_units_both_ways() -> None:
    lines = Lines(TEXT)
    assert lines.position(2) == types.Position(line=0, character=3)  # before `b`, after `a` and 😀
    assert lines.offset(types.Position(line=0, character=3)) == 2
    assert lines.position(len(TEXT)) == types.Position(line=2, character=5)
    assert lines.offset(types.Position(line=2, character=4)) == TEXT.index("c")
    assert lines.offset(types.Position(line=2, character=99)) == len(TEXT)  # clamped to its line


def test_lines_and_the_loaders_columns() -> None:
    lines = Lines(TEXT)
    assert [lines.line_text(n) for n in range(4)] == ["a\U0001f600b", "xyz", "\U0001f600\U0001f600c", ""]
    assert lines.at_line_col(2, 1) == TEXT.index("x") and lines.at_line_col(2, 3) == TEXT.index("z")


def test_a_finding_range_covers_its_word_and_never_is_empty_inside_the_text() -> None:
    from types import SimpleNamespace

    from arazzo_runner.lsp.diagnostics import finding_range

    text = "steps: [get, put]\n"
    analysis = SimpleNamespace(lines=Lines(text), loaded=None, text=text)

    def at(column: int) -> tuple[tuple[int, int], tuple[int, int]]:
        found = finding_range(analysis, SimpleNamespace(line=1, column=column))
        return (found.start.line, found.start.character), (found.end.line, found.end.character)

    assert at(9) == ((0, 8), (0, 11))  # `get`
    assert at(12) == ((0, 11), (0, 12))  # the comma itself: one character, not an empty range
    assert at(99) == ((1, 0), (1, 0))  # past the end: where the text ends
