"""`arazzo validate --fix FILE...` (write in place) and `--diff` (print the changes, write nothing).

`--fix` writes through symlinks, keeps hard links and the file's mode, and leaves no temporary file
behind (`write.py`). It prints what is left to fix by hand (in `--format`), then one line per file it
changed:
`flow.arazzo.yaml: fixed 5 (step-output-shorthand 4, header-plural 1)`; its exit code is validate's
over the result. `--diff` prints a unified diff per file that would change (stdout, what `git apply`
takes) and, on stderr, a line per file: what --fix would fix and what would remain, or that no
mechanical fix applies and what remains, or why the file cannot be read. It exits 1 when a file would
change or when validate would (errors, or warnings with --strict), 2 when a file cannot be read, else
0: a check for CI that never passes a document validate fails.
"""

from __future__ import annotations

import argparse
import collections
import functools
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..validate.write import write_in_place
from .validate_reports import EXIT_INVALID, EXIT_OK, exit_code, settings, write_reports


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
        return _diff(reports, strict, stream, unified_diff)
    for result in results:
        if result.changed:
            write_checked(result, functools.partial(fixed_file, result.file, ()))
    reports = [_strict(r.report, strict) if isinstance(r, Fixed) else r for r in reports]
    write_reports(args, reports, stream, fixed=[f for r in results for f in r.fixed])
    if getattr(args, "format", "text") == "text":
        for result in results:
            if result.fixed:
                stream.write(f"{result.file}: fixed {_counts(result.fixed)}\n")
    return exit_code(reports)


def _diff(entries: list[Any], strict: bool, stream: TextIO, unified_diff: Any) -> int:
    """The diffs, then one line per file on stderr (see the module docstring). `entries`: per file in
    the order named, its `Fixed` or, for a file that could not be read, its report. The exit code judges
    the documents as they are, as validate would, and a file that would change fails too."""
    from ..validate.fix import Fixed
    from ..validate.format import format_findings

    for entry in entries:
        if isinstance(entry, Fixed) and entry.changed:
            stream.write(unified_diff(entry))
    judged = []
    for entry in entries:
        if not isinstance(entry, Fixed):  # unreadable: its document-parse finding says why
            sys.stderr.write(format_findings(entry.errors))
            judged.append(entry)
            continue
        judged.append(_strict(entry.initial or entry.report, strict))
        left = _remaining(entry.report)
        if entry.changed:
            remain = f"; {left} would remain" if left else ""
            print(f"{entry.file}: would fix {_counts(entry.fixed)}{remain}", file=sys.stderr)
        elif left:
            verb = "remains" if len(entry.report.findings) == 1 else "remain"
            print(f"{entry.file}: no mechanical fix applies; {left} {verb}", file=sys.stderr)
    code = exit_code(judged)
    if code == EXIT_OK and any(isinstance(e, Fixed) and e.changed for e in entries):
        return EXIT_INVALID
    return code


def _remaining(report: Any) -> str:
    """`7 errors, 2 warnings` (the kinds there are), or "" when the report has no finding."""
    counts = [(len(report.errors), "error"), (len(report.warnings), "warning")]
    return ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in counts if n)


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
