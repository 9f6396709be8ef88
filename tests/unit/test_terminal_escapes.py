"""Control characters never reach the terminal raw (`report/terminal.py`): console fields show them as
escapes, and the CLI's stdout/stderr escape what else passes, the way JSON does."""

from __future__ import annotations

import io
import json

import pytest

from arazzo_runner.report.terminal import OutputError, TerminalStream, escape, split_lines, unescaped

ATTACKS = "\x1b]52;c;ZXZpbA==\x07 \x1b]0;title\x07 a\rb\nc\td \x9b2J \x7f \u202egnp.exe \u2028 \x00"


def test_a_console_field_shows_every_control_character_as_an_escape():
    shown = escape(ATTACKS)
    assert shown == (
        r"\x1b]52;c;ZXZpbA==\x07 \x1b]0;title\x07 a\rb\nc\td \x9b2J \x7f \u202egnp.exe \u2028 \x00"
    )
    assert all(ord(char) >= 0x20 for char in shown)


def test_printable_text_is_left_alone():
    text = "café ✓ 東京 'quoted' \\ backslash"
    assert escape(text) is text


def test_bodies_are_split_at_line_ends_only():
    assert split_lines("a\r\nb\rc\n\nd\n") == ["a", "b\rc", "", "d"]
    assert split_lines("one line") == ["one line"]
    assert split_lines("") == []
    assert split_lines("x\u2028y\x0cz") == ["x\u2028y\x0cz"]  # escaped in the line, never a new line


def test_the_stream_escapes_controls_but_newlines_and_tabs():
    target = io.StringIO()
    stream = TerminalStream(target)
    stream.write("line\x1b[2J\tcell\nnext\r\u202e\n")
    assert target.getvalue() == "line\\u001b[2J\tcell\nnext\\u000d\\u202e\n"
    raw = unescaped(stream)  # the stream underneath, its failing writes made OutputError
    raw.write("\x1b[1m")
    assert target.getvalue().endswith("\n\x1b[1m") and raw.stream is target
    assert unescaped(target) is target
    assert unescaped(TerminalStream(raw)) is raw  # wrapped once, however often the CLI wraps it


class _Full(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_failing_write_is_an_output_error_and_a_closed_pipe_stays_one():
    stream = TerminalStream(_Full())
    for write in (stream.write, unescaped(stream).write):
        with pytest.raises(OutputError) as raised:
            write("x")
        assert raised.value.errno == 28 and raised.value.strerror == "No space left on device"
    with pytest.raises(BrokenPipeError):
        stream.flush()


def test_json_written_through_the_stream_stays_valid_and_means_the_same():
    value = {"c1": "\x9b2J", "bidi": "\u202e", "del": "\x7f", "esc": "\x1b"}
    target = io.StringIO()
    json.dump(value, TerminalStream(target), ensure_ascii=False)
    text = target.getvalue()
    assert all(char not in text for char in "\x9b\u202e\x7f\x1b")
    assert json.loads(text) == value


def test_the_stream_is_the_wrapped_one_for_everything_else():
    class Terminal(io.StringIO):
        encoding = "utf-8"

        def isatty(self) -> bool:
            return True

    stream = TerminalStream(Terminal())
    assert stream.isatty() and stream.encoding == "utf-8"
