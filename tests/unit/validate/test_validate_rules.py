"""One failing and one passing fixture per rule: the failing one reports the rule on the line marked `# !`,
the passing one (the same document, corrected) reports nothing at all."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from arazzo_runner.validate import RULES

from .conftest import Check, marked_line, summary

HEAD = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
"""
HEAD_11 = HEAD.replace("arazzo: 1.0.1", "arazzo: 1.1.0")


@dataclass(frozen=True)
class Case:
    rule: str
    bad: str
    good: str
    sources: bool = False  # load api.yaml (the rules of the "sources" area)
    severity: str | None = None  # expected severity when it differs from the catalogue's


def _doc(body: str, head: str = HEAD) -> str:
    return head + body


CASES = [
    Case(
        "schema",
        "arazzo: 1.0.1\ninfo: {version: '1'}  # !\n" + HEAD.split("\n", 2)[2] + "workflows: []\n",
        HEAD + "workflows:\n  - workflowId: w\n    steps:\n      - {stepId: s, operationId: getPet}\n",
    ),
    Case(
        "document-shape",
        HEAD.replace("arazzo: 1.0.1", "arazzo: 1.0.9  # !")
        + "workflows:\n  - workflowId: w\n    steps:\n      - {stepId: s, operationId: getPet}\n",
        HEAD + "workflows:\n  - workflowId: w\n    steps:\n      - {stepId: s, operationId: getPet}\n",
    ),
    Case(
        "workflow-id-unique",
        _doc("""\
workflows:
  - workflowId: w
    steps: [{stepId: s, operationId: getPet}]
  - workflowId: w  # !
    steps: [{stepId: t, operationId: getPet}]
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps: [{stepId: s, operationId: getPet}]
  - workflowId: w2
    steps: [{stepId: t, operationId: getPet}]
"""),
    ),
    Case(
        "step-id-unique",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - {stepId: s, operationId: getPet}
      - stepId: s  # !
        operationId: listPets
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - {stepId: s, operationId: getPet}
      - stepId: t
        operationId: listPets
"""),
    ),
    Case(
        "source-name-unique",
        HEAD
        + """\
  - name: api  # !
    url: ./other.yaml
workflows:
  - workflowId: w
    steps: [{stepId: s, operationId: $sourceDescriptions.api.getPet}]
""",
        HEAD
        + """\
  - name: other
    url: ./other.yaml
workflows:
  - workflowId: w
    steps: [{stepId: s, operationId: $sourceDescriptions.api.getPet}]
""",
    ),
    Case(
        "id-pattern",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: Plan a Trip_search_0  # !
        operationId: getPet
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: Plan-a-Trip_search_0
        operationId: getPet
"""),
    ),
    Case(
        "parameter-unique",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {name: Content-Type, in: header, value: a}
          - name: content-type  # !
            in: header
            value: b
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {name: Content-Type, in: header, value: a}
          - {name: content-type, in: query, value: b}
"""),
        severity="warning",  # names are case-sensitive; HTTP merges the two headers
    ),
    Case(
        "action-name-unique",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        onSuccess:
          - {name: done, type: end}
          - name: done  # !
            type: goto
            stepId: s
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        onSuccess:
          - {name: done, type: end}
          - name: again
            type: goto
            stepId: s
"""),
    ),
    Case(
        "parameter-unique",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {name: X-Trace, in: header, value: a}
          - name: X-Trace  # !
            in: header
            value: b
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {name: X-Trace, in: header, value: a}
          - name: x-other
            in: header
            value: b
"""),
    ),
    Case(
        "source-reference",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: $sourceDescriptions.API.getPet  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: $sourceDescriptions.api.getPet
"""),
    ),
    Case(
        "component-reference",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - reference: $components.parameters.trce  # !
components:
  parameters:
    trace: {name: X-Trace, in: header, value: t}
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - reference: $components.parameters.trace
components:
  parameters:
    trace: {name: X-Trace, in: header, value: t}
"""),
    ),
    Case(
        "step-target",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s  # !
        description: no target
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
"""),
    ),
    Case(
        "step-workflow-exists",
        _doc("""\
workflows:
  - workflowId: main
    steps:
      - stepId: s
        workflowId: chid  # !
  - workflowId: child
    steps: [{stepId: t, operationId: getPet}]
"""),
        _doc("""\
workflows:
  - workflowId: main
    steps:
      - stepId: s
        workflowId: child
  - workflowId: child
    steps: [{stepId: t, operationId: getPet}]
"""),
    ),
    Case(
        "goto-target-exists",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        onFailure:
          - name: again
            type: goto
            stepId: z  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        onFailure:
          - name: again
            type: goto
            stepId: s
"""),
    ),
    Case(
        "action-target",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        onSuccess:
          - name: next  # !
            type: goto
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        onSuccess:
          - name: next
            type: end
"""),
    ),
    Case(
        "action-fields",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        onFailure:
          - name: stop
            type: end
            retryLimit: 3  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        onFailure:
          - name: stop
            type: retry
            retryLimit: 3
"""),
    ),
    Case(
        "depends-on-exists",
        _doc("""\
workflows:
  - workflowId: w
    dependsOn:
      - setup  # !
    steps: [{stepId: s, operationId: getPet}]
"""),
        _doc("""\
workflows:
  - workflowId: w
    dependsOn:
      - setup
    steps: [{stepId: s, operationId: getPet}]
  - workflowId: setup
    steps: [{stepId: t, operationId: listPets}]
"""),
    ),
    Case(
        "depends-on-cycle",
        _doc("""\
workflows:
  - workflowId: a
    dependsOn: [b]
    steps: [{stepId: s, operationId: getPet}]
  - workflowId: b
    dependsOn:
      - a  # !
    steps: [{stepId: t, operationId: listPets}]
"""),
        _doc("""\
workflows:
  - workflowId: a
    dependsOn: [b]
    steps: [{stepId: s, operationId: getPet}]
  - workflowId: b
    steps: [{stepId: t, operationId: listPets}]
"""),
    ),
    Case(
        "operation-path-form",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationPath: GET /pets  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationPath: '{$sourceDescriptions.api.url}#/paths/~1pets/get'
"""),
    ),
    Case(
        "plain-operation-id",
        HEAD
        + """\
  - {name: other, url: ./other.yaml, type: openapi}
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet  # !
""",
        HEAD
        + """\
  - {name: other, url: ./other.yaml, type: openapi}
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: $sourceDescriptions.api.getPet
""",
    ),
    Case(
        "operation-id-source-prefix",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: api.getPet  # !
        parameters: [{name: petId, in: path, value: 1}]
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: $sourceDescriptions.api.getPet
        parameters: [{name: petId, in: path, value: 1}]
"""),
        sources=True,
    ),
    Case(
        "workflow-id-legacy",
        HEAD
        + """\
  - {name: flows, url: ./flows.arazzo.yaml, type: arazzo}
workflows:
  - workflowId: w
    steps:
      - stepId: s
        workflowId: $sourceDescriptions.flows.workflows.other  # !
""",
        HEAD
        + """\
  - {name: flows, url: ./flows.arazzo.yaml, type: arazzo}
workflows:
  - workflowId: w
    steps:
      - stepId: s
        workflowId: $sourceDescriptions.flows.other
""",
    ),
    Case(
        "operation-path-source-name",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationPath: api#/paths/~1pets/get  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationPath: '{$sourceDescriptions.api.url}#/paths/~1pets/get'
"""),
        sources=True,
    ),
    Case(
        "header-plural",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
          next: $response.headers.Location  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
          next: $response.header.Location
"""),
    ),
    Case(
        "step-output-shorthand",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs: {first: $response.body#/0/id}
      - stepId: t
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $steps.s.first}  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs: {first: $response.body#/0/id}
      - stepId: t
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $steps.s.outputs.first}
"""),
    ),
    Case(
        "dependencies-expression",
        _doc("""\
workflows:
  - workflowId: token
    steps:
      - {stepId: s, operationId: listPets, outputs: {first: $response.body#/0/id}}
    outputs: {first: $steps.s.outputs.first}
  - workflowId: w
    dependsOn: [token]
    steps:
      - stepId: t
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $dependencies.token.first}  # !
"""),
        _doc("""\
workflows:
  - workflowId: token
    steps:
      - {stepId: s, operationId: listPets, outputs: {first: $response.body#/0/id}}
    outputs: {first: $steps.s.outputs.first}
  - workflowId: w
    dependsOn: [token]
    steps:
      - stepId: t
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $workflows.token.outputs.first}
"""),
    ),
    Case(
        "unquoted-template",
        _doc("""\
workflows:
  - workflowId: w
    inputs: {type: object, properties: {id: {type: integer}}}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - name: petId
            in: path
            value: {$inputs.id}  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    inputs: {type: object, properties: {id: {type: integer}}}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - name: petId
            in: path
            value: '{$inputs.id}'
"""),
    ),
    Case(
        "x-operation",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        x-operation:
          method: get
          url: /relative/path  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - {stepId: s, operationId: listPets}
"""),
        severity="error",
    ),
    Case(
        "x-security",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        x-security:
          - scheme: {type: http, scheme: basic}
            values: {username: me}  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - {stepId: s, operationId: listPets}
"""),
        severity="error",
    ),
    Case(
        "x-for-each",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        x-forEach: {items: [1, 2], input: item}  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - {stepId: s, operationId: listPets}
"""),
        severity="error",
    ),
    Case(
        "x-for-each-input",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: each
        workflowId: child
        x-forEach:
          items: [1, 2]
          input: itme  # !
  - workflowId: child
    inputs: {type: object, properties: {item: {type: integer}}}
    steps:
      - {stepId: s, operationId: listPets}
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        workflowId: child
  - workflowId: child
    inputs: {type: object, properties: {item: {type: integer}}}
    steps:
      - {stepId: s, operationId: listPets}
"""),
    ),
    Case(
        "parameter-in",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - name: petId  # !
            value: 1
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - name: petId
            in: path
            value: 1
"""),
    ),
    Case(
        "expression-syntax",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        outputs:
          name: $steps.s.output.name  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        outputs:
          name: $response.body#/name
"""),
    ),
    Case(
        "output-name",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
          first pet: $response.body#/0  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
          first_pet: $response.body#/0
"""),
    ),
    Case(
        "output-value",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
          count: Done  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
          count: $response.body#/count
"""),
    ),
    Case(
        "expression-typo",
        _doc("""\
workflows:
  - workflowId: w
    inputs: {type: object, properties: {id: {type: integer}}}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $input.id}  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    inputs: {type: object, properties: {id: {type: integer}}}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $inputs.id}
"""),
    ),
    Case(
        "bare-expression",
        _doc("""\
workflows:
  - workflowId: w
    inputs:
      type: object
      properties: {token: {type: string}}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - name: X-Auth
            in: header
            value: Bearer $inputs.token  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    inputs:
      type: object
      properties: {token: {type: string}}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - name: X-Auth
            in: header
            value: Bearer {$inputs.token}
"""),
    ),
    Case(
        "expression-accessor",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        outputs:
          first: $response.body.tags[0]  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        outputs:
          first: $response.body#/tags/0
"""),
    ),
    Case(
        "selector-syntax",
        _doc(
            """\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        outputs:
          first:
            context: $response.body
            selector: $.tags[  # !
            type: jsonpath
""",
            HEAD_11,
        ),
        _doc(
            """\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        outputs:
          first:
            context: $response.body
            selector: $.tags[0]
            type: jsonpath
""",
            HEAD_11,
        ),
    ),
    Case(
        "output-reference",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        outputs: {name: $response.body#/name}
    outputs:
      name: $steps.s.outputs.nme  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        outputs: {name: $response.body#/name}
    outputs:
      name: $steps.s.outputs.name
"""),
    ),
    Case(
        "output-forward-reference",
        _doc(
            """\
workflows:
  - workflowId: w
    steps:
      - stepId: first
        operationId: getPet
        parameters:
          - name: X-Trace
            in: header
            value: $steps.second.outputs.id  # !
      - stepId: second
        operationId: listPets
        outputs: {id: $response.body#/0/id}
""",
            HEAD_11,
        ),
        _doc(
            """\
workflows:
  - workflowId: w
    steps:
      - stepId: second
        operationId: listPets
        outputs: {id: $response.body#/0/id}
      - stepId: first
        operationId: getPet
        parameters:
          - name: X-Trace
            in: header
            value: $steps.second.outputs.id
""",
            HEAD_11,
        ),
    ),
    Case(
        "step-dependency-cycle",
        _doc(
            """\
workflows:
  - workflowId: w
    steps:
      - stepId: first  # !
        operationId: getPet
        parameters:
          - {name: X-Trace, in: header, value: $steps.second.outputs.id}
        outputs: {name: $response.body#/name}
      - stepId: second
        operationId: listPets
        dependsOn: [first]
        outputs: {id: $response.body#/0/id}
""",
            HEAD_11,
        ),
        _doc(
            """\
workflows:
  - workflowId: w
    steps:
      - stepId: zero
        operationId: listPets
      - stepId: first
        operationId: getPet
        parameters:
          - {name: X-Trace, in: header, value: $steps.second.outputs.id}
        outputs: {name: $response.body#/name}
      - stepId: second
        operationId: listPets
        dependsOn: [zero]
        outputs: {id: $response.body#/0/id}
""",
            HEAD_11,
        ),
    ),
    Case(
        "inputs-schema",
        _doc("""\
workflows:
  - workflowId: w
    inputs:
      type: string  # !
    steps: [{stepId: s, operationId: listPets}]
"""),
        _doc("""\
workflows:
  - workflowId: w
    inputs:
      type: object
    steps: [{stepId: s, operationId: listPets}]
"""),
    ),
    Case(
        "input-reference",
        _doc("""\
workflows:
  - workflowId: w
    inputs:
      type: object
      properties: {petId: {type: integer}}
      additionalProperties: false
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - name: petId
            in: path
            value: $inputs.pet  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    inputs:
      type: object
      properties: {petId: {type: integer}}
      additionalProperties: false
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - name: petId
            in: path
            value: $inputs.petId
"""),
    ),
    Case(
        "workflow-reference",
        _doc("""\
workflows:
  - workflowId: w
    steps: [{stepId: s, operationId: listPets}]
    outputs: {count: $response.body#/length}
  - workflowId: reader
    steps: [{stepId: t, operationId: getPet}]
    outputs:
      seen: $workflows.w.outputs.cuont  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps: [{stepId: s, operationId: listPets}]
    outputs: {count: $response.body#/length}
  - workflowId: reader
    steps: [{stepId: t, operationId: getPet}]
    outputs:
      seen: $workflows.w.outputs.count
"""),
    ),
    Case(
        "criterion-type",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.body
            condition: $.name
            type: jsonpth  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.body
            condition: $.name
            type: jsonpath
"""),
    ),
    Case(
        "criterion-context",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - condition: ^2  # !
            type: regex
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - condition: ^2
            context: $statusCode
            type: regex
"""),
    ),
    Case(
        "condition-syntax",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - condition: $statusCode ==  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - condition: $statusCode == 200
"""),
    ),
    Case(
        "regex-syntax",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.header.content-type
            condition: '^application/(json'  # !
            type: regex
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.header.content-type
            condition: '^application/(json)'
            type: regex
"""),
    ),
    Case(
        "regex-literal",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.header.etag
            condition: /^[0-9A-F]{8}$/i  # !
            type: regex
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.header.etag
            condition: (?i)^[0-9A-F]{8}$
            type: regex
          - context: $url
            condition: /pets/
            type: regex
"""),
    ),
    Case(
        "regex-context",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters: [{name: petId, in: path, value: 1}]
        successCriteria:
          - context: $response.body  # !
            condition: ^Rex$
            type: regex
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters: [{name: petId, in: path, value: 1}]
        successCriteria:
          - context: $response.body#/name
            condition: ^Rex$
            type: regex
"""),
        sources=True,
    ),
    Case(
        "jsonpath-syntax",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.body
            condition: $[?(@.name]  # !
            type: jsonpath
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.body
            condition: $[?@.name]
            type: jsonpath
"""),
    ),
    Case(
        "xpath-syntax",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.body
            condition: //pet[name  # !
            type: xpath
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.body
            condition: //pet[name]
            type: xpath
"""),
    ),
    Case(
        "jsonpath-comparison-form",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.body
            condition: $.name == 'Rex'  # !
            type: jsonpath
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - context: $response.body
            condition: $[?@.name == 'Rex']
            type: jsonpath
"""),
    ),
    Case(
        "condition-nonstandard",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - condition: '$response.body#/name == "Rex"'  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        successCriteria:
          - condition: $response.body#/name == 'Rex'
"""),
    ),
    # -- with the sources loaded ---------------------------------------------------------------------------
    Case(
        "source-unavailable",
        HEAD.split("sourceDescriptions:")[0]
        + """\
sourceDescriptions:
  - name: api
    url: ./missing.yaml  # !
workflows:
  - workflowId: w
    steps: [{stepId: s, operationId: listPets}]
""",
        HEAD + "workflows:\n  - workflowId: w\n    steps: [{stepId: s, operationId: listPets}]\n",
        sources=True,
    ),
    Case(
        "operation-exists",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPet  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
"""),
        sources=True,
    ),
    Case(
        "parameter-unknown",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        parameters:
          - name: limt  # !
            in: query
            value: 10
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        parameters:
          - name: limit
            in: query
            value: 10
          - {name: X-API-Key, in: header, value: secret}
"""),
        sources=True,
    ),
    Case(
        "parameter-required",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters:  # !
          - {name: verbose, in: query, value: true}
"""),
        _doc("""\
workflows:
  - workflowId: w
    parameters:
      - {name: petId, in: path, value: 7}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {name: verbose, in: query, value: true}
"""),
        sources=True,
    ),
    Case(
        "request-body-required",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s  # !
        operationId: createPet
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: createPet
        requestBody:
          contentType: application/json
          payload: {name: Rex}
"""),
        sources=True,
    ),
    Case(
        "payload-schema",
        _doc("""\
workflows:
  - workflowId: w
    inputs:
      type: object
      properties: {age: {type: string}}
    steps:
      - stepId: s
        operationId: createPet
        requestBody:
          contentType: application/json
          payload:
            name: Rex
            age: $inputs.age
            kind: bird  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    inputs:
      type: object
      properties: {age: {type: string}}
    steps:
      - stepId: s
        operationId: createPet
        requestBody:
          contentType: application/json
          payload:
            name: Rex
            age: $inputs.age
            kind: cat
"""),
        sources=True,
    ),
    Case(
        "output-pointer",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters: [{name: petId, in: path, value: 1}]
        outputs:
          name: $response.body#/nmae  # !
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters: [{name: petId, in: path, value: 1}]
        outputs:
          name: $response.body#/name
          firstTag: $response.body#/tags/0
"""),
        sources=True,
    ),
    Case(
        "schema-reference",
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPhoto  # !
        parameters: [{name: petId, in: path, value: 1}]
"""),
        _doc("""\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: getPet
        parameters: [{name: petId, in: path, value: 1}]
"""),
        sources=True,
    ),
]
DEDICATED = {"document-parse"}  # tested in test_validate_cli / test_document_parse below
# AsyncAPI step rules: tested with an AsyncAPI source and the official 1.1 fixtures (test_validate_async.py)
DEDICATED |= {
    "async-action", "correlation-id-receive", "async-timeout", "async-parameter-in", "channel-path-form",
    "message-expression", "async-target-exists", "correlation-id-location", "message-payload",
}  # fmt: skip


def test_every_rule_has_a_case() -> None:
    covered = {case.rule for case in CASES} | DEDICATED
    assert covered == set(RULES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.rule)
def test_failing_fixture_reports_the_rule_on_the_marked_line(check: Check, case: Case) -> None:
    report = check(case.bad, sources=case.sources)
    found = [f for f in report.findings if f.rule == case.rule]
    assert found, summary(report)
    assert found[0].line == marked_line(case.bad), summary(report)
    assert found[0].severity == (case.severity or RULES[case.rule].severity)
    assert found[0].file.endswith("flow.arazzo.yaml")
    assert found[0].path.startswith("/") or found[0].path == ""


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.rule)
def test_passing_fixture_is_clean(check: Check, case: Case) -> None:
    report = check(case.good, sources=case.sources)
    assert report.findings == [], summary(report)
    assert report.valid


def test_document_parse(check: Check) -> None:
    report = check("arazzo: 1.0.1\ninfo: [unclosed\n")
    assert not report.readable and not report.valid
    [finding] = report.findings
    assert finding.rule == "document-parse"
    assert finding.line >= 2


def test_forward_reference_is_a_warning_in_1_0(check: Check) -> None:
    case = next(c for c in CASES if c.rule == "output-forward-reference")
    report = check(case.bad.replace("arazzo: 1.1.0", "arazzo: 1.0.1"))
    [found] = [f for f in report.findings if f.rule == "output-forward-reference"]
    assert found.severity == "warning"
    assert report.valid


def test_a_goto_loop_does_not_excuse_reading_a_later_step(check: Check) -> None:
    """1.1 makes the read an implicit dependency: the run runs `check` before `poll` whatever the goto
    does, so the array order the author wrote is not the one run (the SHOULD-error of a workflow without
    dependsOn)."""
    report = check(
        HEAD_11
        + """\
workflows:
  - workflowId: w
    steps:
      - stepId: poll
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $steps.check.outputs.next}
      - stepId: check
        operationId: listPets
        outputs: {next: $response.body#/0/id}
        onSuccess:
          - {name: again, type: goto, stepId: poll}
"""
    )
    [found] = [f for f in report.findings if f.rule == "output-forward-reference"]
    assert "step 'check' comes after step 'poll'" in found.message
    assert "the run runs 'check' first" in found.message


def test_a_goto_loop_lets_a_step_read_its_own_outputs(check: Check) -> None:
    report = check(
        HEAD_11
        + """\
workflows:
  - workflowId: w
    steps:
      - stepId: page
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $steps.page.outputs.next}
        outputs: {next: $response.body#/next}
        onSuccess:
          - {name: again, type: goto, stepId: page, criteria: [{condition: $response.body#/next != null}]}
      - stepId: alone
        operationId: getPet
        parameters:
          - {name: petId, in: path, value: $steps.alone.outputs.next}
        outputs: {next: $response.body#/next}
"""
    )
    [found] = [f for f in report.findings if f.rule == "output-forward-reference"]
    assert found.message.startswith("$steps.alone.outputs.next: step 'alone' reads its own outputs")


def test_with_depends_on_a_later_step_read_is_a_dependency_not_a_finding(check: Check) -> None:
    case = next(c for c in CASES if c.rule == "output-forward-reference")
    text = case.bad.replace(
        "        outputs: {id: $response.body#/0/id}\n",
        "        outputs: {id: $response.body#/0/id}\n        dependsOn: [third]\n"
        "      - stepId: third\n        operationId: listPets\n",
    )
    assert "dependsOn" in text
    report = check(text)
    assert "output-forward-reference" not in report.rules(), summary(report)


def test_bare_expression_message_has_the_braced_fix(check: Check) -> None:
    case = next(c for c in CASES if c.rule == "bare-expression")
    [found] = check(case.bad).findings
    assert "'Bearer {$inputs.token}'" in found.message


def test_unsubstituted_expression_after_text(check: Check) -> None:
    report = check(
        HEAD
        + """\
workflows:
  - workflowId: w
    inputs: {type: object, properties: {id: {type: string}}}
    steps:
      - stepId: s
        operationId: getPet
        parameters:
          - {name: X-Ref, in: header, value: 'pets/$inputs.id'}
"""
    )
    [found] = report.findings
    assert found.rule == "bare-expression"
    assert "'pets/{$inputs.id}'" in found.message


def test_comparison_form_suggests_a_filter(check: Check) -> None:
    case = next(c for c in CASES if c.rule == "jsonpath-comparison-form")
    [found] = check(case.bad).findings
    assert "$[?@.name == 'Rex']" in found.message


def test_a_component_is_checked_against_each_workflow_using_it(check: Check) -> None:
    doc = (
        HEAD
        + """\
workflows:
  - workflowId: has
    inputs: {type: object, properties: {key: {type: string}}}
    parameters: [{reference: $components.parameters.auth}]
    steps: [{stepId: s, operationId: getPet}]
  - workflowId: lacks
    inputs: {type: object, properties: {other: {type: string}}}
    parameters: [{reference: $components.parameters.auth}]
    steps: [{stepId: s, operationId: getPet}]
components:
  parameters:
    auth: {name: X-API-Key, in: header, value: $inputs.key}  # !
"""
    )
    [found] = check(doc).findings
    assert found.rule == "input-reference" and "'lacks'" in found.message
    assert found.line == marked_line(doc)


def test_inputs_through_a_components_ref(check: Check) -> None:
    report = check(
        HEAD
        + """\
workflows:
  - workflowId: w
    inputs: {$ref: '#/components/inputs/pet'}
    steps:
      - stepId: s
        operationId: getPet
        parameters: [{name: petId, in: path, value: $inputs.petId}]
components:
  inputs:
    pet:
      allOf:
        - {type: object, properties: {petId: {type: integer}}}
"""
    )
    assert report.findings == [], summary(report)


def test_schema_finding_is_replaced_by_the_precise_rule(check: Check) -> None:
    case = next(c for c in CASES if c.rule == "parameter-in")
    report = check(case.bad)
    assert [f.rule for f in report.findings] == ["parameter-in"], summary(report)


def test_ref_instead_of_reference(check: Check) -> None:
    report = check(
        HEAD
        + """\
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        parameters:
          - $ref: '#/components/parameters/limit'
components:
  parameters:
    limit: {name: limit, in: query, value: 1}
"""
    )
    messages = [f.message for f in report.findings if f.rule == "component-reference"]
    assert messages == [
        "'$ref: #/components/parameters/limit' is not an Arazzo component reference: "
        "write 'reference: $components.parameters.limit'"
    ]
