"""The rule for JSON from outside (`bounds/json_text.py`, docs/reliability.md) where `arazzo run` reads it:
a response body with lone surrogate escapes reads them as U+FFFD (its outputs, criteria and reports
alike: a criterion's literal escape compares equal), inputs given inline nesting deeper than 128
levels are a usage error saying so. Against a real local server."""

from __future__ import annotations

import json

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, workflow

DEEP = "[" * 100_000 + "]" * 100_000


def _doc(**inputs) -> dict:
    get = op_step(
        "get",
        "getPet",
        parameters=[{"name": "petId", "in": "path", "value": 1}],
        successCriteria=[
            {"condition": "$statusCode == 200"},
            {"context": "$response.body", "condition": '$.name == "x\\ud800y"', "type": "jsonpath"},
        ],
        outputs={"name": "$response.body#/name", "tags": "$response.body#/tags"},
    )
    outputs = {"name": "$steps.get.outputs.name", "tags": "$steps.get.outputs.tags"}
    return arazzo_doc(workflow("flow", get, outputs=outputs, **inputs))


def test_a_lone_surrogate_in_a_body_reads_as_u_fffd_everywhere(capsys, write, server, tmp_path):
    body = b'{"name": "x\\ud800y", "tags": ["\\udfff", "\\ud83d\\ude00"], "\\ud800": 1}'
    server.route("GET", "/pets/{id}")(lambda request: (200, body, {"Content-Type": "application/json"}))
    report = tmp_path / "report.json"
    result = run_json(capsys, write(_doc()), "--report", report, server=server)
    assert result.code == 0, result.out  # the criterion's literal read by the same rule: equal
    assert result.json["workflows"][0]["outputs"] == {"name": "x\ufffdy", "tags": ["\ufffd", "\U0001f600"]}
    assert "x\ufffdy" in json.loads(report.read_text(encoding="utf-8"))["workflows"][0]["outputs"]["name"]
    text = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}")
    assert text.code == 0 and "x\ufffdy" in text.out


def test_inputs_given_inline_nesting_too_deep_are_a_usage_error(capsys, write, server):
    schema = {"type": "object", "properties": {"tags": {"type": "array"}}}
    path = write(_doc(inputs=schema))
    inline = cli(capsys, "run", path, "--server", f"pets={server.url}", "--inputs", f'{{"tags": {DEEP}}}')
    assert inline.code == 2
    assert "--inputs was not read: it nests deeper than 128 levels" in inline.err
    flag = cli(capsys, "run", path, "--server", f"pets={server.url}", "--input", f"tags={DEEP}")
    assert flag.code == 2  # too deep to read as an array: kept as text, which the schema refuses
    assert '- tags: "[[[[' in flag.err and 'more chars) is not of type "array"' in flag.err
    assert server.requests == []
