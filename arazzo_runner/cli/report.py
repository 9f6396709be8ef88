"""`arazzo report RUN.json... -o report.html`: the HTML page of saved runs (`arazzo run --report-json`
files, `arazzo agent --format json` output), several runs in one page, `--diff` for two; `--summary` for
CI. Also the writers `arazzo run --html/--summary` and its GitHub Actions outputs share with it.

Exit 0 when everything asked for was written (whatever the runs' own outcome: `arazzo run` said that),
2 for usage errors (a file that is not a report, a folder that does not exist).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..bounds.limits import MAX_BODY_DEPTH
from ..errors import UsageError
from .common import EXIT_OK, EXIT_USAGE

# A saved run is input like any JSON from outside (a CI artifact): read by `json_text`'s rule (lone
# surrogates as U+FFFD, a bounded depth), with room for the report's own structure around bodies that
# nest as deep as `MAX_BODY_DEPTH` (as `--replay` recordings have: `RECORDING_DEPTH`).
REPORT_DEPTH = MAX_BODY_DEPTH + 32


def register(commands: Any) -> None:
    from .github_flags import add_github_flag

    parser = commands.add_parser(
        "report", help="write one HTML page (and a CI summary) of saved runs; compare two with --diff"
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="RUN.json",
        help="files of `arazzo run --report-json` (or --format json) and `arazzo agent --format json`",
    )
    parser.add_argument("-o", "--output", metavar="PATH", help="the HTML page to write")
    parser.add_argument(
        "--diff",
        action="store_true",
        help="compare the first two runs: steps whose status, outputs or time changed (printed too)",
    )
    parser.add_argument("--summary", metavar="PATH", help="write a Markdown summary of the runs")
    parser.add_argument("--title", metavar="TEXT", help="the page's title")
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="print the API coverage of the runs merged (each saved with `arazzo run --coverage`)",
    )
    parser.add_argument(
        "--min-coverage",
        metavar="PCT",
        help="exit 1 when the merged coverage is below PCT (operations), or ops:80,status:60; implies "
        "--coverage",
    )
    add_github_flag(parser)
    parser.set_defaults(handler=report_command)


def report_command(args: argparse.Namespace) -> int:
    from ..report.html import Source, page_data
    from .coverage import check_flags
    from .github_flags import github_wanted

    check_flags(args)
    if not (args.output or args.summary or args.diff or args.coverage or github_wanted(args)):
        raise UsageError(
            "nothing to write: give -o PATH (the HTML page), --summary PATH, --diff or --coverage"
        )
    for flag, path in (("-o", args.output), ("--summary", args.summary)):
        if path and not Path(path).resolve().parent.is_dir():
            raise UsageError(f"{flag} {path}: the folder does not exist")
    sources = [Source(_label(path), read_report(path)) for path in args.files]
    missing = [s.label for s in sources if args.coverage and not isinstance(s.data.get("coverage"), dict)]
    if missing:  # its figures would be missing from the merge: said before anything is written
        raise UsageError(
            f"--coverage: {', '.join(missing)}: saved without coverage (run it with `arazzo run --coverage "
            "--report-json PATH`)"
        )
    page = page_data(sources, args.title)
    if args.diff:
        from ..report.html.diff import diff_lines, diff_runs

        page["diff"] = diff_runs(page)
        print("\n".join(diff_lines(page["diff"])))
    failures = []
    if args.output:
        try:
            size = _write(args.output, _render(page))
            print(f"wrote {args.output} ({_size(size)}): {page['outcome']}")
        except OSError as exc:
            failures.append(f"-o {args.output}: cannot write: {exc.strerror or exc}")
    if args.summary:
        failures += _summary_file(args.summary, page, "--summary")
    failures += ci_outputs(args, lambda: None, page)
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    short = _coverage(args, sources, page)
    return EXIT_USAGE if failures else short


def _coverage(args: argparse.Namespace, sources: list[Any], page: dict[str, Any]) -> int:
    """`--coverage`: the runs' coverage sections merged (the page's), printed; exit 1 below
    `--min-coverage`."""
    if not args.coverage:
        return EXIT_OK
    from .coverage import finish

    return finish(args, page["coverage"], sys.stdout)


def read_report(path: str) -> Any:
    """A report document; a usage error naming the file (and line:column) when it is not one."""
    from ..bounds import json_text
    from ..report.html.model import kind_of

    try:
        with open(path, encoding="utf-8-sig") as handle:
            data = json_text.loads(handle.read(), REPORT_DEPTH)  # the rule for JSON from outside
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except json_text.TooDeep as exc:
        raise UsageError(f"{path}: not a JSON report: it {exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: not a JSON report: {exc}") from None
    try:
        kind_of(data)
    except UsageError as exc:
        raise UsageError(f"{path}: {exc}") from None
    return data


def _label(path: str) -> str:
    return Path(path).name


def _render(page: dict[str, Any]) -> str:
    from .. import __version__
    from ..report.html import render_page

    return render_page(page, f"arazzo {__version__}")


def _write(path: str, text: str) -> int:
    data = text.encode("utf-8")
    with open(path, "wb") as handle:
        handle.write(data)
    return len(data)


def _size(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{max(size >> 10, 1)} KiB"


def _page(documents: list[Any]) -> dict[str, Any]:
    from ..report.html import Source, page_data

    return page_data([Source(Path(str(d.get("document") or "run")).name, d) for d in documents])


# -- the writers `arazzo run` uses ---------------------------------------------------------------------


def write_html_report(path: str, documents: list[Any]) -> None:
    """`--html PATH`: the page of the run's report document(s)."""
    _write(path, _render(_page(documents)))


def write_summary(path: str, documents: list[Any]) -> None:
    from ..report.summary import markdown_summary

    with open(path, "w", encoding="utf-8") as handle:
        handle.write(markdown_summary(_page(documents)))


def _summary_file(path: str, page: dict[str, Any], flag: str, mode: str = "w") -> list[str]:
    from ..report.summary import markdown_summary

    try:
        with open(path, mode, encoding="utf-8") as handle:
            handle.write(markdown_summary(page))
    except OSError as exc:
        return [f"{flag} {path}: cannot write: {exc.strerror or exc}"]
    return []


def ci_outputs(
    args: argparse.Namespace, document: Callable[[], Any], page: dict[str, Any] | None = None
) -> list[str]:
    """In GitHub Actions (or with `--github on`): the Markdown summary appended to `$GITHUB_STEP_SUMMARY`
    (when set) and an annotation per failure, on stdout (stderr when stdout holds a JSON document)."""
    from .github_flags import github_wanted

    if not github_wanted(args):
        return []
    from ..report.summary import github_annotations

    if page is None:
        page = _page([document()])
    failures = []
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        failures += _summary_file(step_summary, page, "$GITHUB_STEP_SUMMARY", mode="a")
    as_json = getattr(args, "format", "text") == "json"
    wanted = getattr(args, "github", "auto") == "on" or os.environ.get("GITHUB_ACTIONS") == "true"
    lines = github_annotations(page) if wanted else []
    if lines:
        stream = sys.stderr if as_json else sys.stdout
        stream.write("\n".join(lines) + "\n")
        stream.flush()
    return failures
