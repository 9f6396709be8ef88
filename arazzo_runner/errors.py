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


class RunInterrupted(KeyboardInterrupt):
    """`run()` was interrupted (Ctrl-C, SIGINT): `result` is the `RunResult` of what ran until then, its
    `interrupted` set, the step in flight failed with "interrupted before it completed". A
    `KeyboardInterrupt`, so code that stops on Ctrl-C still does; `arazzo run` writes its reports from
    `result` and exits 130."""

    def __init__(self, result: Any) -> None:
        super().__init__("interrupted")
        self.result = result
