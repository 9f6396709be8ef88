"""An object holding a secret member (a numeric `format: password` input), read whole into a value that
computes or nests: a template that writes it into text, a selector that picks from it, a mapping or a
list that holds it (docs/security.md, *Secret members*). A template's text and what the selector picks
are secret whole (`***`); a mapping or list keeps the object with its secret member as `***` at its
place, under the key or index that holds it, the other members as they are. A real local server."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.e2e.helpers import cli
from tests.e2e.test_secrets_members import CODE, GIVEN, INPUTS, PIN, _openapi, _serve
from tests.servers.scripted import ScriptedServer

SHOWN_CREDS = {"code": "***", "user": "al"}


def _write(folder: Path) -> Path:
    step = {
        "stepId": "s",
        "operationId": "echo",
        "successCriteria": [{"condition": "$statusCode == 200"}],
        "outputs": {"m": {"c": "$inputs.creds", "k": "kept"}, "l": ["x", "$inputs.creds"]},
    }
    flow = {
        "workflowId": "flow",
        "inputs": INPUTS,
        "steps": [step],
        "outputs": {
            "said": "creds {$inputs.creds}",
            "picked": {"context": "$inputs.creds", "selector": "$.code", "type": "jsonpath"},
            "m": "$steps.s.outputs.m",
            "l": "$steps.s.outputs.l",
        },
    }
    document = {
        "arazzo": "1.1.0",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}],
        "workflows": [flow],
    }
    (folder / "api.openapi.yaml").write_text(yaml.safe_dump(_openapi(), sort_keys=False))
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def test_a_template_a_selector_a_mapping_and_a_list_over_an_object_with_a_secret_member(tmp_path, capsys):
    path = _write(tmp_path)
    report = tmp_path / "run.json"
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--server", f"api={server.url}", "--format", "json", *GIVEN,
            "--report-json", report,
        )  # fmt: skip
    assert result.code == 0, result.out + result.err
    (flow,) = json.loads(result.out)["workflows"]
    mapped, listed = {"c": SHOWN_CREDS, "k": "kept"}, ["x", SHOWN_CREDS]
    assert flow["outputs"] == {"said": "***", "picked": "***", "m": mapped, "l": listed}
    assert flow["steps"][0]["outputs"] == {"m": mapped, "l": listed}
    texts = result.out + result.err + report.read_text()
    assert str(CODE) not in texts and str(PIN) not in texts


def test_a_secret_member_declared_under_any_of_or_one_of_is_masked(tmp_path, capsys):
    """A member marked secret in a branch of `anyOf` or `oneOf` of the object's schema is as secret as
    one in its own properties."""
    path = _write(tmp_path)
    document = yaml.safe_load(path.read_text())
    branch = {"type": "object", "properties": {"code": {"type": "integer", "format": "password"}}}
    creds = {"type": "object", "properties": {"user": {"type": "string"}}}
    inputs = {
        "type": "object",
        "properties": {"a": {**creds, "anyOf": [branch]}, "o": {**creds, "oneOf": [branch]}},
    }
    document["workflows"][0]["inputs"] = inputs
    document["workflows"][0]["outputs"] = {"a": "$inputs.a", "o": "$inputs#/o"}
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    given = {"code": CODE, "user": "al"}
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--server", f"api={server.url}", "--format", "json",
            "--input", f"a={json.dumps(given)}", "--input", f"o={json.dumps(given)}",
        )  # fmt: skip
    assert result.code == 0, result.out + result.err
    (flow,) = json.loads(result.out)["workflows"]
    assert flow["outputs"] == {"a": SHOWN_CREDS, "o": SHOWN_CREDS}
    assert str(CODE) not in result.out + result.err


def test_an_x_for_each_childs_secret_output_is_secret_in_the_arrays_its_criteria_read(tmp_path, capsys):
    """A child's output secret whole (`$inputs.card.code`, a numeric secret) is marked at its item's place
    in the array the x-forEach step's criteria read as `$outputs.code`: the trace of a criterion over it
    shows each as `***`; one over the children's other outputs shows them."""
    from tests.e2e.test_secrets_members import _loop_document

    document = _loop_document()
    parent, child = document["workflows"]
    child["outputs"] = {"code": "$inputs.card.code", "user": "$inputs.card.user"}
    criteria = [{"condition": "$outputs.code != 5"}, {"condition": "$outputs.user != 5"}]
    parent["steps"][0]["successCriteria"] = criteria
    parent["steps"][0]["outputs"] = {"users": "$outputs.user"}
    parent["outputs"] = {}
    path = _write(tmp_path)
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    cards = [{"code": CODE, "user": "al"}, {"code": PIN, "user": "bo"}]
    report = tmp_path / "run.json"
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--workflow", "loop", "--server", f"api={server.url}", "--format", "json",
            "--input", f"cards={json.dumps(cards)}", "--report-json", report,
        )  # fmt: skip
    assert result.code == 0, result.out + result.err
    (step,) = json.loads(report.read_text())["workflows"][0]["steps"]
    judged = step["trace"]["attempts"][0]["criteria"]
    assert [c["values"] for c in judged] == [
        [{"expression": "$outputs.code", "value": ["***", "***"]}],
        [{"expression": "$outputs.user", "value": ["al", "bo"]}],
    ]
    printed = result.out + result.err + report.read_text()
    assert str(CODE) not in printed and str(PIN) not in printed
