"""The schema machinery resolves once: the official schemas are compiled and crawled once per process,
an OpenAPI schema is made into a validator once per description, and caching changes no verdict
(the corpus validated twice, in one process and in another, gives the same findings)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema_specifications
import pytest
from referencing import Registry

from arazzo_runner.sources import schema_registry
from arazzo_runner.validate import openapi_schemas, schema
from arazzo_runner.validate.format import format_json

from .conftest import Check
from .test_validate_corpus import CORPUS, SHARED, _documents, needs_shared

ROOT = Path(__file__).resolve().parents[3]
INPUTS_1_0 = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: wN
    inputs:  # a Schema Object: the official schema reaches it through $dynamicRef
      type: object
      properties: {name: {type: string}, tags: {type: array, items: {type: string}}}
    steps:
      - stepId: s
        operationId: listPets
        successCriteria: [{condition: $statusCode == 200}]
"""


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts `Registry.crawl` calls that do work (crawl a resource not crawled yet) and root resolvers
    built, with the validator cache emptied first (restored after the test)."""
    assert len(jsonschema_specifications.REGISTRY)  # the meta-schemas, crawled at import: not counted
    counts = {"crawls": 0, "resolvers": 0}
    crawl, root = Registry.crawl, schema_registry.root_resolver

    def counting_crawl(self: Registry) -> Registry:
        counts["crawls"] += bool(self._uncrawled)
        return crawl(self)

    def counting_root(*args: object, **kwargs: object) -> object:
        counts["resolvers"] += 1
        return root(*args, **kwargs)

    monkeypatch.setattr(Registry, "crawl", counting_crawl)
    monkeypatch.setattr(schema_registry, "root_resolver", counting_root)
    schema.validator.cache_clear()
    yield counts
    schema.validator.cache_clear()


def test_the_official_schema_is_compiled_and_crawled_once_for_many_documents(
    counted: dict[str, int], check: Check
) -> None:
    first = check(INPUTS_1_0.replace("wN", "w0"), name="a0.arazzo.yaml")
    assert first.findings == []
    assert counted == {"crawls": 1, "resolvers": 1}  # the 1.0 schema: compiled and crawled, once
    for n in range(1, 6):
        assert check(INPUTS_1_0.replace("wN", f"w{n}"), name=f"a{n}.arazzo.yaml").findings == []
    # an uncrawled registry made referencing crawl the whole schema again for each $dynamicRef
    assert counted == {"crawls": 1, "resolvers": 1}
    assert schema.validator.cache_info().misses == 1


def test_each_schema_line_is_compiled_once(counted: dict[str, int]) -> None:
    for version in ("1.0.1", "1.1.0", "1.0.0", "1.1.0"):
        schema.check_schema({"arazzo": version, "info": {"title": "t", "version": "1"}})
    assert counted["resolvers"] == 2
    assert schema.validator.cache_info().misses == 2


TWO_POSTS = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: a
        operationId: createPet
        requestBody: {contentType: application/json, payload: {name: Rex, kind: bird}}
      - stepId: b
        operationId: createPet
        requestBody: {contentType: application/json, payload: {name: 7}}
      - stepId: c
        operationId: createPet
        requestBody: {contentType: application/json, payload: {name: Tom}}
"""


def test_an_openapi_schema_is_made_a_validator_once_per_description(
    monkeypatch: pytest.MonkeyPatch, check: Check
) -> None:
    built: list[object] = []
    build = openapi_schemas._description_validator

    def counting(cls: object, schema_: object, *args: object) -> object:
        built.append(schema_)
        return build(cls, schema_, *args)

    monkeypatch.setattr(openapi_schemas, "_description_validator", counting)
    report = check(TWO_POSTS, sources=True)
    payload = [(f.line, f.message) for f in report.findings if f.rule == "payload-schema"]
    assert (
        len(payload) == 2 and "'bird' is not one of" in payload[0][1] and "7 is not of type" in payload[1][1]
    )
    assert len(built) == 1  # three steps, one schema: one validator


def test_the_description_registry_is_crawled_when_built(tmp_path: Path) -> None:
    from arazzo_runner.sources import load_openapi

    path = tmp_path / "api.yaml"
    path.write_text(OPENAPI_WITH_ANCHOR, encoding="utf-8")
    description = load_openapi(str(path))
    registry = description.schema_registry
    assert not registry._uncrawled  # the description and the meta-schemas: crawled once, up front
    assert description.schema_registry is registry
    # the anchor is known without another crawl: a lookup resolves it from this registry as it is
    resolved = registry.resolver(base_uri=description.uri).lookup("#pet")
    assert resolved.contents["$anchor"] == "pet"


OPENAPI_WITH_ANCHOR = """\
openapi: 3.1.0
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Pet: {$anchor: pet, type: object}
"""


@needs_shared
def test_validating_the_corpus_twice_gives_identical_findings_in_one_process_and_across() -> None:
    from arazzo_runner.validate import validate_path

    documents = CORPUS + _documents(SHARED / "arazzo")
    first = json.loads(format_json([validate_path(p, remote=False) for p in documents]))
    second = json.loads(format_json([validate_path(p, remote=False) for p in documents]))
    assert first == second
    assert len(first["findings"]) > 100  # the corpus's known mistakes are there
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arazzo_runner.cli",
            "validate",
            "--offline",
            "--format",
            "json",
            *map(str, documents),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout) == first
