"""The JSON form of the errors that stop a command, so `--format json` prints one JSON document on every
exit: CI that parses stdout never gets an empty one.

One entry shape for every error: `{"kind", "message", "rule", "file", "path", "line", "column"}`, the
fields that are unknown `null`. `kind` is `usage` (flags, inputs, unknown workflows), `document` (a
document or file that cannot be read or is malformed), `source` (a source description), `expression`,
`validation` (a finding of `arazzo validate` that refuses a run; `rule` is its rule id), `report` (a
report file that could not be written), `interrupted` or `internal` (a bug: the traceback is on
stderr). `path` is the JSON pointer of the offending node. A command that stops before its own result
prints `{"status": "error", "exitCode": N, "errors": [...]}`; one that has its result and still exits 2
(a report file it could not write, a file `arazzo validate` could not read) adds `errors` to it.
"""

from __future__ import annotations

from typing import Any

from ..errors import ArazzoError, DocumentError, ExpressionError, NotRunnable, SourceError, UsageError


def entry(
    kind: str,
    message: str,
    *,
    rule: str | None = None,
    file: str | None = None,
    path: str | None = None,
    line: int | None = None,
    column: int | None = None,
) -> dict[str, Any]:
    from ..masking.secrets import mask_userinfo

    return {
        "kind": kind,
        "message": mask_userinfo(message),  # a URL's password is never printed (`http/userinfo.py`)
        "rule": rule,
        "file": mask_userinfo(file) if file else file,
        "path": path,
        "line": line or None,
        "column": column or None,
    }


def exception_entry(exc: BaseException) -> dict[str, Any]:
    """The entry of an error the library raised (located when it is a document's)."""
    if isinstance(exc, DocumentError):
        kind = "source" if isinstance(exc, SourceError) else "document"
        return entry(kind, exc.message, file=exc.file, path=exc.pointer, line=exc.line, column=exc.column)
    if isinstance(exc, ExpressionError):
        return entry("expression", str(exc))
    if isinstance(exc, UsageError):
        return entry("usage", str(exc))
    if isinstance(exc, ArazzoError):
        return entry("document", str(exc))
    # a bug: only the type, as the message could quote a secret (the traceback goes to stderr)
    return entry("internal", f"internal error ({type(exc).__name__}); the traceback is on stderr")


def exception_entries(exc: BaseException) -> list[dict[str, Any]]:
    """The entries of an error: one, or for `NotRunnable` one per reason of each workflow not run."""
    if isinstance(exc, NotRunnable):
        return [problem_entry(problem) for _, problems in exc.refused for problem in problems]
    return [exception_entry(exc)]


def problem_entry(problem: dict[str, Any]) -> dict[str, Any]:
    """A reason a workflow is not run (`errors.problem_of`) as an entry."""
    kind = "validation" if problem.get("rule") else "document"
    where = {k: problem.get(k) for k in ("file", "path", "line", "column")}
    return entry(kind, problem["message"], rule=problem.get("rule"), **where)


def finding_entry(finding: Any) -> dict[str, Any]:
    """A validation finding (`arazzo_runner.validate.findings.Finding`) as an error entry."""
    return entry(
        "validation" if finding.rule != "document-parse" else "document",
        finding.message,
        rule=finding.rule,
        file=finding.file,
        path=finding.path or None,
        line=finding.line,
        column=finding.column,
    )


def error_document(errors: list[dict[str, Any]], exit_code: int) -> dict[str, Any]:
    """What a command prints instead of its result when it stops with an error."""
    return {"status": "error", "exitCode": exit_code, "errors": errors}
