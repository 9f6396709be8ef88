"""`arazzo validate --fix FILE...` (write in place) and `--diff` (print the changes, write nothing).

`--fix` prints what is left to fix by hand (in `--format`), then one line per file it changed:
`flow.arazzo.yaml: fixed 5 (step-output-shorthand 4, header-plural 1)`; its exit code is validate's
over the result. `--diff` prints a unified diff per file that would change and exits 1 when one would
(0 when every document is already as --fix leaves it): a check for CI.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from typing import Any, TextIO

from .cli import EXIT_INVALID, EXIT_OK, EXIT_UNREADABLE, exit_code, settings, write_reports


def run_fix(args: argparse.Namespace, overrides: dict[str, str], stream: TextIO) -> int:
    from ..cli.sandbox_flags import folders
    from ..errors import DocumentError
    from .core import unreadable_report
    from .fix import fix_path, unified_diff

    sandbox = folders(args)
    results, reports = [], []
    for file in args.files:
        try:
            result = fix_path(
                file,
                settings=settings(args, file, overrides),
                remote=not getattr(args, "offline", False),
                allow_paths=sandbox,
            )
        except DocumentError as exc:
            reports.append(unreadable_report(exc, file, getattr(args, "strict", False)))
            continue
        results.append(result)
        reports.append(_strict(result.report, getattr(args, "strict", False)))
        for problem in result.problems:
            print(f"warning: {problem}", file=sys.stderr)
    if getattr(args, "diff", False):
        return _diff(results, reports, stream, unified_diff)
    for result in results:
        if result.changed:
            write_in_place(result.file, result.encoded())
    write_reports(args, reports, stream, fixed=[f for r in results for f in r.fixed])
    if getattr(args, "format", "text") == "text":
        for result in results:
            if result.fixed:
                stream.write(f"{result.file}: fixed {_counts(result.fixed)}\n")
    return exit_code(reports)


def _diff(results: list[Any], reports: list[Any], stream: TextIO, unified_diff: Any) -> int:
    changed = [r for r in results if r.changed]
    for result in changed:
        stream.write(unified_diff(result))
    for result in changed:
        print(f"{result.file}: would fix {_counts(result.fixed)}", file=sys.stderr)
    if any(not report.readable for report in reports):
        return EXIT_UNREADABLE
    return EXIT_INVALID if changed else EXIT_OK


def write_in_place(file: str, content: bytes) -> None:
    """Replace the file's content atomically: a new file beside it (the same permissions), renamed
    over it, so an interrupted write never leaves half a document."""
    import shutil
    import tempfile

    folder = os.path.dirname(os.path.abspath(file))
    handle, temporary = tempfile.mkstemp(prefix=".arazzo-", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        shutil.copymode(file, temporary)
        os.replace(temporary, file)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _counts(findings: list[Any]) -> str:
    by_rule = collections.Counter(f.rule for f in findings)
    listed = ", ".join(f"{rule} {count}" for rule, count in by_rule.most_common())
    return f"{len(findings)} ({listed})"


def _strict(report: Any, strict: bool) -> Any:
    from ..records import replace

    return replace(report, strict=True) if strict and not report.strict else report
