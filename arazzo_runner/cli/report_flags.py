"""The output flags of `arazzo run`: --verbose, --no-mask, --no-progress, --report-json, --junit, --har,
--dry-run. Every writer masks through the run's one Masker (`arazzo_runner.masking.secrets`)."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import ArazzoError, UsageError
from ..masking.secrets import Masker
from .common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, dump_json
from .github_flags import add_github_flag, github_wanted

NO_MASK_WARNING = "warning: --no-mask: secrets are shown in clear; use it only for local debugging"
_REPORTS = (
    ("report_json", "--report-json"),
    ("junit", "--junit"),
    ("har", "--har"),
    ("record_http", "--record-http"),
    ("html", "--html"),
    ("summary", "--summary"),
)


def add_report_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="print each request and response (headers, bodies cut at 2 KB), secrets masked",
    )
    run.add_argument("--report-json", metavar="PATH", help="write the result with every exchange as JSON")
    run.add_argument("--junit", metavar="PATH", help="write a JUnit XML report (a testsuite per workflow)")
    run.add_argument("--har", metavar="PATH", help="write every HTTP exchange as a HAR 1.2 file")
    run.add_argument(
        "--record-http",
        metavar="FILE",
        help="write every HTTP exchange as a HAR 1.2 file to replay (--replay-http): bodies whole, "
        "secrets masked even with --no-mask",
    )
    run.add_argument(
        "--replay-http",
        metavar="FILE",
        help="answer every request from the HAR file FILE (--record-http's, a browser's, Playwright's): "
        "nothing is sent; a request it does not hold fails its step",
    )
    run.add_argument(
        "--html",
        metavar="PATH",
        help="write the run as one self-contained HTML page: flow graph, each step's exchanges, criteria "
        "and expressions, a timeline (docs/reports.md)",
    )
    run.add_argument(
        "--summary",
        metavar="PATH",
        help="write a Markdown summary of the run (in GitHub Actions it is appended to $GITHUB_STEP_SUMMARY "
        "with or without this flag: see --github)",
    )
    add_github_flag(run)
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print the requests of the linear path (each step assumed to pass) without sending them",
    )
    run.add_argument(
        "--no-mask", action="store_true", help="show secrets in clear (local debugging only; warns)"
    )
    run.add_argument(
        "--no-progress", action="store_true", help="no progress line on a terminal for steps over 1 s"
    )


def check_report_flags(args: argparse.Namespace) -> None:
    """Before anything runs: report folders exist, and --dry-run is not asked for reports of a run."""
    reports = [(flag, getattr(args, name)) for name, flag in _REPORTS if getattr(args, name)]
    for flag, path in reports:
        if not Path(path).resolve().parent.is_dir():
            raise UsageError(f"{flag} {path}: the folder does not exist")
    replay = getattr(args, "replay_http", None)
    if replay is not None and not replay.strip():
        raise UsageError("--replay-http: an empty file name; give the HAR file's path")
    if replay and args.dry_run:
        raise UsageError("--replay-http: a dry run sends nothing, so nothing is answered; leave one out")
    if replay and getattr(args, "temporal", None):
        raise UsageError("--replay-http: a run on Temporal sends from its workers; replay it locally")
    if args.dry_run and reports:
        raise UsageError(f"--dry-run sends nothing, so it writes no report ({reports[0][0]})")
    if args.dry_run and getattr(args, "inputs_file", None):
        raise UsageError("--dry-run cannot be combined with --inputs-file")


def traced(args: argparse.Namespace) -> bool:
    """Whether the run records each step in detail (`RunOptions.trace`): for the reports that show it,
    and for the Markdown summary and GitHub annotations, which say where each step is written."""
    if getattr(args, "report_json", None) or getattr(args, "html", None) or getattr(args, "summary", None):
        return True
    return github_wanted(args)


def masker_for(args: argparse.Namespace, options: Any, workspace: Any) -> Masker:
    masker = Masker.for_run(options, workspace, enabled=not args.no_mask)
    masker.named = getattr(args, "secret_inputs", ())  # a row's secret inputs (`run.secret_row_inputs`)
    return masker


_CONSOLE: Any = None  # `report.console.ConsoleReporter`, once imported


def _console_class() -> Any:
    """The console reporter's class, imported on first use (JSON output off a terminal never needs it)
    and kept: an import statement costs ~2 µs a call, paid by each row of `--inputs-file`."""
    global _CONSOLE
    if _CONSOLE is None:
        from ..report.console import ConsoleReporter

        _CONSOLE = ConsoleReporter
    return _CONSOLE


def attach_output(
    args: argparse.Namespace, workspace: Any, options: Any, stream: Any, reporters: dict | None = None
) -> Any:
    """The console reporter writing to `stream` (None for JSON output: then `--verbose` goes to stderr)
    and a progress line on a terminal's stderr, wired to `options.on_event`; returns the reporter. Each
    is imported when made: JSON output without `--verbose`, off a terminal, has neither. `reporters`:
    the caller's, which makes one per row (`run.RunSetup`): a reporter for a stream like one before is
    a copy of that one's (`_console`)."""
    masker = masker_for(args, options, workspace)
    if args.no_mask and not getattr(args, "no_mask_warned", False):
        print(NO_MASK_WARNING, file=sys.stderr)
        args.no_mask_warned = True  # once, also when --inputs-file sets up one run per row
    reporter = None
    handlers: list[Callable[[Any], None]] = []
    if stream is not None or args.verbose:
        ConsoleReporter = _console_class()
    if stream is not None:
        reporter = _console(ConsoleReporter, stream, masker, args.verbose, reporters)
        handlers.append(reporter.listener())  # (the events it reads alone are built)
    elif args.verbose:
        handlers.append(ConsoleReporter(sys.stderr, masker=masker, verbose=True, steps=False).on_event)
    progress = None
    concurrent = getattr(args, "concurrency", 1) > 1  # rows at once: no single step to show
    if not args.no_progress and not concurrent and _a_terminal(sys.stderr):
        from ..report.progress import Progress, progress_wanted

        if progress_wanted(sys.stderr):
            progress = Progress(sys.stderr)
    if progress is not None or len(handlers) > 1:
        options.on_event = EventFanout(handlers, progress)
    else:  # the one listener, or none (JSON output: then the run builds no event at all)
        options.on_event = handlers[0] if handlers else None
    return reporter


def _console(kind: Any, stream: Any, masker: Any, verbose: bool, reporters: dict | None) -> Any:
    """`kind(stream, masker=masker, verbose=verbose)`; with `reporters`, for a stream like one given
    before (the same stream, or a buffer of the same type, encoding and terminal: a row's `RowBuffer`)
    a copy of the reporter first made for it (`ConsoleReporter.like`), kept unused and holding neither
    that row's buffer nor its masker (its secrets)."""
    if reporters is None:
        return kind(stream, masker=masker, verbose=verbose)
    alike = isinstance(stream, io.StringIO)  # a new buffer each row: alike by what the console reads
    key = (type(stream), stream.encoding, stream.isatty(), verbose) if alike else (id(stream), verbose)
    found = reporters.get(key)
    if found is not None and (alike or found[0] is stream):
        return found[1].like(stream, masker)
    reporter = kind(stream, masker=masker, verbose=verbose)
    template = reporter.like(stream, masker)  # before the row's run changes it
    template.stream = template._flush = template.masker = None
    reporters[key] = (None if alike else stream, template)
    return reporter


def _a_terminal(stream: Any) -> bool:
    """The first condition of `progress_wanted`, asked before its module is imported."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class EventFanout:
    """Passes each event to every handler, with the progress line erased while they write."""

    def __init__(self, handlers: list[Callable[[Any], None]], progress: Any = None) -> None:
        self.handlers = handlers
        self.progress = progress

    def __call__(self, event: Any) -> None:
        if self.progress is None:
            self._dispatch(event)
            return
        with self.progress.paused():
            self._dispatch(event)
        self.progress.on_event(event)

    def _dispatch(self, event: Any) -> None:
        for handler in self.handlers:
            handler(event)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.close()


@contextlib.contextmanager
def masked_errors(masker: Masker) -> Iterator[None]:
    """A usage error raised by the run (invalid inputs quote the values) is printed masked."""
    try:
        yield
    except UsageError as exc:
        raise UsageError(masker.text(str(exc))) from None


def finish_run(
    args: argparse.Namespace,
    workspace: Any,
    options: Any,
    reporter: Any,
    result: Any,
    stopped: str | None = None,
) -> int:
    """The summary (text), the report files, the masked JSON document (with `errors` naming the report
    files that could not be written); the exit code. `stopped`: why the run was stopped, not by Ctrl-C
    (its journal could not be written): said last, exit 2."""
    close = getattr(options.on_event, "close", None)
    if close is not None:
        close()
    masker = masker_for(args, options, workspace)
    if reporter is not None:
        reporter.summary(result)
    from . import coverage

    covered = coverage.section(args, workspace, [result])  # None unless --coverage
    covered = None if covered is None else masker.data(covered)
    extra = {} if covered is None else {"coverage": covered}
    failures: list[str] = []
    if wants_reports(args):  # else the writers are not even imported
        from ..report.json_report import report_dict
        from ..report.walk import Part

        def document(version: str) -> Any:
            extras = run_extras(args, workspace, masker)
            return {**report_dict(result, masker, tool_version=version), **extras, **extra}

        failures = write_reports(args, [Part("", result, masker)], document)
    if reporter is None:
        from ..report.json_report import result_dict

        dump_json(with_report_errors({**result_dict(result, masker), **extra}, failures))
    short = coverage.finish(args, covered, sys.stdout if reporter is not None else None)
    if stopped is not None:
        print(stopped, file=sys.stderr, flush=True)
        return EXIT_USAGE
    if result.interrupted:
        print(interrupted_line(args, len(result.workflows), failures), file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    if failures:
        return EXIT_USAGE
    return EXIT_OK if result.ok and not short else EXIT_FAILED


def interrupted_line(args: argparse.Namespace, ran: int, failures: list[str]) -> str:
    """What an interrupted `arazzo run` says last (stderr): that it was, and where what ran is."""
    asked = [f"{flag} {getattr(args, name)}" for name, flag in _REPORTS if getattr(args, name, None)]
    written = [report for report in asked if not any(f.startswith(report + ":") for f in failures)]
    where = f"; {', '.join(written)}: written with what ran, marked interrupted" if written else ""
    return f"interrupted (Ctrl-C) after {ran} workflow execution(s){where}"


def with_report_errors(data: dict[str, Any], failures: list[str]) -> dict[str, Any]:
    """A run's JSON document, with `errors` when report files could not be written (exit 2)."""
    if failures:
        from ..report.error_json import entry

        data["errors"] = [entry("report", message) for message in failures]
    return data


def write_reports(args: argparse.Namespace, parts: list[Any], document: Callable[[str], Any]) -> list[str]:
    """The report files asked for: JUnit and HAR from the runs' `parts` (one, or a part per row), the
    JSON report is `document(tool_version)`. Returns why each one that could not be written was not
    (also said on stderr)."""
    from .. import __version__
    from ..report.har import write_har
    from ..report.json_report import write_report_json
    from ..report.junit import write_junit
    from .report import ci_outputs, write_html_report, write_summary

    made: list[Any] = []

    def once() -> Any:  # the JSON report document, built once for every writer that reads it
        if not made:
            made.append(document(__version__))
        return made[0]

    writers = {
        "report_json": lambda p: write_report_json(p, once()),
        "junit": lambda p: write_junit(p, parts),
        "har": lambda p: write_har(p, parts, tool_version=__version__),
        "record_http": lambda p: write_har(p, parts, tool_version=__version__, recording=True),
        "html": lambda p: write_html_report(p, [once()]),
        "summary": lambda p: write_summary(p, [once()]),
    }
    failures = []
    for name, flag in _REPORTS:
        path = getattr(args, name)
        if not path:
            continue
        try:
            writers[name](path)
        except OSError as exc:
            failures.append(f"{flag} {path}: cannot write: {exc.strerror or exc}")
            print(f"error: {failures[-1]}", file=sys.stderr)
    failures += ci_outputs(args, once)
    return failures


def wants_reports(args: argparse.Namespace) -> bool:
    """Whether a report file, a summary or GitHub annotations are to be written."""
    return any(getattr(args, name, None) for name, _ in _REPORTS) or github_wanted(args)


def run_extras(args: argparse.Namespace, workspace: Any, masker: Masker) -> dict[str, Any]:
    """What a report file holds besides the result: the document's path and the control-flow graph of
    the workflows run (`arazzo graph --format json`), masked, so `arazzo report` needs no document."""
    from ..executor.preflight import select_workflows
    from ..report.graph import graph_of

    try:
        selected = select_workflows(workspace, args.workflows)
    except ArazzoError:
        selected = []
    return {"document": workspace.file, "graph": masker.data(graph_of(workspace, selected))}
