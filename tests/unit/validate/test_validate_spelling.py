"""Findings quote document values in JSON (issue 37, item 5): the document's `null` is `null`, never
Python's `None`, and a string is `"cat"`, never `'cat'`."""

from __future__ import annotations

from tests.unit.validate.conftest import Check

DOC = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    inputs: {type: object, properties: {x: {type: string}}}
    steps:
      - stepId: create
        operationId: createPet
        requestBody:
          payload: {name: {$inputs.x}, kind: null, age: true}
        successCriteria:
          - condition: $.id
            context: $response.body
            type: {type: null}
          - {condition: $statusCode == 201}
"""


def test_findings_quote_values_in_json(check: Check) -> None:
    report = check(DOC, sources=True)
    schema = "payload does not match the application/json schema of 'createPet': "
    assert [(f.line, f.rule, f.message) for f in report.findings] == [
        (
            11,
            "unquoted-template",
            'YAML reads the unquoted {$inputs.x} as a mapping ({"$inputs.x": null}), which would be sent as '
            "that mapping; quote the template: '{$inputs.x}' (or write the expression $inputs.x alone)",
        ),
        (11, "payload-schema", schema + '{"$inputs.x": null} is not of type "string"'),
        (11, "payload-schema", schema + 'null is not one of ["cat", "dog"]'),
        (11, "payload-schema", schema + 'true is not of type "integer"'),
        (
            15,
            "criterion-type",
            "an Expression Type Object in a criterion must name jsonpath or xpath, not null",
        ),
        (15, "schema", 'null is not one of "jsonpath", "xpath"'),
    ]
