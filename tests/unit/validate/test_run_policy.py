"""What stops a run (`validate/run_policy.py`): every error rule has a policy with a reason, the table
of docs/semantics.md is the engine's, and the rules that decide per finding decide as documented."""

from __future__ import annotations

import re
from pathlib import Path

from arazzo_runner.validate import RULES, validate_text
from arazzo_runner.validate.findings import ERROR, WARNING, Finding
from arazzo_runner.validate.run_policy import BLOCK, POLICY, WARN, blocks

DOCS = Path(__file__).resolve().parents[3] / "docs" / "semantics.md"


def _table() -> list[tuple[str, str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("<!-- BEGIN run-policy -->", 1)[1].split("<!-- END run-policy -->", 1)[0]
    return re.findall(r"^\| `([a-z0-9-]+)` \| (stops its workflow|warning; runs) \| (.+) \|$", section, re.M)


def test_every_error_rule_has_a_policy_and_a_reason() -> None:
    errors = {rule.id for rule in RULES.values() if rule.severity == ERROR}
    assert errors <= set(POLICY)
    assert set(POLICY) <= set(RULES)
    assert all(what in (BLOCK, WARN) and why.strip() for what, why in POLICY.values())


def test_the_documented_table_is_the_engines() -> None:
    expected = [
        (rule, "stops its workflow" if POLICY[rule][0] == BLOCK else "warning; runs", POLICY[rule][1])
        for rule in RULES
        if rule in POLICY
    ]
    assert _table() == expected


def _finding(rule: str, severity: str = ERROR, blocks_: bool | None = None) -> Finding:
    return Finding(rule, severity, "m", "f", "/workflows/0", 1, 1, blocks=blocks_)


def test_warnings_never_stop_a_run_and_unknown_rules_do() -> None:
    assert not blocks(_finding("output-value", WARNING))
    assert blocks(_finding("output-value"))
    assert not blocks(_finding("output-name"))
    assert blocks(_finding("a-rule-from-the-future"))  # the safe side


HEAD = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
"""


def test_a_missing_path_parameter_stops_a_run_and_a_missing_query_parameter_does_not(tmp_path) -> None:
    (tmp_path / "api.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: a, version: '1'}\npaths:\n"
        "  /pets/{id}:\n    get:\n      operationId: getPet\n"
        "      parameters:\n"
        "        - {name: id, in: path, required: true, schema: {type: string}}\n"
        "        - {name: q, in: query, required: true, schema: {type: string}}\n"
        "      responses: {'200': {description: ok}}\n"
    )
    text = HEAD + "      - {stepId: s, operationId: getPet}\n"
    report = validate_text(text, str(tmp_path / "flow.arazzo.yaml"))
    found = {f.message.split("the ")[1].split(" parameter")[0]: blocks(f) for f in report.findings}
    assert found == {"path": True, "query": False}


def test_an_in_on_a_workflow_input_does_not_stop_a_run_and_a_missing_in_does() -> None:
    text = HEAD + (
        "      - stepId: call\n        workflowId: other\n"
        "        parameters: [{name: x, in: query, value: 1}]\n"
        "      - stepId: op\n        operationId: getPet\n        parameters: [{name: y, value: 1}]\n"
        "  - workflowId: other\n    steps: [{stepId: s, operationId: getPet}]\n"
    )
    report = validate_text(text, load_sources=False)
    verdicts = [(f.path.rsplit("/", 3)[-3], blocks(f)) for f in report.findings if f.rule == "parameter-in"]
    assert verdicts == [("0", False), ("1", True)]
