"""Helpers of the language server tests: the server's command, documents opened and edited, positions."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

DOCS = Path(__file__).parent / "docs"
ROOT = Path(__file__).resolve().parents[3]

# `docs/adopt.yaml` is not named *.arazzo.yaml: the pytest plugin would collect it as a test.
# The server's own debounce is kept (0.2 s): the tests wait for the diagnostics they expect.
SERVER = [sys.executable, "-m", "arazzo_runner.cli", "lsp", "--offline"]


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def copy_docs(folder: Path) -> Path:
    for item in DOCS.iterdir():
        shutil.copy(item, folder / item.name)
    return folder


async def open_document(client: LanguageClient, path: Path, text: str | None = None) -> str:
    """Open `path` (with `text`, else its content) and wait for its first diagnostics; its URI."""
    uri = path.as_uri()
    content = path.read_text() if text is None else text
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, content))
    )
    await wait_diagnostics(client, uri)
    return uri


async def wait_diagnostics(client: LanguageClient, uri: str, version: int | None = None) -> list:
    """The next diagnostics published for `uri` (of `version`, when given)."""
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and (version is None or params.version == version):
            return list(params.diagnostics)


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def position_of(text: str, needle: str, shift: int = 0, nth: int = 0) -> types.Position:
    """The LSP position of the `nth` occurrence of `needle` in `text`, plus `shift` characters."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    index += shift
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


def range_of(text: str, needle: str, nth: int = 0) -> types.Range:
    start = position_of(text, needle, nth=nth)
    return types.Range(start, types.Position(start.line, start.character + len(needle)))
