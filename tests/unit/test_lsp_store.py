"""The language server's sources (`lsp/store.py`): read once for every validation of an open document,
read again when a file behind them changes (its modification time or size), appears or disappears."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.untested import not_installed

pytest.importorskip("lsprotocol", reason=not_installed("lsprotocol", "`arazzo lsp`", where="the lsp extra"))

from arazzo_runner.lsp.state import OpenDocument

DOCS = Path(__file__).resolve().parents[1] / "e2e" / "lsp" / "docs"


def _document(folder: Path) -> OpenDocument:
    for item in DOCS.iterdir():
        shutil.copy(item, folder / item.name)
    path = folder / "adopt.arazzo.yaml"
    path.write_text((folder / "adopt.yaml").read_text())
    return OpenDocument(path.as_uri(), path.read_text())


def _codes(doc: OpenDocument, again: bool = False) -> list[str]:
    return [finding.rule for finding in doc.analyse(again=again).report.findings]


def test_edits_reuse_the_sources_and_a_changed_file_is_read_again(tmp_path):
    doc = _document(tmp_path)
    text = doc.text
    assert _codes(doc) == []
    for number in range(3):  # edits: the sources stay as they were read
        doc.text = text.replace("operationId: listPets", f"operationId: listPets{number}")
        assert _codes(doc) == ["operation-exists"]
    assert doc.sources.loads == 1

    source = tmp_path / "pets.openapi.yaml"
    source.write_text(source.read_text().replace("operationId: listPets", "operationId: listPets2"))
    stat = source.stat()
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # a later mtime, surely
    assert _codes(doc) == ["operation-exists"]  # the same text: not validated again until asked
    assert _codes(doc, again=True) == []  # (a save, a watched file) listPets2 is there now
    assert doc.sources.loads == 2
    assert _codes(doc, again=True) == [] and doc.sources.loads == 2  # nothing changed: nothing read


def test_a_missing_source_file_that_appears_is_read(tmp_path):
    doc = _document(tmp_path)
    source = tmp_path / "pets.openapi.yaml"
    kept = source.read_text()
    source.unlink()
    assert _codes(doc) == ["source-unavailable"]
    source.write_text(kept)
    assert _codes(doc) == ["source-unavailable"]  # the same text: the diagnostics stand until asked again
    assert _codes(doc, again=True) == []
    assert doc.sources.loads == 2
