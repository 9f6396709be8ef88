"""Every OpenAPI document in the shared corpus gives what it is expected to give: it loads, with so many
operations and security schemes, and each of its operations reads (parameters, request body, responses,
servers, security) or fails with the error recorded for it; or the whole document fails with its
recorded error. The expectations are in `corpus_expected.json` (a regression that starts refusing a
good document, or accepting a broken one, fails here); after a deliberate change, or when the corpus
grows, rewrite them with `python -m tests.unit.sources.test_sources_corpus --record` and review the
diff."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arazzo_runner.errors import DocumentError
from arazzo_runner.sources import SourceCache, load_openapi
from tests.shared import MISSING, SHARED

EXPECTED = Path(__file__).with_name("corpus_expected.json")
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
_PARAMS = FILES or [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]


def test_the_corpus_is_there_and_each_document_has_its_expectation() -> None:
    if not SHARED.is_dir():
        pytest.skip(MISSING)
    assert len(FILES) >= 30
    assert sorted(_expected()) == sorted(str(path.relative_to(SHARED)) for path in FILES)
    loading = [name for name, expected in _expected().items() if "error" not in expected]
    assert len(loading) >= 30  # most of the corpus loads


def outcome(path: Path) -> dict:
    """What loading `path` gives: its error, or its counts and the error of each operation that fails."""
    try:
        api = load_openapi(str(path), None, cache=SourceCache())
    except DocumentError as exc:  # SourceError is a DocumentError
        return {"error": exc.message}
    broken = {}
    for op in api.operations:
        try:
            op.parameters, op.request_body, op.responses, op.servers, op.security  # noqa: B018
        except DocumentError as exc:
            broken[op.pointer] = exc.message
    return {"operations": len(api.operations), "schemes": len(api.security_schemes), "broken": broken}


def _expected() -> dict:
    return json.loads(EXPECTED.read_text(encoding="utf-8")) if EXPECTED.exists() else {}


@pytest.mark.parametrize("path", _PARAMS, ids=lambda path: str(path.relative_to(SHARED)) if path else "none")
def test_corpus_document_gives_what_it_is_expected_to(path: Path) -> None:
    name = str(path.relative_to(SHARED))
    expected = _expected().get(name)
    assert expected is not None, f"no expectation recorded for {name}: record it (see the module docstring)"
    assert outcome(path) == expected


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python -m tests.unit.sources.test_sources_corpus --record")
    recorded = {str(path.relative_to(SHARED)): outcome(path) for path in FILES}
    EXPECTED.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{EXPECTED}: {len(recorded)} documents")
