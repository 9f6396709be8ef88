"""Inputs schemas: one that is not an object can never be satisfied; `$inputs.x` that the schema does not
declare is an error when the schema accepts no other name, a warning otherwise."""

from __future__ import annotations

import pytest

from .conftest import Check, summary

HEAD = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
"""


def _reading(inputs: str, reference: str = "$inputs.petId", components: str = "") -> str:
    return (
        HEAD
        + f"""\
workflows:
  - workflowId: w
    inputs: {inputs}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {{name: petId, in: path, value: '{reference}'}}
"""
        + components
    )


def _found(check: Check, doc: str) -> list[tuple[str, str, int]]:
    return [(f.rule, f.severity, f.line) for f in check(doc).findings]


@pytest.mark.parametrize("kind", ["string", "[string, 'null']", "array"])
def test_an_inputs_schema_that_is_not_an_object_is_an_error_and_so_is_each_input(
    check: Check, kind: str
) -> None:
    report = check(_reading(f"{{type: {kind}}}"))
    assert [(f.rule, f.severity, f.line) for f in report.findings] == [
        ("inputs-schema", "error", 7),
        ("input-reference", "error", 12),
    ], summary(report)
    assert "inputs are an object (name -> value): no run can satisfy it" in report.findings[0].message
    assert "which has no input 'petId'" in report.findings[1].message


@pytest.mark.parametrize("kind", ["object", "[object, 'null']"])
def test_an_object_schema_is_fine(check: Check, kind: str) -> None:
    doc = _reading(f"{{type: {kind}, properties: {{petId: {{type: integer}}}}}}")
    assert _found(check, doc) == []


def test_a_non_object_schema_behind_a_ref_is_reported_in_the_workflow(check: Check) -> None:
    # In the workflow (where the $ref is), not in components: a run that does not reach the workflow
    # is not refused for it (see test_validate_reach.py).
    components = "components:\n  inputs:\n    ids:\n      type: array\n"
    report = check(_reading("{$ref: '#/components/inputs/ids'}", components=components))
    assert [(f.rule, f.line, f.path) for f in report.findings] == [
        ("inputs-schema", 7, "/workflows/0/inputs"),
        ("input-reference", 12, "/workflows/0/steps/0/parameters/0/value"),
    ]
    assert (
        "has type array (at /components/inputs/ids/type), but inputs are an object"
        in report.findings[0].message
    )


def test_an_undeclared_input_of_a_closed_schema_is_an_error_with_a_hint(check: Check) -> None:
    schema = "{type: object, properties: {petId: {type: integer}}, additionalProperties: false}"
    report = check(_reading(schema, "$inputs.petid"))
    [found] = report.findings
    assert (found.rule, found.severity, found.line) == ("input-reference", "error", 12)
    assert found.message == (
        "$inputs.petid: workflow 'w' declares no input 'petid' and accepts no other (inputs: petId); "
        "did you mean 'petId'?"
    )


@pytest.mark.parametrize(
    "schema",
    [
        "{type: object, properties: {petId: {type: integer}}}",
        "{type: object, properties: {petId: {type: integer}}, additionalProperties: true}",
        "{type: object}",
    ],
)
def test_an_undeclared_input_of_an_open_schema_is_a_warning(check: Check, schema: str) -> None:
    report = check(_reading(schema, "$inputs.petid"))
    assert [(f.rule, f.severity, f.line) for f in report.findings] == [("input-reference", "warning", 12)]
    assert report.valid


@pytest.mark.parametrize(
    "schema",
    [
        "{type: object, additionalProperties: {type: integer}}",
        "{type: object, patternProperties: {'^pet': {type: integer}}}",
        "{$ref: 'other.yaml#/inputs'}",
    ],
)
def test_names_declared_by_rule_or_elsewhere_are_not_checked(check: Check, schema: str) -> None:
    found = _found(check, _reading(schema, "$inputs.anything"))
    assert [f for f in found if f[0] != "component-reference"] == []


def test_an_inputs_schema_ref_to_another_document_is_an_error(check: Check) -> None:
    """Inputs validation resolves only inside the Arazzo document and never fetches (at run time such a
    `$ref` is refused, so `arazzo validate` says so first)."""
    report = check(_reading("{$ref: 'other.yaml#/inputs'}", "$inputs.anything"))
    [finding] = [f for f in report.findings if f.rule == "component-reference"]
    assert finding.severity == "error"
    assert finding.message == (
        "'$ref: other.yaml#/inputs' names another document: an inputs schema resolves only inside its "
        "Arazzo document (schema validators never fetch)"
    )


def test_closed_through_a_ref_with_names_from_all_of_branches(check: Check) -> None:
    components = """\
components:
  inputs:
    pet:
      unevaluatedProperties: false
      allOf:
        - {type: object, properties: {petId: {type: integer}}}
        - {properties: {verbose: {type: boolean}}}
"""
    inputs = "{$ref: '#/components/inputs/pet'}"
    assert _found(check, _reading(inputs, "$inputs.verbose", components)) == []
    assert _found(check, _reading(inputs, "$inputs.owner", components)) == [("input-reference", "error", 12)]


@pytest.mark.parametrize(("closed", "severity"), [("false", "error"), ("true", "warning")])
def test_workflow_inputs_read_from_another_workflow_follow_the_same_rule(
    check: Check, closed: str, severity: str
) -> None:
    doc = (
        HEAD
        + f"""\
workflows:
  - workflowId: login
    inputs: {{type: object, properties: {{user: {{type: string}}}}, additionalProperties: {closed}}}
    steps: [{{stepId: s, operationId: listPets}}]
  - workflowId: other
    dependsOn: [login]
    steps: [{{stepId: t, operationId: listPets}}]
    outputs:
      who: $workflows.login.inputs.usr
"""
    )
    [found] = check(doc).findings
    assert (found.rule, found.severity, found.line) == ("workflow-reference", severity, 13)
    assert "did you mean 'user'?" in found.message
