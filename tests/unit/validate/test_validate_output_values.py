"""Never a silent wrong value: outputs that are not expressions, output names the specification forbids,
misspelt expressions elsewhere, and references to a step of another workflow."""

from __future__ import annotations

import pytest

from .conftest import Check, summary

HEAD = """\
arazzo: {version}
info: {{title: t, version: '1'}}
sourceDescriptions:
  - {{name: api, url: ./api.yaml, type: openapi}}
workflows:
"""


def _doc(body: str, version: str = "1.0.1") -> str:
    return HEAD.format(version=version) + body


def _step_outputs(outputs: str, version: str = "1.0.1") -> str:
    return _doc(
        f"""\
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
{outputs}""",
        version,
    )


def test_a_misspelt_expression_as_an_output_is_an_error_with_the_fix(check: Check) -> None:
    report = check(_step_outputs("          count: $respons.body#/count\n"))
    [found] = report.findings
    assert (found.rule, found.severity, found.line) == ("output-value", "error", 11)
    assert found.message == (
        "output 'count' is not a runtime expression: \"$respons.body#/count\" would be returned as it is "
        "written; did you mean '$response.body#/count'?"
    )
    assert not report.valid


@pytest.mark.parametrize(
    ("value", "fix"),
    [
        ("$Inputs.id", "'$inputs.id'"),
        ("$statuscode", "'$statusCode'"),
        ("$step.s.outputs.x", "'$steps.s.outputs.x'"),
        ("$respons.bdy", "'$response'"),  # the root is close; the rest does not parse even then
    ],
)
def test_near_misses_get_a_did_you_mean(check: Check, value: str, fix: str) -> None:
    [found] = check(_step_outputs(f"          x: '{value}'\n")).findings
    assert found.rule == "output-value"
    assert found.message.endswith(f"; did you mean {fix}?")


def test_plain_text_as_an_output_is_a_warning_and_a_workflow_output_too(check: Check) -> None:
    # Issue 37 item 14: literal text has one meaning and no MUST forbids it (the schema allows any
    # string): a warning, in JSON spelling; the document is valid, but not with --strict
    doc = _step_outputs("          id: //Customer/Id\n", "1.1.0") + "    outputs:\n      total: 'none'\n"
    report = check(doc)
    assert [(f.rule, f.severity, f.line) for f in report.findings] == [
        ("output-value", "warning", 11),
        ("output-value", "warning", 13),
    ]
    assert report.findings[1].message == (
        "output 'total' is not a runtime expression: \"none\" would be returned as it is written "
        "(an output is an expression such as $response.body#/id or a Selector Object "
        "{context, selector, type})"
    )
    assert "a Selector Object" in report.findings[0].message  # 1.1 documents may select from a body
    assert report.valid and not check(doc, strict=True).valid


def test_expressions_templates_and_selectors_are_outputs(check: Check) -> None:
    outputs = (
        "          whole: $response.body\n"
        "          text: 'pet {$response.body#/0/id} of {$statusCode}'\n"
        "          picked: {context: $response.body, selector: '$[0].id', type: jsonpath}\n"
    )
    report = check(_step_outputs(outputs, "1.1.0"))
    assert report.findings == [], summary(report)


def test_a_known_root_that_does_not_parse_is_reported_once_as_syntax(check: Check) -> None:
    report = check(_step_outputs("          x: $steps.s.ouputs.token\n"))
    assert [f.rule for f in report.findings] == ["expression-syntax"], summary(report)


def test_output_names_are_checked_where_the_name_is_written(check: Check) -> None:
    doc = _step_outputs("          'lists[0].id': $response.body#/0/id\n") + (
        "    outputs:\n      'Search Response': $steps.s.outputs.lists\n"
    )
    report = check(doc)
    names = [(f.rule, f.line, f.column) for f in report.findings if f.rule == "output-name"]
    assert names == [("output-name", 11, 11), ("output-name", 13, 7)]
    assert "e.g. 'lists_0_.id'" in report.findings[0].message
    assert report.errors


@pytest.mark.parametrize(
    ("value", "fix"),
    [("$inptus.id", "$inputs.id"), ("$respons.header.X", "$response.header.X"), ("$Steps.s", "$steps")],
)
def test_a_misspelt_expression_in_a_parameter_or_payload_is_a_warning(
    check: Check, value: str, fix: str
) -> None:
    doc = _doc(f"""\
  - workflowId: w
    inputs: {{type: object, properties: {{id: {{type: integer}}}}}}
    steps:
      - stepId: s
        operationId: createPet
        parameters:
          - {{name: X-Ref, in: header, value: '{value}'}}
        requestBody:
          payload: {{owner: {{name: '{value}'}}}}
""")
    report = check(doc)
    typos = [(f.rule, f.severity, f.line) for f in report.findings]
    assert typos == [("expression-typo", "warning", 12), ("expression-typo", "warning", 14)], summary(report)
    assert f"did you mean '{fix}" in report.findings[0].message
    assert report.valid


@pytest.mark.parametrize("value", ["$5", "$USD", "$2a$10$abcdef", "$.store.book", "$ 12", "$res.x"])
def test_dollar_text_that_is_not_a_near_miss_is_left_alone(check: Check, value: str) -> None:
    doc = _doc(f"""\
  - workflowId: w
    steps:
      - stepId: s
        operationId: createPet
        requestBody:
          payload: {{note: '{value}'}}
""")
    report = check(doc)
    assert report.findings == [], summary(report)


TWO_WORKFLOWS = """\
  - workflowId: login
    steps:
      - stepId: signIn
        operationId: listPets
        outputs: {{token: $response.body#/0/token}}
  - workflowId: use
    dependsOn: [login]
    steps:
      - stepId: s
        operationId: listPets
    outputs:
      token: {reference}
"""


def test_a_step_output_of_another_workflow_is_checked(check: Check) -> None:
    good = check(_doc(TWO_WORKFLOWS.format(reference="$workflows.login.steps.signIn.outputs.token")))
    assert good.findings == [], summary(good)
    for reference, message in [
        ("$workflows.logn.steps.signIn.outputs.token", "no workflow 'logn'; did you mean 'login'?"),
        ("$workflows.login.steps.signin.outputs.token", "has no step 'signin'; did you mean 'signIn'?"),
        (
            "$workflows.login.steps.signIn.outputs.tokn",
            "step 'signIn' of workflow 'login' declares no output 'tokn' (outputs: token); did you mean",
        ),
    ]:
        [found] = check(_doc(TWO_WORKFLOWS.format(reference=reference))).findings
        assert (found.rule, found.line) == ("workflow-reference", 17)
        assert message in found.message


def test_a_step_of_another_workflow_read_with_steps_gets_the_workflows_form(check: Check) -> None:
    [found] = check(_doc(TWO_WORKFLOWS.format(reference="$steps.signIn.outputs.token"))).findings
    assert found.rule == "output-reference"
    assert "(write $workflows.login.steps.signIn.outputs.token)" in found.message
