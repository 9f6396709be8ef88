"""What `arazzo validate` and its `--fix` share: the exit codes, the settings of each file (its
configuration file and `--rule`), and the reports they write (text, JSON, SARIF). `cli/validate.py`
runs `cli/fix.py` for `--fix` and `--diff`; both take these from here, so neither imports the other's
way back."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2


def settings(args: argparse.Namespace, file: str, overrides: dict[str, str]) -> Any:
    from ..validate.config import settings_for

    return settings_for(
        file, config=getattr(args, "config", None), isolated=getattr(args, "isolated", False), rules=overrides
    )


def write_reports(args: argparse.Namespace, reports: list[Any], stream: TextIO, **extra: Any) -> None:
    from .. import __version__
    from ..validate.format import format_json, format_sarif, format_text

    fmt = getattr(args, "format", "text")
    if fmt == "json":
        stream.write(format_json(reports, errors=_unreadable(reports), **extra))
    elif fmt == "sarif":
        stream.write(format_sarif(reports, __version__))
    else:
        stream.write(format_text(reports))


def exit_code(reports: list[Any]) -> int:
    if any(not report.readable for report in reports):
        return EXIT_UNREADABLE
    return EXIT_OK if all(report.valid for report in reports) else EXIT_INVALID


def _unreadable(reports: list[Any]) -> list[dict[str, Any]]:
    """The errors of the files that could not be read (exit 2) in the entry shape every `--format json`
    document uses for them (`arazzo_runner.report.error_json`); none when every file was read."""
    from ..report.error_json import finding_entry

    return [finding_entry(f) for report in reports if not report.readable for f in report.errors]
