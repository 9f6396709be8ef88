"""The schema machinery resolves once: the official schemas are compiled (by both validators) and
crawled once per process, a valid document never reaches jsonschema, an OpenAPI schema is made into a
validator once per description, and none of it changes a verdict (the two validators agree on every
shared document; the corpus validated twice, in one process and in another, gives the same findings)."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema_specifications
import pytest
from referencing import Registry

from arazzo_runner.loader import load_text
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
        retries: 3  # not a field of a step: the fast validator rejects it, jsonschema explains
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
    schema.fast_validator.cache_clear()
    yield counts
    schema.validator.cache_clear()
    schema.fast_validator.cache_clear()


def test_the_official_schema_is_compiled_and_crawled_once_for_many_documents(
    counted: dict[str, int], check: Check
) -> None:
    first = check(INPUTS_1_0.replace("wN", "w0"), name="a0.arazzo.yaml")
    assert [f.message for f in first.findings] == ["unexpected field 'retries'"]
    assert counted == {"crawls": 1, "resolvers": 1}  # the 1.0 schema: compiled and crawled, once
    for n in range(1, 6):
        report = check(INPUTS_1_0.replace("wN", f"w{n}"), name=f"a{n}.arazzo.yaml")
        assert [f.message for f in report.findings] == ["unexpected field 'retries'"]
    # an uncrawled registry made referencing crawl the whole schema again for each $dynamicRef
    assert counted == {"crawls": 1, "resolvers": 1}
    assert schema.validator.cache_info().misses == 1
    assert schema.fast_validator.cache_info().misses == 1


def test_each_schema_line_is_compiled_once(counted: dict[str, int]) -> None:
    for version in ("1.0.1", "1.1.0", "1.0.0", "1.1.0"):  # invalid: no sourceDescriptions, no workflows
        problems = schema.check_schema({"arazzo": version, "info": {"title": "t", "version": "1"}})
        assert "missing required field 'workflows'" in [p.message for p in problems]
    assert counted["resolvers"] == 2
    assert schema.validator.cache_info().misses == 2
    assert schema.fast_validator.cache_info().misses == 2


def test_a_valid_document_never_reaches_jsonschema(monkeypatch: pytest.MonkeyPatch, check: Check) -> None:
    explained: list[str] = []
    slow = schema.jsonschema_problems

    def counting(data: object, line: str) -> list[object]:
        explained.append(line)
        return slow(data, line)

    monkeypatch.setattr(schema, "jsonschema_problems", counting)
    valid = INPUTS_1_0.replace("wN", "w").replace("        retries: 3", "")
    assert check(valid).findings == []
    assert explained == []
    assert [f.message for f in check(INPUTS_1_0).findings] == ["unexpected field 'retries'"]
    assert explained == ["1.0"]


def test_data_the_fast_validator_cannot_take_is_decided_by_jsonschema() -> None:
    # the loader gives JSON values only; a library caller's data may hold others, e.g. a date
    data = load_text(INPUTS_1_0.replace("wN", "w").replace("        retries: 3", ""), "x.yaml").data
    data["info"]["version"] = datetime.date(2026, 12, 1)
    assert schema.fast_validator("1.0") is not None and not schema.schema_valid(data, "1.0")
    problems = schema.check_schema(data)
    assert problems == schema.jsonschema_problems(data, "1.0")
    assert [(p.at, p.message) for p in problems] == [(("info", "version"), "expected string, got date")]


def test_without_jsonschema_rs_jsonschema_alone_decides(
    monkeypatch: pytest.MonkeyPatch, check: Check
) -> None:
    monkeypatch.setattr(schema, "fast_validator", lambda line: None)
    assert check(INPUTS_1_0.replace("wN", "w").replace("        retries: 3", "")).findings == []
    assert [f.message for f in check(INPUTS_1_0).findings] == ["unexpected field 'retries'"]


def test_explaining_skips_what_jsonschema_rs_finds_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    # nine valid workflows and one with a stray field: jsonschema descends into the one only
    data = load_text(INPUTS_1_0.replace("        retries: 3", ""), "x.yaml").data
    data["workflows"] = [dict(data["workflows"][0], workflowId=f"w{n}") for n in range(10)]
    data["workflows"][7]["steps"] = [dict(data["workflows"][7]["steps"][0], retries=3)]
    skipped: list[Any] = []
    decide = schema._valid_under

    def counting(line: str, ref: str, instance: Any) -> bool:
        valid = decide(line, ref, instance)
        skipped.extend([instance] if valid and ref == "#/$defs/workflow-object" else [])
        return valid

    monkeypatch.setattr(schema, "_valid_under", counting)
    problems = schema.jsonschema_problems(data, "1.0")
    assert [(p.at, p.message) for p in problems] == [
        (("workflows", 7, "steps", 0, "retries"), "unexpected field 'retries'")
    ]
    # the valid workflows were skipped, not descended into
    assert [id(each) for each in skipped] == [id(w) for n, w in enumerate(data["workflows"]) if n != 7]
    monkeypatch.setattr(schema, "_valid_under", lambda line, ref, instance: False)
    assert schema.jsonschema_problems(data, "1.0") == problems  # as jsonschema alone says


def _shared_documents() -> list[Path]:
    suites = SHARED / "arazzo" / "schema-tests"
    return CORPUS + _documents(SHARED / "arazzo") + sorted(p for p in suites.glob("*/*/*") if p.is_file())


@needs_shared
def test_the_two_validators_agree_on_every_shared_document(monkeypatch: pytest.MonkeyPatch) -> None:
    """jsonschema alone (not skipping what jsonschema-rs finds valid under a `$defs` entry) finds a
    shared document valid when jsonschema-rs does, and explains it with the same problems as the
    explaining that skips (`_ref_keyword`)."""
    from arazzo_runner.loader import load_path

    found = {}
    for path in dict.fromkeys(_shared_documents()):
        data = load_path(path).data
        suite = path.parts[-3] if "schema-tests" in path.parts else None
        line = suite if suite in schema.SCHEMA_LINES else schema.schema_line(data)
        found[path] = (data, line, schema.jsonschema_problems(data, line))
    monkeypatch.setattr(schema, "_valid_under", lambda line, ref, instance: False)  # jsonschema alone
    explained = 0
    for path, (data, line, problems) in found.items():
        alone = schema.jsonschema_problems(data, line)
        assert schema.schema_valid(data, line) == (alone == []), path
        assert problems == alone, path
        explained += bool(alone)
    assert len(found) > 160 and explained > 40


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
        len(payload) == 2 and '"bird" is not one of' in payload[0][1] and "7 is not of type" in payload[1][1]
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

    documents = CORPUS + _documents(SHARED / "arazzo")  # as `arazzo validate` finds them
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
