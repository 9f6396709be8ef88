"""`arazzo validate FILE...` reads a description that several of its documents name once
(`sources.cache.SharedDocuments`), and says exactly what validating each file alone says: the same
findings in the same order, a source that cannot be read quoted as each document wrote its URL, the
`$ref`s of a shared description resolved for each document."""

from __future__ import annotations

import io
import json
import sys
import textwrap
from pathlib import Path

import pytest

from arazzo_runner.cli import main
from arazzo_runner.sources import cache as source_cache
from arazzo_runner.sources.cache import SharedDocuments
from arazzo_runner.sources.parse import ParsedDoc

from .conftest import OPENAPI

FLOW = """\
arazzo: 1.0.1
info: {{title: t, version: '1'}}
sourceDescriptions:
  - {{name: api, url: '{url}', type: openapi}}
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: {operation}
        successCriteria: [{{condition: $statusCode == 200}}]
"""

REFERENCING = """\
openapi: 3.1.0
info: {title: Referencing, version: '1'}
paths:
  /things:
    $ref: './paths.yaml#/things'
"""

PATHS = """\
things:
  get:
    operationId: listThings
    responses:
      '200': {description: ok}
"""


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files the source loader parses, in order (the parsed-source store off, which
    would read YAML sources parsed by an earlier validation back)."""
    monkeypatch.setenv("ARAZZO_NO_CACHE", "1")
    parsed: list[str] = []
    parse = source_cache.parse_source

    def counting(content: bytes, location: str) -> ParsedDoc:
        parsed.append(Path(location).name)
        return parse(content, location)

    monkeypatch.setattr(source_cache, "parse_source", counting)
    return parsed


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def _findings(*files: str) -> list[dict]:
    out, old = io.StringIO(), sys.stdout
    sys.stdout = out
    try:
        main(["validate", "--offline", "--format", "json", *files])
    finally:
        sys.stdout = old
    return json.loads(out.getvalue())["findings"]


def _corpus(tmp_path: Path) -> list[str]:
    _write(tmp_path / "a" / "api.yaml", OPENAPI)
    _write(tmp_path / "r" / "api.yaml", REFERENCING)
    _write(tmp_path / "r" / "paths.yaml", PATHS)
    flows = [
        ("a/one.arazzo.yaml", "./api.yaml", "listPets"),
        ("b/two.arazzo.yaml", "../a/api.yaml", "noSuchOperation"),  # the same file, written otherwise
        ("c/three.arazzo.yaml", "../a/missing.yaml", "listPets"),
        ("d/four.arazzo.yaml", "../c/../a/missing.yaml", "listPets"),  # the same missing file
        ("r/five.arazzo.yaml", "./api.yaml", "listThings"),
        ("b/six.arazzo.yaml", "../r/api.yaml", "listPets"),  # its $ref'd paths.yaml, read for it too
    ]
    return [_write(tmp_path / name, FLOW.format(url=url, operation=op)) for name, url, op in flows]


def test_one_invocation_says_what_each_file_alone_says(tmp_path, parses):
    files = _corpus(tmp_path)
    alone = [finding for file in files for finding in _findings(file)]
    assert sorted(parses) == sorted(
        ["api.yaml", "api.yaml", "api.yaml", "paths.yaml", "api.yaml", "paths.yaml"]
    )
    parses.clear()
    together = _findings(*files)
    assert together == alone
    assert sorted(parses) == ["api.yaml", "api.yaml", "paths.yaml"]  # each description file once
    missing = [f["message"] for f in together if f["rule"] == "source-unavailable"]
    assert len(missing) == 2
    assert missing[0].startswith(
        "source 'api' (../a/missing.yaml) cannot be loaded: cannot read ../a/missing.yaml"
    )
    assert missing[1].startswith(
        "source 'api' (../c/../a/missing.yaml) cannot be loaded: cannot read ../c/../a"
    )
    assert [f["file"] for f in together if f["rule"] == "operation-exists"] == [files[1], files[5]]


def test_the_shared_documents_are_the_last_few():
    shared = SharedDocuments(keep=2)
    docs = [ParsedDoc(f"/x/{n}.yaml", {"n": n}) for n in range(3)]
    shared.put(docs[0], 100, "/x/0.yaml", "/x/zero.yaml")  # stored under two locations (a redirect)
    shared.put(docs[1], 100, "/x/1.yaml")
    assert shared.get("/x/zero.yaml", 100) is docs[0]  # used again: the most recent
    shared.put(docs[2], 100, "/x/2.yaml")
    assert [shared.get(f"/x/{n}.yaml", 100) for n in range(3)] == [docs[0], None, docs[2]]
    assert shared.get("/x/0.yaml", 200) is None  # read with another size limit: not the same reading
