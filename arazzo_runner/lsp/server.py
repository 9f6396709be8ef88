"""The language server's wiring: pygls's `LanguageServer`, the LSP methods it answers, each handed to
the module of its concern (`diagnostics`, `completion`, `navigation`, `hover`, `actions`).

Diagnostics are published after the edits stop for `DEBOUNCE` seconds (typing re-validates once, not on
every key), at once when a document is opened or saved; a save, or a watched file's change, re-validates
every open document, whose sources are read again if their files changed (`store.py`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from .lastrun import Reports
from .state import OpenDocument

DEBOUNCE = 0.2
log = logging.getLogger(__name__)


class ArazzoServer(LanguageServer):
    """The open documents by URI, and the pending (debounced) validations."""

    def __init__(self, *, offline: bool = False, debounce: float = DEBOUNCE) -> None:
        super().__init__("arazzo", __version__)
        self.documents: dict[str, OpenDocument] = {}
        self.offline = offline
        self.debounce = debounce
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self.reports = Reports()  # the run reports beside the documents, for hover (`lastrun.py`)

    def document(self, uri: str) -> OpenDocument | None:
        return self.documents.get(uri)

    def publish(self, uri: str, *, again: bool = False) -> None:
        """Validate the document now and publish its diagnostics (never raises: a bug is logged)."""
        from .diagnostics import diagnostics

        self._pending.pop(uri, None)
        doc = self.documents.get(uri)
        if doc is None:
            return
        try:
            analysis = doc.analyse(again=again)
            found = diagnostics(analysis, uri)
        except Exception:
            log.exception("validating %s", uri)
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=doc.version)
        )

    def schedule(self, uri: str) -> None:
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        loop = asyncio.get_running_loop()
        self._pending[uri] = loop.call_later(self.debounce, self.publish, uri)


def build_server(*, offline: bool = False, debounce: float = DEBOUNCE) -> ArazzoServer:
    server = ArazzoServer(offline=offline, debounce=debounce)
    _documents(server)
    _features(server)
    _navigation(server)
    _actions(server)
    return server


def _documents(server: ArazzoServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ArazzoServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        ls.documents[item.uri] = OpenDocument(item.uri, item.text, item.version, offline=ls.offline)
        ls.publish(item.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ArazzoServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = ls.documents.get(uri)
        if doc is None:
            return
        doc.text = ls.workspace.get_text_document(uri).source  # pygls applied the changes to its copy
        doc.version = params.text_document.version
        ls.schedule(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ArazzoServer, params: types.DidSaveTextDocumentParams) -> None:
        for uri in list(ls.documents):  # a saved OpenAPI file is a source of the others
            ls.publish(uri, again=True)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: ArazzoServer, params: types.DidChangeWatchedFilesParams) -> None:
        for uri in list(ls.documents):
            ls.publish(uri, again=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ArazzoServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        pending = ls._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        ls.documents.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _features(server: Any) -> None:
    """The language features (completion, navigation, hover, code actions)."""

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[".", "$", "/", ":", " "]),
    )
    def completion(ls: ArazzoServer, params: types.CompletionParams) -> types.CompletionList | None:
        from .completion import complete

        doc = ls.documents.get(params.text_document.uri)
        if doc is None:
            return None
        return types.CompletionList(is_incomplete=False, items=_guarded(complete, [], doc, params.position))


def _navigation(server: Any) -> None:
    """Definition, references, rename, document symbols and hover: on the current text when it parses,
    else nothing (positions in a text that does not parse cannot be trusted)."""
    from . import hover, navigation

    def parsed(ls: ArazzoServer, uri: str) -> Any:
        doc = ls.documents.get(uri)
        if doc is None:
            return None
        analysis = doc.analyse()
        return analysis if analysis.loaded is not None else None

    def offset(analysis: Any, position: types.Position) -> int:
        return analysis.lines.offset(position)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: ArazzoServer, params: types.DefinitionParams) -> Any:
        uri = params.text_document.uri
        analysis = parsed(ls, uri)
        if analysis is None:
            return None
        return _guarded(navigation.definition, None, analysis, uri, offset(analysis, params.position))

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def references(ls: ArazzoServer, params: types.ReferenceParams) -> Any:
        uri = params.text_document.uri
        analysis = parsed(ls, uri)
        if analysis is None:
            return []
        at = offset(analysis, params.position)
        return _guarded(navigation.references, [], analysis, uri, at, params.context.include_declaration)

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: ArazzoServer, params: types.PrepareRenameParams) -> Any:
        analysis = parsed(ls, params.text_document.uri)
        if analysis is None:
            return None
        return _guarded(navigation.prepare_rename, None, analysis, offset(analysis, params.position))

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    def rename(ls: ArazzoServer, params: types.RenameParams) -> Any:
        uri = params.text_document.uri
        analysis = parsed(ls, uri)
        if analysis is None:
            return None
        # a name that is not an id: the ValueError is the error response the client shows
        return navigation.rename(analysis, uri, offset(analysis, params.position), params.new_name)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: ArazzoServer, params: types.DocumentSymbolParams) -> Any:
        return _guarded(navigation.symbols, [], parsed(ls, params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: ArazzoServer, params: types.HoverParams) -> Any:
        from .lastrun import last_run_hover

        doc = ls.documents.get(params.text_document.uri)
        analysis = parsed(ls, params.text_document.uri)
        if doc is None or analysis is None:
            return None
        at = offset(analysis, params.position)
        found = _guarded(hover.hover, None, analysis, at)
        run = _guarded(last_run_hover, None, ls.reports, analysis, at, doc.path, doc.text)
        return hover.with_last_run(found, run, analysis)


def _actions(server: Any) -> None:
    """Quick fixes, fix all (resolved when chosen: it validates the text once per pass), and the
    command running a workflow."""
    from . import actions

    kinds = [types.CodeActionKind.QuickFix, actions.FIX_ALL, types.CodeActionKind.Source]

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(kinds, resolve_provider=True))
    def code_action(ls: ArazzoServer, params: types.CodeActionParams) -> Any:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None:
            return []
        analysis = doc.analyse()
        only = params.context.only
        return _guarded(actions.code_actions, [], analysis, doc.uri, params.range, only)

    @server.feature(types.CODE_ACTION_RESOLVE)
    def resolve(ls: ArazzoServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        doc = ls.documents.get(data.get("uri", ""))
        if doc is not None and data.get("fixAll"):
            analysis = doc.analyse()
            if analysis.loaded is not None:
                action.edit = _guarded(actions.fix_all, None, analysis, doc.uri, ls.offline)
        return action

    @server.command(actions.RUN_WORKFLOW)
    async def run_workflow(ls, *arguments):  # unannotated: pygls converts the arguments by annotation
        doc = ls.documents.get(arguments[0]) if arguments and isinstance(arguments[0], str) else None
        if doc is None:
            return {"status": "error", "error": "arazzo.runWorkflow: the document is not open"}
        return await actions.run_workflow(doc, list(arguments))


def _guarded(feature: Any, empty: Any, *args: Any) -> Any:
    """A feature's answer; on a bug, the empty answer and the traceback in the log (never a crash)."""
    try:
        return feature(*args)
    except Exception:
        log.exception("%s", getattr(feature, "__name__", feature))
        return empty


def serve_stdio(*, offline: bool = False) -> None:
    """Serve over this process's own stdin and stdout (the CLI's streams are wrapped for terminals)."""
    import sys

    server = build_server(offline=offline)
    server.start_io(sys.__stdin__.buffer, sys.__stdout__.buffer)
