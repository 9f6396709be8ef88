"""Findings as LSP diagnostics: the rule is the code, the message is `arazzo validate`'s, the range is
the token the finding points at (the scalar, else the key, else the rest of the word), and
`relatedInformation` names the other place a finding is about: the OpenAPI operation of a step's
source finding, the first definition of a duplicate ("(line N)" in its message)."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from ..validate.catalogue import RULES
from . import model
from .state import Analysis, path_to_uri

SOURCE = "arazzo"
_LINE_MENTION = re.compile(r"\(line (\d+)\)")
_WORD_END = re.compile(r"[\s,\]}]|$")


def diagnostics(analysis: Analysis, uri: str) -> list[types.Diagnostic]:
    return [diagnostic(analysis, uri, finding) for finding in analysis.report.findings]


def diagnostic(analysis: Analysis, uri: str, finding: Any) -> types.Diagnostic:
    severity = (
        types.DiagnosticSeverity.Error if finding.severity == "error" else types.DiagnosticSeverity.Warning
    )
    return types.Diagnostic(
        range=finding_range(analysis, finding),
        message=finding.message,
        severity=severity,
        code=finding.rule,
        source=SOURCE,
        related_information=_related(analysis, uri, finding) or None,
        data={"path": finding.path, "fixable": bool(finding.fix)},
    )


def finding_range(analysis: Analysis, finding: Any) -> types.Range:
    lines = analysis.lines
    start = lines.at_line_col(finding.line, finding.column)
    if analysis.loaded is not None:
        for table in (analysis.spans.values, analysis.spans.keys):
            scalar = table.get(finding.path)
            if scalar is not None and scalar.start <= start <= scalar.end:
                return lines.range(scalar.start, scalar.end)
        token = analysis.token_at(start)
        if token is not None and token[0] == start:
            return lines.range(token[0], token[1])
    match = _WORD_END.search(analysis.text, start)
    end = match.start() if match else start
    return lines.range(start, max(end, start + 1) if start < len(analysis.text) else start)


def _related(analysis: Analysis, uri: str, finding: Any) -> list[types.DiagnosticRelatedInformation]:
    related = []
    for mention in _LINE_MENTION.finditer(finding.message):
        line = int(mention.group(1))
        start = analysis.lines.at_line_col(line, 1)
        text = analysis.lines.line_text(line - 1)
        column = len(text) - len(text.lstrip(" -"))
        where = analysis.lines.range(start + column, start + len(text))
        related.append(types.DiagnosticRelatedInformation(types.Location(uri, where), "first defined here"))
    meta = RULES.get(finding.rule)
    if meta is not None and meta.area == "sources" and analysis.loaded is not None:
        operation = model.step_operation(analysis, *model.enclosing(finding.path))
        if operation is not None:
            related.append(
                types.DiagnosticRelatedInformation(operation_location(operation), operation_title(operation))
            )
    return related


def operation_location(operation: Any) -> types.Location:
    location, line, column = operation.written_at
    position = types.Position(line=max(line - 1, 0), character=max(column - 1, 0))
    return types.Location(uri=path_to_uri(location) if "://" not in location else location,
                          range=types.Range(start=position, end=position))  # fmt: skip


def operation_title(operation: Any) -> str:
    name = f"operation {operation.operation_id}: " if operation.operation_id else "operation "
    return f"{name}{operation.method.upper()} {operation.path}"
