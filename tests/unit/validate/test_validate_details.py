"""Details: arazzo sources, step dependsOn, hints, unknown payload parts, OpenAPI 3.0 schemas."""

from __future__ import annotations

from arazzo_runner.validate.openapi_schemas import local_deref, payload_errors, pointer_possible

from .conftest import Check, marked_line, summary

CHILD = """\
arazzo: 1.0.1
info: {title: c, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: child
    outputs: {id: $steps.s.outputs.id}
    steps: [{stepId: s, operationId: listPets, outputs: {id: $response.body#/0/id}}]
"""


def _findings(report) -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in report.findings]


def test_workflows_in_an_arazzo_source(check: Check, write) -> None:
    write("child.arazzo.yaml", CHILD)
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
  - {name: flows, url: ./child.arazzo.yaml, type: arazzo}
workflows:
  - workflowId: main
    dependsOn: [$sourceDescriptions.flows.child]
    steps:
      - stepId: call
        workflowId: $sourceDescriptions.flows.chld  # !
      - stepId: list
        operationId: $sourceDescriptions.api.listPets
"""
    report = check(doc, sources=True)
    assert _findings(report) == [(marked_line(doc), "step-workflow-exists")], summary(report)
    assert "did you mean 'child'?" in report.findings[0].message
    assert check(doc.replace("flows.chld", "flows.child"), sources=True).findings == []


def test_a_workflow_id_in_an_openapi_source(check: Check) -> None:
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: main
    steps:
      - stepId: call
        workflowId: $sourceDescriptions.api.child  # !
"""
    report = check(doc)
    assert _findings(report) == [(marked_line(doc), "step-workflow-exists")]
    assert "is an openapi source, not an arazzo one" in report.findings[0].message


def test_step_depends_on_in_1_1(check: Check) -> None:
    doc = """\
arazzo: 1.1.0
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: main
    steps:
      - stepId: a
        operationId: listPets
        dependsOn:
          - b
      - stepId: b
        operationId: listPets
        dependsOn:
          - a  # !
      - stepId: c
        operationId: listPets
        dependsOn:
          - $workflows.other.steps.zz
  - workflowId: other
    steps: [{stepId: s, operationId: listPets}]
"""
    report = check(doc)
    assert _findings(report) == [(marked_line(doc), "depends-on-cycle"), (18, "depends-on-exists")]
    assert "a -> b -> a" in report.findings[0].message
    assert "workflow 'other' has no step 'zz'" in report.findings[1].message


def test_a_step_depends_on_entry_makes_the_step_precede(check: Check) -> None:
    report = check(
        """\
arazzo: 1.1.0
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: main
    steps:
      - stepId: b
        operationId: getPet
        dependsOn: [a]
        parameters: [{name: petId, in: path, value: $steps.a.outputs.id}]
      - stepId: a
        operationId: listPets
        outputs: {id: $response.body#/0/id}
"""
    )
    assert report.findings == [], summary(report)


def test_operation_path_to_a_path_item_names_the_methods(check: Check) -> None:
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationPath: '{$sourceDescriptions.api.url}#/paths/~1pets'  # !
"""
    [finding] = check(doc, sources=True).findings
    assert (finding.rule, finding.line) == ("operation-exists", marked_line(doc))
    assert finding.message.endswith("e.g. #/paths/~1pets/get, #/paths/~1pets/post")


def test_operation_path_form_hints(check: Check) -> None:
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - {stepId: a, operationPath: 'api#/paths/~1pets/get'}
      - {stepId: b, operationPath: '$sourceDescriptions.api#/paths/~1pets/get'}
      - {stepId: c, operationPath: POST /pets}
      - {stepId: d, operationPath: './api.yaml#/paths/~1pets/get'}
"""
    findings = check(doc).findings
    assert [(f.rule, f.severity, f.message.rpartition("; ")[2]) for f in findings] == [
        # Jentic's form: the text before '#' is a source's name; it runs, read as the standard form
        (
            "operation-path-source-name",
            "warning",
            "operationPath 'api#/paths/~1pets/get' is read as "
            "'{$sourceDescriptions.api.url}#/paths/~1pets/get': the source description is named by a "
            "runtime expression (Jentic writes <source>#<JSON pointer>)",
        ),
        # the source description named by a runtime expression: it runs; the standard form is shown
        (
            "operation-path-form",
            "warning",
            "the form the specification shows is '{$sourceDescriptions.api.url}#/paths/~1pets/get'",
        ),
        ("operation-path-form", "error", "e.g. '{$sourceDescriptions.api.url}#/paths/~1pets/post'"),
    ]  # the fourth names the source by its url: well-formed
    assert [e.new for f in findings for e in f.fix] == ["{$sourceDescriptions.api.url}"] * 2


def test_source_qualified_plain_ids(check: Check) -> None:
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - {stepId: s, operationId: api.listPets}
"""
    [finding] = check(doc, sources=True).findings
    assert (finding.rule, finding.severity) == ("operation-id-source-prefix", "warning")  # Respect's form
    assert "is read as '$sourceDescriptions.api.listPets'" in finding.message
    assert [(e.old, e.new) for e in finding.fix] == [("api.listPets", "$sourceDescriptions.api.listPets")]
    # an operationId that does not exist either way is still an error
    [missing] = check(doc.replace("api.listPets", "api.listPuppies"), sources=True).findings
    assert missing.rule == "operation-exists"


def test_replacement_targets_and_unknown_values(check: Check) -> None:
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    inputs: {type: object, properties: {kind: {type: string}}}
    steps:
      - stepId: s
        operationId: createPet
        requestBody:
          contentType: application/json
          payload: {name: Rex, kind: bird}
          replacements:
            - {target: /kind, value: $inputs.kind}
            - target: /nam~e  # !
              value: x
"""
    report = check(doc, sources=True)
    assert _findings(report) == [(marked_line(doc), "selector-syntax")], summary(report)


def test_a_component_of_the_wrong_kind(check: Check) -> None:
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        onSuccess:
          - reference: $components.failureActions.stop  # !
components:
  failureActions:
    stop: {name: stop, type: end}
"""
    [finding] = check(doc).findings
    assert (finding.rule, finding.line) == ("component-reference", marked_line(doc))
    assert "where successActions are expected" in finding.message


def test_outputs_of_a_called_workflow(check: Check) -> None:
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: main
    steps:
      - stepId: call
        workflowId: child
        outputs:
          id: $outputs.identifier  # !
  - workflowId: child
    outputs: {id: $steps.s.outputs.id}
    steps: [{stepId: s, operationId: listPets, outputs: {id: $response.body#/0/id}}]
"""
    [finding] = check(doc).findings
    assert (finding.rule, finding.line) == ("output-reference", marked_line(doc))


def test_payload_errors_ignore_what_unknown_values_decide() -> None:
    one_of = {
        "oneOf": [
            {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
            {"type": "object", "required": ["b"], "properties": {"b": {"type": "integer"}}},
        ]
    }
    assert payload_errors(one_of, {"a": "$x"}, {("a",)}, "3.1.0", {}) == []
    assert payload_errors(one_of, {"b": "text"}, set(), "3.1.0", {}) == [
        (("b",), '"text" is not of type "integer"')
    ]
    enum = {"type": "object", "properties": {"k": {"enum": ["a"]}}}
    assert payload_errors(enum, {"k": "$x"}, {("k",)}, "3.1.0", {}) == []
    assert payload_errors(enum, {"k": "z"}, set(), "3.1.0", {}) != []


def test_openapi_3_0_nullable_and_read_only() -> None:
    schema = {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer", "readOnly": True},
            "name": {"type": "string", "nullable": True},
        },
    }
    assert payload_errors(schema, {"name": None}, set(), "3.0.3", {}) == []
    assert payload_errors(schema, {"name": 3}, set(), "3.0.3", {}) == [
        (("name",), '3 is not of type "string", "null"')
    ]


def test_response_pointers_through_recursive_refs() -> None:
    document = {
        "components": {
            "schemas": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "child": {"$ref": "#/components/schemas/Node"},
                    },
                }
            }
        }
    }
    node = {"$ref": "#/components/schemas/Node"}
    deref = local_deref(document)
    assert pointer_possible(node, ["child", "child", "name"], deref)
    assert not pointer_possible(node, ["child", "nmae"], deref)
    assert pointer_possible({"type": "object"}, ["anything"], deref)
    assert not pointer_possible({"type": "array", "items": {"type": "string"}}, ["x"], deref)


def test_x_security_scheme_names_are_checked_against_the_steps_source(check: Check) -> None:
    doc = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        x-security:
          - {schemeName: key, values: {apiKey: k}}
          - {schemeName: kee, values: {apiKey: k}}  # !
"""
    report = check(doc, sources=True)
    errors = [(f.rule, f.line) for f in report.errors]
    assert errors == [("x-security", marked_line(doc))]
    assert "is not a security scheme of source 'api'" in report.errors[0].message
    assert [f.severity for f in report.findings if f.rule == "x-security"] == ["warning", "error"]
