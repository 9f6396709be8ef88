"""`arazzo validate FILE... [--format text|json|sarif] [--strict] [--schema-only] [--offline]
[--sandbox DIR]`.

Exit codes: 0 no errors (warnings allowed), 1 errors found (or warnings with `--strict`), 2 a file could
not be read or parsed. Wired into the main CLI by `add_validate_parser` + `run_validate`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2
FORMATS = ("text", "json", "sarif")


def add_validate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the `validate` sub-command to an argparse sub-parsers object; returns the new parser."""
    from ..cli import sandbox_flags

    parser = subparsers.add_parser(
        "validate",
        help="check Arazzo documents: JSON Schema, semantic rules and the referenced OpenAPI sources",
        description=(
            "Validate Arazzo documents against the official JSON Schema and the semantic rules, and check "
            "their steps against the referenced OpenAPI descriptions. Exit status: 0 no errors, 1 errors "
            "(or warnings with --strict), 2 a file could not be read."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="Arazzo documents (YAML or JSON)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    parser.add_argument("--strict", action="store_true", help="warnings fail the validation too")
    parser.add_argument("--schema-only", action="store_true", help="run the JSON Schema check alone")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="do not fetch http(s) source descriptions (their checks are skipped with a warning)",
    )
    sandbox_flags.add_flags(parser)
    parser.set_defaults(handler=run_validate)
    return parser


def run_validate(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Validate `args.files`, print the reports in `args.format` to `out` (stdout), return the exit code."""
    from .. import __version__
    from ..cli.sandbox_flags import folders
    from .core import validate_path
    from .format import format_json, format_sarif, format_text

    stream = out if out is not None else sys.stdout
    sandbox = folders(args)
    reports = [
        validate_path(
            file,
            schema_only=getattr(args, "schema_only", False),
            strict=getattr(args, "strict", False),
            remote=not getattr(args, "offline", False),
            allow_paths=sandbox,
        )
        for file in args.files
    ]
    fmt = getattr(args, "format", "text")
    if fmt == "json":
        stream.write(format_json(reports, errors=_unreadable(reports)))
    elif fmt == "sarif":
        stream.write(format_sarif(reports, __version__))
    else:
        stream.write(format_text(reports))
    if any(not report.readable for report in reports):
        return EXIT_UNREADABLE
    return EXIT_OK if all(report.valid for report in reports) else EXIT_INVALID


def _unreadable(reports: list[Any]) -> list[dict[str, Any]]:
    """The errors of the files that could not be read (exit 2) in the entry shape every `--format json`
    document uses for them (`arazzo_runner.report.error_json`); none when every file was read."""
    from ..report.error_json import finding_entry

    return [finding_entry(f) for report in reports if not report.readable for f in report.errors]
