"""`arazzo validate FILE... [--format text|json|sarif] [--strict] [--schema-only] [--offline]
[--sandbox DIR] [--rule RULE=off|warning|error] [--config PATH | --isolated] [--fix | --diff]
[--jobs N] [--no-cache]`.

Exit codes: 0 no errors (warnings allowed), 1 errors found (or warnings with `--strict`; with `--diff`,
also: a file would change), 2 a file could not be read or parsed. Wired into the main CLI by
`add_validate_parser` + `run_validate`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from .validate_reports import EXIT_OK, exit_code, settings, write_reports

FORMATS = ("text", "json", "sarif")


def add_validate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the `validate` sub-command to an argparse sub-parsers object; returns the new parser."""
    from . import cache_flags, sandbox_flags

    parser = subparsers.add_parser(
        "validate",
        help="check Arazzo documents: JSON Schema, semantic rules and the referenced OpenAPI sources",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="Arazzo documents (YAML or JSON)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    parser.add_argument("--strict", action="store_true", help="warnings fail the validation too")
    parser.add_argument("--schema-only", action="store_true", help="run the JSON Schema check alone")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="do not fetch http(s) source descriptions (their checks are skipped with a warning)",
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="RULE=LEVEL",
        help="set a rule (or an area: dialect, sources, ...) to off, warning or error (repeatable; wins "
        "over the configuration file)",
    )
    config = parser.add_mutually_exclusive_group()
    config.add_argument(
        "--config",
        metavar="PATH",
        help="the configuration file (.arazzo.toml, or pyproject.toml with [tool.arazzo.validate]); "
        "default: the nearest one above each document",
    )
    config.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    fixing = parser.add_mutually_exclusive_group()
    fixing.add_argument(
        "--fix",
        action="store_true",
        help="rewrite, in place, every finding that has one safe mechanical fix (comments and the "
        "formatting of every other line kept)",
    )
    fixing.add_argument(
        "--diff", action="store_true", help="print the changes --fix would make; write nothing"
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="validate in N processes (default: one per CPU, when there are at least 8 files per "
        "process; 1: all in this one)",
    )
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    sandbox_flags.add_flags(parser)
    cache_flags.add_flag(parser)
    parser.set_defaults(handler=run_validate)
    return parser


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes (1 or more), got {text!r}")
    return value


def run_validate(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Validate `args.files`, print the reports in `args.format` to `out` (stdout), return the exit code."""
    from ..errors import UsageError
    from ..validate.config import parse_rule_options

    stream = out if out is not None else sys.stdout
    if getattr(args, "list_rules", False):
        return _list_rules(stream, getattr(args, "format", "text"))
    if not args.files:
        raise UsageError("the following arguments are required: FILE (or --list-rules)")
    overrides = parse_rule_options(getattr(args, "rule", []))
    if getattr(args, "fix", False) or getattr(args, "diff", False):
        from .fix import run_fix

        return run_fix(args, overrides, stream)
    from ..sources.cache import SharedDocuments
    from ..validate.early_worker import needing_worker, start_worker
    from ..validate.findings import report_from_data, report_to_data
    from ..validate.parallel import jobs_for, map_ordered
    from ..validate.prefork import weight

    files = args.files
    xpath = needing_worker(files, schema_only=getattr(args, "schema_only", False))  # its worker, early
    with _fewer_collections():
        reports = map_ordered(
            lambda file, shared: _validate_one(args, file, overrides, shared),
            files,
            jobs_for(getattr(args, "jobs", None), len(files)),  # several processes for many files
            context=SharedDocuments,  # a description several files of one process name is parsed once
            reserved=xpath,  # validated by this process, whose worker starts with the others' work
            at_start=start_worker if xpath else lambda: None,
            prepare=_prepare,  # imports and compiled schemas, once for every process
            weight=weight,  # the files with the largest sources first
            encode=report_to_data,
            decode=report_from_data,
        )
    write_reports(args, reports, stream)
    return exit_code(reports)


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """What exists before the files are validated (modules, compiled schemas) is left out of the cyclic
    garbage collector's passes (`gc.freeze`: in forked processes, those passes no longer write to the
    pages they share with this one), and the passes come every 10,000 allocations rather than 700:
    validating allocates trees of data that reference counting frees, which a pass walks for nothing
    (~5% of the CPU over the documents under ../shared). Both as they were afterwards."""
    import gc

    thresholds = gc.get_threshold()
    thawed = gc.get_freeze_count() == 0
    gc.freeze()
    gc.set_threshold(max(thresholds[0], 10_000), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if thawed:
            gc.unfreeze()


def _prepare() -> None:
    """Before forking: what every process needs, loaded once (`prefork.warm`), frozen with the rest."""
    import gc

    from ..validate.prefork import warm

    warm()
    gc.freeze()


def _validate_one(args: argparse.Namespace, file: str, overrides: dict[str, str], shared: Any = None) -> Any:
    from ..validate.core import validate_path
    from .sandbox_flags import folders

    report = validate_path(
        file,
        schema_only=getattr(args, "schema_only", False),
        strict=getattr(args, "strict", False),
        remote=not getattr(args, "offline", False),
        allow_paths=folders(args),
        shared_sources=shared,
    )
    return settings(args, file, overrides).apply(report)


def _list_rules(stream: TextIO, fmt: str) -> int:
    import json

    from ..validate.catalogue import RULES

    if fmt == "json":
        rules = [
            {"id": r.id, "severity": r.severity, "area": r.area, "summary": r.summary} for r in RULES.values()
        ]
        stream.write(json.dumps({"rules": rules}, indent=2) + "\n")
        return EXIT_OK
    width = max(len(rule) for rule in RULES)
    for rule in RULES.values():
        stream.write(f"{rule.id:<{width}}  {rule.severity:<7}  {rule.area:<11}  {rule.summary}\n")
    return EXIT_OK
