"""What the validator reports: one `Finding` per problem, collected in a `Report` per file."""

from __future__ import annotations

from typing import Any

from ..records import Record, field

ERROR = "error"
WARNING = "warning"
SEVERITIES = (ERROR, WARNING)


class Edit(Record, frozen=True):
    """One textual change of a fix: in the string at `path` (a JSON pointer; with `key`, the mapping key
    naming that node), `old` found at offset `start` becomes `new`. Offsets count characters of the
    string's value, not of its source text: `arazzo_runner.validate.edit` maps them onto the text. With
    `node`, the node at `path` (a YAML flow collection) becomes the string `new` as a whole."""

    path: str
    start: int
    old: str
    new: str
    key: bool = False
    node: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = {"path": self.path, "start": self.start, "old": self.old, "new": self.new, "key": self.key}
        return {**data, "node": True} if self.node else data


class Finding(Record, frozen=True):
    """One problem: which rule, how bad, what, and where (JSON pointer plus 1-based line and column).
    `fix`: the edits of its one safe, mechanical fix (`arazzo validate --fix`), empty when it has none.
    `blocks`: whether this error stops a run of its workflow, where the rule decides per finding (None:
    the rule's policy, `run_policy.POLICY`); not part of the JSON form."""

    rule: str
    severity: str
    message: str
    file: str
    path: str
    line: int
    column: int
    fix: tuple[Edit, ...] = ()
    blocks: bool | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "fix": [edit.to_dict() for edit in self.fix] or None,
        }

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity} {self.rule}: {self.message}"


class Report(Record):
    """The findings for one file, in document order. `readable` is False when the file could not be read
    or parsed (the CLI exits 2); `strict` makes warnings count against `valid`."""

    file: str
    findings: list[Finding] = field(default_factory=list)
    readable: bool = True
    strict: bool = False

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING]

    @property
    def valid(self) -> bool:
        if not self.readable or self.errors:
            return False
        return not (self.strict and self.warnings)

    def rules(self) -> set[str]:
        return {f.rule for f in self.findings}

    def to_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, "findings": [f.to_dict() for f in self.findings]}


def report_to_data(report: Report) -> dict[str, Any]:
    """`report` as plain JSON data, every field kept (`report_from_data` rebuilds it): how a report
    crosses from one `arazzo validate` process to another (`validate/parallel.py`). The findings are
    in their `--format json` form."""
    findings = [finding.to_dict() for finding in report.findings]
    return {"file": report.file, "readable": report.readable, "strict": report.strict, "findings": findings}


def report_from_data(data: dict[str, Any]) -> Report:
    findings = []
    for entry in data["findings"]:
        fix = tuple(Edit(**edit) for edit in entry.get("fix") or ())
        findings.append(Finding(**{**entry, "fix": fix}))
    return Report(data["file"], findings, readable=data["readable"], strict=data["strict"])
