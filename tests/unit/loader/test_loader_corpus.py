"""Every YAML/JSON document in the shared corpus loads or fails with a DocumentError, nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arazzo_runner.errors import DocumentError
from arazzo_runner.loader import load_path
from arazzo_runner.loader.pointer import escape_token
from tests.shared import MISSING, SHARED

SUFFIXES = {".yaml", ".yml", ".json"}


def corpus_files() -> list[Path]:
    roots = [SHARED / "corpus", SHARED / "arazzo"]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*") if p.suffix in SUFFIXES)


FILES = corpus_files()


@pytest.mark.skipif(not FILES, reason=MISSING)
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SHARED)))
def test_corpus_file_loads_or_fails_cleanly(path: Path) -> None:
    try:
        doc = load_path(path)
    except DocumentError as err:
        assert err.file == str(path)
        assert err.line >= 1
        return
    json.dumps(doc.data)  # JSON-compatible through and through
    if isinstance(doc.data, dict):
        lines = path.read_text(encoding="utf-8-sig").splitlines()
        for key in doc.data:
            # The key position points at the key's text (possibly quoted) in the source.
            line, column = doc.positions.locate_key("/" + escape_token(key))
            assert lines[line - 1][column - 1 :].lstrip("\"'").startswith(key)
