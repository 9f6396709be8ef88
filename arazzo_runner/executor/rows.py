"""The rows of `--inputs-file` (`arazzo run`, `arazzo load`, `ArazzoUser`): one JSON object per line,
blank lines skipped, each merged over the other inputs of its run. A library fact the command line and
the load test read alike: one format, one reader, one set of messages (a line that is not a JSON object
is a usage error naming the file and the line).

`RowFile` reads the file a line at a time, as often as it is iterated (`arazzo run` checks every row,
then reads them again to run them, holding only the rows in flight); stdin and any other file that can
be read once (`--inputs-file <(cmd)`: a pipe; a FIFO) are copied to a temporary file on the first
pass. JSON Lines needs no more: each row is parsed alone.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any, TextIO

from ..bounds import json_text
from ..errors import UsageError


def read_rows(path: str, stdin: TextIO | None = None) -> list[tuple[int, dict[str, Any]]]:
    """(line, object) per non-blank line; a line that is not a JSON object is a usage error."""
    with RowFile(path, stdin) as rows:
        return list(rows)


class RowFile:
    """The rows of `path` ('-': stdin), read again from the start by each iteration."""

    def __init__(self, path: str, stdin: TextIO | None = None) -> None:
        self.path = path
        self.stdin = stdin
        self.copy: IO[str] | None = None  # stdin's text, kept from the first pass for the next ones
        # what the last pass read: the copy, or the file as it was when opened (device, inode, size,
        # modification and change times); two passes that read the same (`opened` equal) read the same rows
        self.opened: tuple[Any, ...] | None = None
        self._reading: IO[str] | None = None  # the file the pass in progress reads (not a copy)
        # where its reads had got to (the offset in the file) when `unchanged` last found it as opened
        self._verified = -1

    def __enter__(self) -> RowFile:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.copy is not None:
            self.copy.close()
            self.copy = None

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        self.opened = None
        if self.copy is not None:
            self.copy.seek(0)
            self.opened = ("copy", id(self.copy))
            yield from self._parse(self.copy)
            return
        handle = None
        if self.path != "-":
            try:
                handle = open(self.path, encoding="utf-8")  # noqa: SIM115 (closed below)
            except OSError as exc:
                raise UsageError(f"--inputs-file: cannot read {self.path!r}: {exc.strerror or exc}") from None
            found = _regular(handle)
            if found is not None:
                self.opened, self._reading, self._verified = found, handle, -1
                try:
                    with handle:
                        yield from self._parse(handle)
                finally:
                    self._reading = None
                return
        # stdin, or a pipe (`--inputs-file <(cmd)`), a FIFO, a device: read once, kept for the next passes
        import tempfile  # only then: `arazzo run` imports this module on every start

        self.copy = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")  # noqa: SIM115
        self.opened = ("copy", id(self.copy))  # what the next passes read: what this one copies
        try:
            yield from self._parse(_copied(handle or self.stdin or sys.stdin, self.copy))
        finally:
            if handle is not None:
                handle.close()

    def unchanged(self) -> bool:
        """Whether the rows the pass in progress gave so far are what the file held when opened
        (`opened`): what a pass that opened the same file read. Asked after each row: the file is asked
        again (a `fstat`, ~1 µs) only when the pass has read more of it since it was last found as
        opened (every row of a read before that was read from the file as opened; the read's offset, a
        `tell`, costs a fifth). A copy never changes; a file that cannot be asked is taken as changed."""
        if self._reading is None:
            return self.copy is not None
        try:
            offset = self._reading.buffer.raw.tell()  # type: ignore[attr-defined]
            if offset == self._verified:  # nothing read since it was found as opened
                return True
            same = _regular(self._reading) == self.opened
        except (ValueError, OSError):  # closed
            return False
        if same:
            self._verified = offset
        return same

    def _parse(self, lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
        number = 0
        found = False
        try:
            for physical in lines:
                if not number:
                    physical = physical.removeprefix("\ufeff")  # a byte order mark, as editors may write
                for line in physical.splitlines():  # the breaks `str.splitlines` knows, as before
                    number += 1
                    if not line.strip():
                        continue
                    yield number, self._row(line, number)
                    found = True
        except UnicodeDecodeError as exc:
            raise UsageError(f"--inputs-file {self.path}, line {number + 1}: not UTF-8: {exc}") from None
        if not found:
            raise UsageError(f"--inputs-file {self.path}: no rows (one JSON object per line)")

    def _row(self, line: str, number: int) -> dict[str, Any]:
        """A row, read by the rule for JSON from outside (`bounds/json_text.py`): nesting deeper than 128
        levels is a usage error at its line, a lone surrogate reads as U+FFFD."""
        try:
            value = json_text.loads(line)
        except json_text.TooDeep as exc:
            raise UsageError(f"--inputs-file {self.path}, line {number}: not read: it {exc}") from None
        except ValueError as exc:
            raise UsageError(f"--inputs-file {self.path}, line {number}: not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise UsageError(f"--inputs-file {self.path}, line {number}: a row must be a JSON object")
        return value


def _regular(handle: IO[str]) -> tuple[int, ...] | None:
    """The file's device, inode, size, modification and change times (ns) when it can be read again from
    the start; None when not (a pipe, a FIFO or a terminal). The change time too: a writer may set the
    modification time back (`cp -p`, `touch -r`, `os.utime`) after rewriting a file to the same size,
    never the change time, which every write and every `utime` moves on."""
    try:
        found = os.fstat(handle.fileno())
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _copied(source: TextIO, copy: IO[str]) -> Iterator[str]:
    for line in source:
        copy.write(line)
        yield line
