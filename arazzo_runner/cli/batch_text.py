"""A row's text on the console (`arazzo run --inputs-file`, `--format text`): its trace held in a buffer
while it runs, then written whole under its header (`== row 2 (line 2): name=Rex, age=3`), masked with
the row's own secrets (`row_masker`), so that concurrent rows never interleave and a row's secret is
never printed."""

from __future__ import annotations

import argparse
import asyncio  # (rows only: they run on it; an import statement in `add` cost ~3 k instructions a row)
import io
import json
import sys
from typing import Any, TextIO

from ..report.terminal import escape, unescaped
from .report_flags import masker_for

_SUMMARY_LIMIT = 80


class RowBuffer(io.StringIO):
    """A row's trace, held while the row runs, that reports the encoding and terminal of the stdout it
    is written to: the console then uses the same marks (`✓`/`✗`) and colours as a single run. `facts`:
    the stdout's (`terminal_facts`), read once for every row rather than asked again for each."""

    def __init__(self, target: TextIO, facts: tuple[str | None, bool] | None = None) -> None:
        super().__init__()
        self.target = target
        self._facts = terminal_facts(target) if facts is None else facts

    @property
    def encoding(self) -> str | None:  # type: ignore[override]
        return self._facts[0]

    def isatty(self) -> bool:
        return self._facts[1]


def terminal_facts(target: TextIO) -> tuple[str | None, bool]:
    """(encoding, is a terminal) of the stream the rows' traces are written to."""
    return getattr(target, "encoding", None), target.isatty()


def shown_row(
    row: Any, result: Any, workspace: Any, args: argparse.Namespace, printed: list[int], held: Any = None
) -> None:
    """A row's end on the console: its summary, after its trace when that was held (then written by
    `held`, a `HeldText`, when given: with the rows that end beside it)."""
    close = getattr(row.options.on_event, "close", None)  # the row's progress line, if any
    if close is not None:
        close()
    if row.reporter is not None:
        row.reporter.summary(result)
    if row.buffer is not None:  # a whole row at once: concurrent traces never interleave
        out = unescaped(sys.stdout)  # the console escaped the trace itself, and coloured it
        text = header(row, row_masker(row, workspace, args), printed) + "\n" + row.buffer.getvalue()
        if held is None:
            out.write(text)
            out.flush()
        else:
            held.add(out, text)


class HeldText:
    """The rows' texts of one pass of the event loop, written when the pass is over rather than each as
    its row ends: the rows that end in one pass (~25 at 200 in flight, the loop busy) go out in one
    write, not a system call each (stdout unbuffered or not); in the same order, a pass later at most
    (microseconds). The rows' loop writes what is held when it ends, whatever ends it (`write`, from
    `batch._run_and_report`), before anything else is printed.

    A write that fails in the loop's callback (a closed pipe: `| head`; a full disk) is kept and raised
    in the task of the next row that ends (`add`), which stops the batch as a row's own write did: no
    new row starts, nothing more is sent. When no row ends after it, the rows' loop's last `write`
    raises it."""

    def __init__(self) -> None:
        self.out: TextIO | None = None
        self.texts: list[str] = []
        self.error: BaseException | None = None  # a write of the loop's callback failed with it
        self.told = False  # raised to somebody (a row's task, or the last write)

    def add(self, out: TextIO, text: str) -> None:
        if self.error is not None:
            self.told = True
            raise self.error
        if self.texts and out is not self.out:  # (another stream: what is held goes first)
            self.write()
        if not self.texts:
            asyncio.get_running_loop().call_soon(self._write_later)
        self.out = out
        self.texts.append(text)

    def _write_later(self) -> None:
        try:
            self.write()
        except Exception as exc:  # asyncio's handler would print it and the batch go on: kept for `add`
            self.error = exc

    def write(self) -> None:
        if self.error is not None and not self.told:
            self.told = True
            raise self.error
        if self.texts and self.out is not None:
            texts, self.texts = self.texts, []
            self.out.write("".join(texts))
            self.out.flush()


def header(row: Any, masker: Any, printed: list[int]) -> str:
    """The row's header line, after a blank line unless it is the first. `printed`: the number of the
    first row whose header is out, once there is one (one number whatever the rows: memory stays flat)."""
    gap = "\n" if printed else ""
    if not printed:
        printed.append(row.number)
    values = row.values
    plain = masker.leaves() and not masker.named and _flat_without_at(values)
    shown = values if plain else masker.inputs(values, as_text=True)
    return f"{gap}== row {row.number} (line {row.line}): {escape(summary(shown))}"


def _flat_without_at(values: dict[str, Any]) -> bool:
    """Whether every key and value is a text without `@`, a number or a constant: with no secret known
    to mask (`Masker.leaves`), masking them (`Masker.data`) changes nothing (a URL's password, after an
    `@`, is all it could change), so the row's values are shown as they are, not copied first."""
    for key, value in values.items():
        kind = type(value)
        if type(key) is not str or "@" in key:
            return False
        if kind is str:
            if "@" in value:
                return False
        elif not (kind is int or kind is float or kind is bool or value is None):
            return False
    return True


def summary(values: dict[str, Any]) -> str:
    """`name=Rex, age=3, ...`: the row's keys with short values, within one line."""
    parts = []
    for key, value in values.items():
        kind = type(value)
        if kind is str:
            text = value
        elif kind is int:  # json.dumps's spelling of an int, without its encoder (~2 µs a value)
            text = str(value)
        elif value is None or kind is bool:  # as json.dumps spells them
            text = "null" if value is None else "true" if value else "false"
        else:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        parts.append(f"{key}={text if len(text) <= 24 else text[:21] + '...'}")
    line = ", ".join(parts) or "(no inputs)"
    return line if len(line) <= _SUMMARY_LIMIT else line[: _SUMMARY_LIMIT - 3] + "..."


def row_masker(row: Any, workspace: Any, args: argparse.Namespace) -> Any:
    """The row's masker, as a single run's (its credentials, `format: password` / `writeOnly` inputs;
    off with --no-mask), once its run is over: made once for its trace's header, its entry in the
    reports and its summary (it reads the row's secrets as they are when it masks). The row's console
    reporter has one made the same way, over the same secrets: that one."""
    if row.masker is None:
        reporter = row.reporter
        if reporter is not None:
            row.masker = reporter.masker
        else:
            row.masker = masker_for(args, row.options, workspace)
    return row.masker
