"""Error types shared by every stage of the pipeline.

User errors (a bad document, a bad expression, bad inputs) are `ArazzoError`s: the CLI prints them as
one located message and never as a traceback. Anything else escaping the library is a bug.
"""

from __future__ import annotations

from typing import Any


class ArazzoError(Exception):
    """Base class of every error the library raises on purpose."""


class DocumentError(ArazzoError):
    """A document (Arazzo, OpenAPI, inputs file) that cannot be read or is malformed.

    `file`, `line` and `column` locate the problem (1-based; 0 when unknown); `pointer` is the JSON
    pointer of the offending node when known.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int = 0,
        column: int = 0,
        pointer: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.pointer = pointer

    @property
    def location(self) -> str:
        where = self.file or "<document>"
        if self.line:
            where += f":{self.line}:{self.column or 1}"
        return where

    def __str__(self) -> str:
        at = f" (at {self.pointer})" if self.pointer else ""
        return f"{self.location}: {self.message}{at}"


class ExpressionError(ArazzoError):
    """A runtime expression, template or condition that does not parse.

    `text` is the source text and `position` the 0-based offset of the problem within it.
    """

    def __init__(self, message: str, text: str, position: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.position = position

    def __str__(self) -> str:
        return f"{self.message} in {self.text!r} at offset {self.position}"


class UsageError(ArazzoError):
    """The caller asked for something impossible: unknown workflow, invalid inputs, bad flag values."""


class SourceError(DocumentError):
    """A source description (OpenAPI or Arazzo) that cannot be fetched, parsed or resolved."""


class TargetError(DocumentError):
    """A step target that does not resolve: no such operation, channel or workflow."""


class NotRunnable(DocumentError):
    """None of the selected workflows can run with one meaning, so nothing was sent. `refused` lists
    each workflow with its problems (`problem_of`), located at the first one."""

    def __init__(self, file: str, refused: list[tuple[str, list[dict[str, Any]]]]) -> None:
        self.refused = refused
        first = next((p for _, problems in refused for p in problems), {})
        lines = []
        for workflow_id, problems in refused:
            lines.append(f"workflow '{workflow_id}' cannot run:")
            lines.extend(f"  {problem_text(p)}" for p in problems)
        names = ", ".join(f"'{workflow_id}'" for workflow_id, _ in refused)
        head = f"nothing was run: no selected workflow can run with one meaning ({names})"
        super().__init__(
            "\n".join([head, *lines]),
            file=first.get("file") or file,
            line=first.get("line") or 0,
            column=first.get("column") or 0,
            pointer=first.get("path"),
        )

    def __str__(self) -> str:
        return self.message


def problem_of(error: Any) -> dict[str, Any]:
    """A reason a workflow is not run, as results and reports carry it: `rule` (None for the engine's own
    checks), `message`, `path` (the JSON pointer, when known), `file`, `line`, `column`. From a validator
    `Finding` or an `ArazzoError`."""
    rule = getattr(error, "rule", None)
    message = getattr(error, "message", None) or str(error)
    if isinstance(error, ExpressionError):
        message = str(error)
    return {
        "rule": rule,
        "message": message,
        "path": getattr(error, "path", None) or getattr(error, "pointer", None),
        "file": getattr(error, "file", None),
        "line": getattr(error, "line", 0) or 0,
        "column": getattr(error, "column", 0) or 0,
    }


def problem_text(problem: dict[str, Any]) -> str:
    """`file:line:col: rule: message`, the way the validator prints a finding."""
    where = problem.get("file") or "<document>"
    if problem.get("line"):
        where += f":{problem['line']}:{problem.get('column') or 1}"
    rule = f"{problem['rule']}: " if problem.get("rule") else ""
    return f"{where}: {rule}{problem['message']}"


class RunInterrupted(KeyboardInterrupt):
    """`run()` was interrupted (Ctrl-C, SIGINT): `result` is the `RunResult` of what ran until then, its
    `interrupted` set, the step in flight failed with "interrupted before it completed". A
    `KeyboardInterrupt`, so code that stops on Ctrl-C still does; `arazzo run` writes its reports from
    `result` and exits 130."""

    def __init__(self, result: Any) -> None:
        super().__init__("interrupted")
        self.result = result
