"""Every OpenAPI document in the shared corpus loads, or fails with a SourceError/DocumentError."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arazzo_runner.errors import DocumentError
from arazzo_runner.sources import SourceCache, load_openapi
from tests.shared import SHARED

_YAML_OPENAPI = re.compile(rb"^[\"']?openapi[\"']?\s*:", re.MULTILINE)  # a top-level key: column 0


def _has_openapi_key(path: Path) -> bool:
    raw = path.read_bytes()
    if path.suffix == ".json":
        try:
            data = json.loads(raw)
        except ValueError:
            return False
        return isinstance(data, dict) and "openapi" in data
    return _YAML_OPENAPI.search(raw) is not None


def _openapi_files() -> list[Path]:
    roots = [SHARED / "corpus", SHARED / "arazzo" / "examples"]
    return [
        path
        for root in roots
        for path in sorted(root.rglob("*"))
        if path.suffix in (".yaml", ".yml", ".json") and _has_openapi_key(path)
    ]


FILES = _openapi_files() if SHARED.is_dir() else []
# without ../shared: one test skipped with the reason, rather than pytest's "got empty parameter set"
_PARAMS = FILES or [pytest.param(None, marks=pytest.mark.skip(reason="../shared is not available"))]


def test_the_corpus_is_there() -> None:
    if not SHARED.is_dir():
        pytest.skip("../shared is not available")
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", _PARAMS, ids=lambda path: str(path.relative_to(SHARED)) if path else "none")
def test_corpus_document_loads_or_fails_cleanly(path: Path) -> None:
    try:
        api = load_openapi(str(path), None, cache=SourceCache())
    except DocumentError:  # SourceError is a DocumentError
        return
    for op in api.operations:
        try:
            op.parameters, op.request_body, op.responses, op.servers, op.security  # noqa: B018
        except DocumentError:
            continue
    api.security_schemes  # noqa: B018
