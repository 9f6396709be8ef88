"""The console is not the server's terminal: control characters in what the CLI prints are escaped.

Servers and documents control much of what a run prints (bodies and headers with `--verbose`, criteria
messages, outputs, errors). Printed raw, `ESC ]52` would write the user's clipboard, `ESC ]0` the window
title, a carriage return or a newline could forge a `✓ passed` line, a right-to-left override reorder
what is read. Two layers keep them out:

- `escape` for the fields of the run's console (`ConsoleReporter`): each printed line is one line, so
  every control character, newlines included, is shown as an escape (`\\n`, `\\r`, `\\x1b`, `\\u202e`);
  a multi-line body is split at its line ends first (`split_lines`).
- `TerminalStream`, wrapped around stdout and stderr by the CLI: whatever else reaches them (error
  messages, `validate` findings, JSON documents) has its control characters other than the newline and
  the tab escaped as `\\u001b`, the form JSON itself uses, so a JSON document stays valid and means the
  same. The console's own colours and the progress line are written to the stream underneath
  (`unescaped`).
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

# The bidirectional formatting characters (embeddings, overrides, isolates, marks) and the Unicode line
# and paragraph separators; with the C0 and C1 controls and DEL, what is never printed raw.
_INVISIBLE = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_FIELD = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}]")
_STREAM = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}]")  # a newline and a tab pass
_LINE_END = re.compile(r"\r?\n")


def escape(text: str) -> str:
    """One line of console output with every control character shown as an escape."""
    return _FIELD.sub(_escaped, text) if _FIELD.search(text) else text


def split_lines(text: str) -> list[str]:
    """The lines of a multi-line text (a body): split at `\\n` and `\\r\\n` only, so any other control
    character (a lone `\\r`, a form feed, U+2028) stays in its line, to be escaped there."""
    if not text:
        return []
    lines = _LINE_END.split(text)
    if lines[-1] == "" and len(lines) > 1:
        lines.pop()  # a final line end ends the last line; it does not start another
    return lines


def _escaped(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in "\n\r\t":
        return "\\" + "nrt"["\n\r\t".index(char)]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


class OutputError(OSError):
    """A write to stdout or stderr failed for a reason other than its reader leaving (a full disk, a
    quota, an I/O error): the CLI says so in one line and exits nonzero, where the write's own OSError
    would end the command on a traceback (`cli._main`). A closed pipe stays a `BrokenPipeError`."""


class OutputGuard:
    """The stream under a `TerminalStream`: its writes and flushes raise `OutputError` for a failing
    OSError; everything else (isatty, fileno, encoding...) is the stream's own."""

    __slots__ = ("stream",)

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc.errno, exc.strerror) from exc

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc.errno, exc.strerror) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class TerminalStream:
    """A text stream that escapes the control characters written to it (all but `\\n` and `\\t`), as
    JSON does; everything else (isatty, encoding, flush...) is the wrapped stream's, whose failing
    writes raise `OutputError` (`OutputGuard`)."""

    def __init__(self, stream: TextIO) -> None:
        self.unescaped: Any = stream if isinstance(stream, OutputGuard) else OutputGuard(stream)

    def write(self, text: str) -> int:
        self.unescaped.write(_STREAM.sub(_json_escaped, text) if _STREAM.search(text) else text)
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.unescaped.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unescaped, name)


def unescaped(stream: Any) -> Any:
    """The stream under a `TerminalStream` (the stream itself otherwise): for output that escapes its
    fields itself and adds escape sequences of its own (colours, the progress line)."""
    return getattr(stream, "unescaped", stream) if isinstance(stream, TerminalStream) else stream


@contextlib.contextmanager
def escaped_stdio() -> Iterator[None]:
    """stdout and stderr wrapped in `TerminalStream` for the duration (the CLI's whole run)."""
    saved = sys.stdout, sys.stderr
    sys.stdout = TerminalStream(unescaped(sys.stdout))
    sys.stderr = TerminalStream(unescaped(sys.stderr))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
