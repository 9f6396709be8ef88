"""The JSON Schema layer: the official test suites agree 100%, the 1.0 patches, readable messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from arazzo_runner.loader import load_path
from arazzo_runner.validate import validate_path
from arazzo_runner.validate.schema import check_schema, schema_document, schema_line
from tests.shared import MISSING, SHARED

from .conftest import Check

SUITES = SHARED / "arazzo" / "schema-tests"
needs_shared = pytest.mark.skipif(not SUITES.is_dir(), reason=MISSING)


def _suite(kind: str) -> list[Path]:
    if not SUITES.is_dir():
        return []
    return sorted(p for p in SUITES.glob(f"*/{kind}/*") if p.is_file())


def _id(path: Path) -> str:
    return "/".join(path.parts[-3:])


@needs_shared
@pytest.mark.parametrize("path", _suite("pass"), ids=_id)
def test_every_official_pass_file_is_schema_valid(path: Path) -> None:
    line = path.parts[-3]
    assert check_schema(load_path(path).data, line) == []
    report = validate_path(path, schema_only=True)
    assert report.valid, [str(f) for f in report.findings]
    full = validate_path(path, load_sources=False)
    assert not {"schema", "document-shape"} & full.rules(), [str(f) for f in full.findings]


@needs_shared
@pytest.mark.parametrize("path", _suite("fail"), ids=_id)
def test_every_official_fail_file_is_invalid(path: Path) -> None:
    report = validate_path(path, load_sources=False)
    assert not report.valid
    assert report.errors
    # The schema alone rejects it too, or else a semantic rule is what catches it:
    schema_alone = validate_path(path, schema_only=True)
    caught_by_rules = {f.rule for f in report.errors} - {"schema", "document-shape"}
    assert not schema_alone.valid or caught_by_rules


@needs_shared
def test_the_suites_are_complete() -> None:
    assert len(_suite("pass")) == 38 and len(_suite("fail")) == 29


CRITERION_TYPE_OBJECT = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters: [{name: petId, in: path, value: 1}]
        requestBody:
          contentType: application/json
          payload: {name: Rex}
          replacements:
            - {target: /age, value: 3}
        successCriteria:
          - context: $response.body
            condition: //pet
            type: {type: xpath, version: xpath-30}
"""


def test_the_patched_1_0_schema_accepts_an_expression_type_object_and_any_replacement_value() -> None:
    data = __import__("yaml").safe_load(CRITERION_TYPE_OBJECT)
    assert check_schema(data, "1.0") == []


@needs_shared
def test_the_unpatched_official_1_0_schema_rejects_them() -> None:
    from jsonschema import Draft202012Validator

    official = load_path(SHARED / "arazzo" / "schemas" / "1.0" / "schema.yaml").data
    data = __import__("yaml").safe_load(CRITERION_TYPE_OBJECT)
    errors = list(Draft202012Validator(official).iter_errors(data))
    paths = {"/".join(map(str, e.absolute_path)) for e in errors}
    assert "workflows/0/steps/0/requestBody/replacements/0/value" in paths
    assert "workflows/0/steps/0/successCriteria/0" in paths


def test_the_patches_are_marked_in_the_copy() -> None:
    from importlib import resources

    text = resources.files("arazzo_runner.validate").joinpath("schemas/1.0/schema.yaml").read_text("utf-8")
    assert text.count("PATCHED (arazzo-engine)") == 2
    assert schema_document("1.0")["$id"].startswith("https://spec.openapis.org/arazzo/1.0/")
    assert schema_document("1.1")["$id"].startswith("https://spec.openapis.org/arazzo/1.1/")


def test_schema_line() -> None:
    assert schema_line({"arazzo": "1.0.1"}) == "1.0"
    assert schema_line({"arazzo": "1.1.0"}) == "1.1"
    assert schema_line({"arazzo": 2}) == "1.1"
    assert schema_line([]) == "1.1"


def test_a_one_of_failure_is_explained_by_the_meant_branch(check: Check) -> None:
    report = check(
        """\
        arazzo: 1.1.0
        info: {title: t, version: '1'}
        sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
        workflows:
          - workflowId: w
            steps:
              - stepId: s
                operationId: getPet
                successCriteria: []
                colour: blue
        """,
        schema_only=True,
    )
    assert [(f.line, f.path, f.message) for f in report.findings] == [
        (9, "/workflows/0/steps/0/successCriteria", "must not be empty"),
        (10, "/workflows/0/steps/0/colour", "unexpected field 'colour'"),
    ]


def test_a_misspelt_field_is_named_with_the_field_it_most_likely_meant(check: Check) -> None:
    # Issue 37 item 11: the did-you-mean the id rules give, for a field the schema does not declare;
    # a field the object already has is not offered, and a name close to none gets no hint.
    report = check(
        """\
        arazzo: 1.0.1
        info: {title: t, version: '1'}
        sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
        workflows:
          - workflowId: w
            steps:
              - stepId: s
                operationId: getPet
                sucessCriteria: [{condition: $statusCode == 200}]
                Parameters: []
                colour: blue
              - stepId: t
                operationId: getPet
                parameters: []
                Parameters: []
            output: {}
        """,
        schema_only=True,
    )
    assert [(f.line, f.message) for f in report.findings] == [
        (9, "unexpected field 'sucessCriteria'; did you mean 'successCriteria'?"),
        (10, "unexpected field 'Parameters'; did you mean 'parameters'?"),
        (11, "unexpected field 'colour'"),
        (15, "unexpected field 'Parameters'"),
        (16, "unexpected field 'output'; did you mean 'outputs'?"),
    ]


def test_extensions_are_allowed(check: Check) -> None:
    report = check(
        """\
        arazzo: 1.0.1
        info: {title: t, version: '1', x-team: core}
        sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
        x-generated: true
        workflows:
          - workflowId: w
            x-owner: me
            steps: [{stepId: s, operationId: listPets}]
        """,
        schema_only=True,
    )
    assert report.findings == []
