"""The open documents: each one's text, and its analysis (parsed, built, validated) for the text it had
when last analysed. Features read the analysis of the current text when it parses, else the last one
that did (`usable`): while a line is half typed, completion still knows the document's steps.
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import DocumentError
from .store import SourceStore
from .text import Lines


def uri_to_path(uri: str) -> str | None:
    """The local path of a `file:` URI, None for any other scheme (an unsaved buffer)."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    return os.path.normpath(unquote(parts.path))


def path_to_uri(path: str) -> str:
    from pathlib import Path

    return Path(path).resolve().as_uri()


class Analysis:
    """One text of a document: its loaded form, model, workspace and validation report. `loaded` is None
    when the text does not parse (the report then holds the parse finding)."""

    def __init__(self, text: str, location: str, loaded: Any, document: Any, workspace: Any, report: Any):
        self.text = text
        self.location = location
        self.loaded = loaded
        self.document = document
        self.workspace = workspace
        self.report = report

    @cached_property
    def lines(self) -> Lines:
        return Lines(self.text)

    @cached_property
    def spans(self) -> Any:
        """Where each key and scalar is written (`loader.spans`); built on first use."""
        from ..loader.spans import scalar_spans

        return scalar_spans(self.text, self.loaded.format)

    @cached_property
    def tokens(self) -> list[tuple[int, int, str, bool]]:
        """(start, end, pointer, is_key) of every scalar and key, by start offset."""
        found = [(s.start, s.end, p, False) for p, s in self.spans.values.items()]
        found += [(s.start, s.end, p, True) for p, s in self.spans.keys.items()]
        return sorted(found)

    def token_at(self, offset: int) -> tuple[int, int, str, bool] | None:
        """The key or scalar whose text holds `offset` (its end included: the cursor after a word)."""
        import bisect

        index = bisect.bisect_right(self.tokens, (offset, float("inf"))) - 1
        while index >= 0:
            start, end, _pointer, _key = self.tokens[index]
            if start <= offset <= end:
                return self.tokens[index]
            if end < offset and start < offset - 4096:
                break
            index -= 1
        return None

    @property
    def data(self) -> Any:
        return self.loaded.data if self.loaded is not None else None


class OpenDocument:
    """A document the client opened: its text, version and analyses."""

    def __init__(self, uri: str, text: str, version: int | None = None, *, offline: bool = False) -> None:
        self.uri = uri
        self.offline = offline  # never fetch a remote source (`arazzo lsp --offline`)
        self.path = uri_to_path(uri)
        self.location = self.path or os.path.join(os.getcwd(), "untitled.arazzo.yaml")
        self.text = text
        self.version = version
        self.sources = SourceStore(remote=not offline)
        self.analysis: Analysis | None = None  # of `text`, once analysed
        self.last_good: Analysis | None = None  # the latest analysis whose text parsed

    def analyse(self, *, again: bool = False) -> Analysis:
        """Parse, build and validate the current text (once per text; `again`: a file on disk may have
        changed, the sources' stamps are checked anew)."""
        if not again and self.analysis is not None and self.analysis.text == self.text:
            return self.analysis
        self.analysis = analyse(self.text, self.location, self.sources, offline=self.offline)
        if self.analysis.loaded is not None:
            self.last_good = self.analysis
        return self.analysis

    def usable(self) -> Analysis | None:
        """The analysis of the current text when it parsed, else the last one that did."""
        current = self.analyse()
        return current if current.loaded is not None else self.last_good


def analyse(text: str, location: str, store: SourceStore, *, offline: bool = False) -> Analysis:
    """Validate `text` as `arazzo validate` does (its rules, messages and configuration file), reusing
    the store's sources."""
    from ..loader import load_text
    from ..model import build_document
    from ..validate.core import unreadable_report, validate_loaded
    from ..workspace import Workspace

    try:
        loaded = load_text(text, location)
    except DocumentError as exc:
        return Analysis(text, location, None, None, None, unreadable_report(exc, location, False))
    document = build_document(loaded.data)
    workspace = Workspace(loaded, document, location, store.cache(loaded.data, location))
    report = validate_loaded(loaded, location, workspace=workspace, remote=not offline)
    store.remember()
    report = configured(report, location)
    return Analysis(text, location, loaded, document, workspace, report)


def configured(report: Any, location: str) -> Any:
    """The report with the rule levels of the document's configuration file applied, as `arazzo
    validate` applies them; a configuration file it refuses is one finding, at the document's start."""
    from ..errors import UsageError
    from ..records import replace
    from ..validate.config import settings_for
    from ..validate.findings import ERROR, Finding

    try:
        return settings_for(location).apply(report)
    except UsageError as exc:
        problem = Finding("config", ERROR, f"configuration file: {exc}", location, "", 1, 1)
        return replace(report, findings=[problem, *report.findings])
