"""`arazzo validate --fix FILE...` (write in place) and `--diff` (print the changes, write nothing).

`--fix` writes through symlinks, keeps hard links and the file's mode, and leaves no temporary file
behind (`write.py`). It prints what is left to fix by hand (in `--format`), then one line per file it
changed:
`flow.arazzo.yaml: fixed 5 (step-output-shorthand 4, header-plural 1)`; its exit code is validate's
over the result. `--diff` prints a unified diff per file that would change and exits 1 when one would
(0 when every document is already as --fix leaves it): a check for CI.
"""

from __future__ import annotations

import argparse
import collections
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..validate.write import write_in_place
from .validate_reports import EXIT_INVALID, EXIT_OK, EXIT_UNREADABLE, exit_code, settings, write_reports


def run_fix(args: argparse.Namespace, overrides: dict[str, str], stream: TextIO) -> int:
    from ..errors import DocumentError
    from ..validate.core import unreadable_report
    from ..validate.fix import Fixed, fix_path, unified_diff
    from .sandbox_flags import folders

    sandbox = folders(args)
    strict = getattr(args, "strict", False)
    results, reports = [], []

    def fixed_file(file: str, rules: tuple[str, ...] | None = None) -> Any:
        remote = not getattr(args, "offline", False)
        options = {"settings": settings(args, file, overrides), "remote": remote, "allow_paths": sandbox}
        return fix_path(file, **options, rules=rules)

    for file in args.files:
        try:
            result = fixed_file(file)
        except DocumentError as exc:
            reports.append(unreadable_report(exc, file, strict))
            continue
        results.append(result)
        reports.append(result)  # its report, once written (below)
        for problem in result.problems:
            print(f"warning: {problem}", file=sys.stderr)
    if getattr(args, "diff", False):
        reports = [_strict(r.report, strict) if isinstance(r, Fixed) else r for r in reports]
        return _diff(results, reports, stream, unified_diff)
    for result in results:
        if result.changed:
            write_checked(result, lambda result=result: fixed_file(result.file, ()))
    reports = [_strict(r.report, strict) if isinstance(r, Fixed) else r for r in reports]
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


def write_checked(result: Any, again: Callable[[], Any]) -> bool:
    """Write a fixed document, then read and validate it again (`again()`: what `fix_path` finds in the
    file as written, fixing nothing): when it is not the text and the findings the fixes left in memory,
    the original is written back, the fixes are dropped from `result` and an error says so. Whether
    the fixed text stayed."""
    from ..errors import DocumentError
    from ..validate.fix import finding_keys

    try:
        write_in_place(result.file, result.encoded())
    except OSError as exc:  # nothing was changed: `write_in_place` leaves the file as it was
        print(f"error: {result.file}: cannot write the fixed file: {exc.strerror or exc}", file=sys.stderr)
        result.after, result.fixed, result.report = result.before, [], result.initial or result.report
        return False
    try:
        found = again()
    except DocumentError as exc:
        found, why = None, f"it could not be read again ({exc.message})"
    else:
        why = "it did not read back as written" if found.before != result.after else ""
        if not why and finding_keys(found.report) != finding_keys(result.report):
            why = "its findings are not those the fixes left"
    if found is not None and not why:
        return True
    write_in_place(result.file, result.bom + result.before.encode(result.encoding))
    print(f"error: {result.file}: the fixed file was put back as it was: {why}", file=sys.stderr)
    result.after, result.fixed, result.report = result.before, [], result.initial or result.report
    return False


def _counts(findings: list[Any]) -> str:
    by_rule = collections.Counter(f.rule for f in findings)
    listed = ", ".join(f"{rule} {count}" for rule, count in by_rule.most_common())
    return f"{len(findings)} ({listed})"


def _strict(report: Any, strict: bool) -> Any:
    from ..records import replace

    return replace(report, strict=True) if strict and not report.strict else report
