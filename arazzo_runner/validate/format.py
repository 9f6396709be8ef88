"""Reports as text (compiler style), JSON, or SARIF 2.1.0 for code-scanning UIs."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import DISTRIBUTION
from .catalogue import RULES
from .findings import ERROR, Finding, Report

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_URI = "https://spec.openapis.org/arazzo/latest.html"


def format_text(reports: Iterable[Report]) -> str:
    """`file:line:col: severity rule-id: message` per finding, then a one-line summary."""
    reports = list(reports)
    lines = [str(finding) for report in reports for finding in report.findings]
    errors = sum(len(r.errors) for r in reports)
    warnings = sum(len(r.warnings) for r in reports)
    files = len(reports)
    summary = f"{_count(errors, 'error')}, {_count(warnings, 'warning')} in {_count(files, 'file')}"
    return "\n".join([*lines, summary]) + "\n"


def format_findings(findings: Iterable[Finding]) -> str:
    """Just the finding lines (what `arazzo run` prints before refusing a document)."""
    return "".join(f"{finding}\n" for finding in findings)


def to_json(reports: Iterable[Report]) -> dict[str, Any]:
    reports = list(reports)
    return {
        "valid": all(r.valid for r in reports),
        "findings": [f.to_dict() for r in reports for f in r.findings],
    }


def format_json(
    reports: Iterable[Report], errors: list[dict[str, Any]] | None = None, fixed: list[Finding] | None = None
) -> str:
    """`{"valid", "findings"}`, plus `errors` when given (the files that could not be read: exit 2), plus
    `fixed` with `--fix` (the findings it fixed)."""
    data = to_json(reports)
    if fixed is not None:
        data["fixed"] = [f.to_dict() for f in fixed]
    if errors:
        data["errors"] = errors
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def to_sarif(reports: Iterable[Report], version: str | None = None) -> dict[str, Any]:
    rule_ids = list(RULES)
    rules = [
        {
            "id": rule.id,
            "shortDescription": {"text": rule.summary},
            "defaultConfiguration": {"level": _level(rule.severity)},
            "properties": {"area": rule.area},
        }
        for rule in RULES.values()
    ]
    results = []
    for report in reports:
        for finding in report.findings:
            location: dict[str, Any] = {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(finding.file)},
                    "region": {"startLine": max(finding.line, 1), "startColumn": max(finding.column, 1)},
                }
            }
            if finding.path:
                location["logicalLocations"] = [{"fullyQualifiedName": finding.path, "kind": "element"}]
            results.append(
                {
                    "ruleId": finding.rule,
                    "ruleIndex": rule_ids.index(finding.rule),
                    "level": _level(finding.severity),
                    "message": {"text": finding.message},
                    "locations": [location],
                }
            )
    driver: dict[str, Any] = {"name": DISTRIBUTION, "informationUri": TOOL_URI, "rules": rules}
    if version:
        driver["version"] = version
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results, "columnKind": "unicodeCodePoints"}],
    }


def format_sarif(reports: Iterable[Report], version: str | None = None) -> str:
    return json.dumps(to_sarif(reports, version), indent=2, ensure_ascii=False) + "\n"


def _level(severity: str) -> str:
    return "error" if severity == ERROR else "warning"


def _uri(file: str) -> str:
    """A path relative to the working directory when the file is below it (what code scanning expects),
    else a `file:` URI."""
    if "://" in file or file.startswith("<"):
        return file
    path = Path(file).resolve()
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_uri()


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"
