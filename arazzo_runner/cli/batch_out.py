"""What `--inputs-file` writes once the rows have run, made as each row ends so that no row is held after
it: the count of rows passed, the `--format json` document, `--report-json` and `--junit`. A finished
row's part of each is written to a temporary file (`Spool`) in the order the rows end, and the whole is
put together in row order at the end, byte for byte what one document built from every row would be
(the status and the totals come first, and are known last).

`--har` and `--record-http` (their exchanges in start order across the rows), `--html`, `--summary` and
the GitHub outputs are built from every row at once: with one of them the rows' results are held until
the end (`held`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from array import array
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from .batch_text import row_masker
from .common import dump_json, json_default
from .indented_json import indented

_HELD_REPORTS = ("har", "record_http", "html", "summary")
_ROWS = "arazzo-rows-4f1c"  # stands for the rows in the document's skeleton, replaced when written


class Spool:
    """Texts put under row numbers in any order, read back in row order; kept in a temporary file, so
    memory holds two numbers a row."""

    def __init__(self) -> None:
        self.file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`)
        self.where = array("q")
        self.sizes = array("q")
        self.end = 0

    def put(self, number: int, text: str) -> None:
        missing = number - len(self.where)
        if missing > 0:
            self.where.extend([-1] * missing)
            self.sizes.extend([0] * missing)
        data = text.encode("utf-8", "surrogatepass")
        self.file.seek(self.end)
        self.file.write(data)
        self.where[number - 1], self.sizes[number - 1] = self.end, len(data)
        self.end += len(data)

    def texts(self) -> Iterator[str]:
        for where, size in zip(self.where, self.sizes, strict=True):
            if where >= 0 and size:
                self.file.seek(where)
                yield self.file.read(size).decode("utf-8", "surrogatepass")

    def write(self, out: TextIO, head: str, separator: str, tail: str) -> None:
        first = True
        for text in self.texts():
            out.write(head if first else separator)
            out.write(text)
            first = False
        out.write(tail)

    def close(self) -> None:
        self.file.close()


def held(args: argparse.Namespace) -> bool:
    """Whether a report of every row at once is asked for: then the rows are held until the end."""
    from .github_flags import github_wanted

    return any(getattr(args, name, None) for name in _HELD_REPORTS) or github_wanted(args)


class RowsOut:
    """The rows' outputs, made as each row ends (`add`) and written by `finish`."""

    def __init__(self, args: argparse.Namespace, workspace: Any, spooled: bool = True) -> None:
        """`spooled`: the outputs are made as rows end (else only the counts are kept: `held`)."""
        self.args = args
        self.workspace = workspace
        self.rows = self.passed = self.workflows = 0
        self.failed = self.interrupted = False
        self.masked = True
        self.extras: Any = None  # the report's document path and graph, masked with every row's secrets
        self.json = Spool() if spooled and args.format == "json" else None
        self.report = Spool() if spooled and args.report_json else None
        self.junit = Spool() if spooled and args.junit else None
        self.totals: Any = None  # the JUnit report's counts (`--junit`): its module imported only then
        if self.junit is not None:
            from ..report.junit import Totals

            self.totals = Totals()
        self.tally: Any = None  # `--coverage`: what every row called, counted as each ends
        self._coverage: dict[str, Any] | None = None
        if getattr(args, "coverage", False):
            from ..report.coverage import Tally

            self.tally = Tally()

    def add(self, row: Any, result: Any, masker: Any) -> None:
        self.rows += 1
        self.passed += result.ok
        self.failed |= not result.ok
        self.interrupted |= result.interrupted
        self.workflows += len(result.workflows)
        self.masked &= masker.enabled
        if self.tally is not None:  # the names each row sent, masked with its secrets
            self.tally.add([result], masker.text)
        if self.json is not None:
            self.json.put(row.number, _entry(row, result, masker, exchanges=False))
        if self.report is not None:
            self.report.put(row.number, _entry(row, result, masker, exchanges=True))
            if self.extras is None:
                from .report_flags import run_extras

                self.extras = run_extras(self.args, self.workspace, masker)
            else:  # the graph quotes the document: every row's secrets masked
                self.extras = masker.data(self.extras)
        if self.junit is not None:
            from ..report.junit import suites_text
            from ..report.walk import Part

            self.junit.put(row.number, suites_text(Part(f"row {row.number}", result, masker), self.totals))

    def finish(self) -> list[str]:
        """Writes the report files, then the JSON document on stdout; why each report that could not be
        written was not."""
        try:
            failures = self._write_reports()
            if self.json is not None:
                from .report_flags import with_report_errors

                skeleton = with_report_errors(self._body(), failures)
                _write_document(sys.stdout, skeleton, self.json, json_default)
            return failures
        finally:
            for spool in (self.json, self.report, self.junit):
                if spool is not None:
                    spool.close()

    def coverage(self) -> dict[str, Any] | None:
        """The coverage section of every row (`--coverage`; None without it), counted across the rows."""
        if self.tally is not None and self._coverage is None:
            self._coverage = self.tally.section(self.workspace)
        return self._coverage

    def _body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": "failed" if self.failed else "passed", "rows": _ROWS}
        if self.interrupted:
            data["interrupted"] = True  # the rows that ran until Ctrl-C; those after were not started
        covered = self.coverage()
        if covered is not None:
            data["coverage"] = covered
        return data

    def _write_reports(self) -> list[str]:
        from .. import __version__

        failures: list[str] = []
        if self.report is not None:
            from ..report.json_report import report_document

            extras = self.extras or {}
            document = {**report_document(self._body(), self.masked, __version__), **extras}
            failures += _write("--report-json", self.args.report_json, self._writer(document))
        if self.junit is not None:
            failures += _write("--junit", self.args.junit, self._junit)
        return failures

    def _writer(self, document: dict[str, Any]) -> Callable[[TextIO], None]:
        report = self.report
        assert report is not None
        return lambda out: _write_document(out, document, report, None)

    def _junit(self, out: TextIO) -> None:
        from ..report.junit import SEPARATOR, junit_around, junit_xml

        assert self.junit is not None
        if not self.junit.end:  # no suite at all
            out.write(junit_xml([]))
            return
        head, tail = junit_around(self.totals)
        self.junit.write(out, head, SEPARATOR, tail)


def _entry(row: Any, result: Any, masker: Any, exchanges: bool) -> str:
    """A row's entry of the `rows` list, as `json.dumps(document, indent=2)` writes it there."""
    from ..report.json_report import result_dict

    entry = {
        "row": row.number,
        "line": row.line,
        "inputs": masker.inputs(row.values),
        "result": result_dict(result, masker, exchanges=exchanges),
    }
    shown = indented(entry, "    ")  # (plain data, as the usual entry is: ~3x cheaper than json.dumps)
    if shown is not None:
        return shown
    default = json_default if not exchanges else None
    return json.dumps(entry, indent=2, ensure_ascii=False, default=default).replace("\n", "\n    ")


def _write_document(out: TextIO, skeleton: dict[str, Any], rows: Spool, default: Any) -> None:
    """`skeleton` as indented JSON with the spooled rows in place of its `rows`."""
    text = json.dumps(skeleton, indent=2, ensure_ascii=False, default=default) + "\n"
    head, tail = text.split(json.dumps(_ROWS), 1)
    if not rows.end:
        out.write(head + "[]" + tail)
        return
    rows.write(out, head + "[\n    ", ",\n    ", "\n  ]" + tail)


def _write(flag: str, path: str, write: Callable[[TextIO], None]) -> list[str]:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            write(handle)
    except OSError as exc:
        message = f"{flag} {path}: cannot write: {exc.strerror or exc}"
        print(f"error: {message}", file=sys.stderr)
        return [message]
    return []


def write_held(
    rows: list[Any], workspace: Any, args: argparse.Namespace, text: bool, covered: dict[str, Any] | None
) -> list[str]:
    """The outputs of every row at once, once all ran (`held`; `rows` in row order): the report files,
    then the `--format json` document; why each report that could not be written was not."""
    results = [row.result for row in rows]
    maskers = [row_masker(row, workspace, args) for row in rows]
    extra = {} if covered is None else {"coverage": covered}
    failures = _write_reports(rows, results, maskers, args, workspace, extra)
    if not text:
        from .report_flags import with_report_errors

        dump_json(with_report_errors({**_json(rows, results, maskers), **extra}, failures))
    return failures


def _write_reports(
    rows: list[Any],
    results: list[Any],
    maskers: list[Any],
    args: argparse.Namespace,
    workspace: Any,
    extra: dict[str, Any],
) -> list[str]:
    """The report files of every row; why each one that could not be written was not."""
    from ..report.json_report import report_document
    from ..report.walk import Part
    from .report_flags import run_extras, write_reports

    labelled = zip(rows, results, maskers, strict=True)
    parts = [Part(f"row {row.number}", result, masker) for row, result, masker in labelled]
    masked = all(masker.enabled for masker in maskers)

    def document(version: str) -> dict[str, Any]:
        extras = run_extras(args, workspace, maskers[0])
        for masker in maskers[1:]:  # the graph quotes the document: every row's secrets masked
            extras = masker.data(extras)
        body = {**_json(rows, results, maskers, exchanges=True), **extra}
        return {**report_document(body, masked, version), **extras}

    return write_reports(args, parts, document)


def _json(rows: list[Any], results: list[Any], maskers: list[Any], exchanges: bool = False) -> dict[str, Any]:
    from ..report.json_report import result_dict

    entries = []
    for row, result, masker in zip(rows, results, maskers, strict=True):
        entries.append(
            {
                "row": row.number,
                "line": row.line,
                "inputs": masker.inputs(row.values),
                "result": result_dict(result, masker, exchanges=exchanges),
            }
        )
    status = "passed" if all(r.ok for r in results) else "failed"
    data: dict[str, Any] = {"status": status, "rows": entries}
    if any(r.interrupted for r in results):
        data["interrupted"] = True  # the rows that ran until Ctrl-C; those after were not started
    return data
