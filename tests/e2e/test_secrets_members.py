"""A secret input that is a number, read as a member of an object read whole (`$inputs`, `$inputs.creds`,
`$inputs#/creds`, `$steps.s.outputs`, `$workflows.w.outputs`), is shown as `***` in every printed form;
the other members stay as they are, and the server gets the real values (docs/security.md, *Secret
members*).

A number is never masked by value, so such an input is masked by name: where it is read itself
(`$inputs.pin`), and where the object holding it is read whole. A real local server records what was
sent; each printed form (text, `--format json`, `--verbose`, `--report-json`, `--html`, `--junit`, `--har`,
and a row's header and entry under `--inputs-file`) is searched for the numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

PIN, CODE = 98765, 4321  # numbers: never masked by value
SECRET_NUMBER = {"type": "integer", "format": "password"}
INPUTS = {
    "type": "object",
    "properties": {
        "pin": SECRET_NUMBER,
        "name": {"type": "string"},
        "creds": {"type": "object", "properties": {"code": SECRET_NUMBER, "user": {"type": "string"}}},
    },
}
SHOWN_INPUTS = {"pin": "***", "name": "bob", "creds": {"code": "***", "user": "al"}}
GIVEN = ["--input", f"pin={PIN}", "--input", "name=bob", "--input", f'creds={{"code": {CODE}, "user": "al"}}']


def _openapi() -> dict:
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/echo": {
                "post": {
                    "operationId": "echo",
                    "parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}}],
                    "requestBody": {"content": {"application/json": {"schema": {}}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }


def _document() -> dict:
    step = {
        "stepId": "s",
        "operationId": "echo",
        "parameters": [{"name": "q", "in": "query", "value": "$inputs.name"}],
        "requestBody": {"contentType": "application/json", "payload": "$inputs"},
        "successCriteria": [{"condition": "$statusCode == 200"}],
        "outputs": {"ins": "$inputs", "p": "$inputs.pin"},
    }
    flow = {
        "workflowId": "flow",
        "inputs": INPUTS,
        "steps": [step],
        "outputs": {
            "all": "$inputs",
            "ptr": "$inputs#/pin",
            "creds": "$inputs.creds",
            "credsPtr": "$inputs#/creds",
            "stepAll": "$steps.s.outputs",
        },
    }
    after = {
        "workflowId": "after",
        "dependsOn": ["flow"],
        "steps": [
            {
                "stepId": "t",
                "operationId": "echo",
                "requestBody": {
                    "contentType": "application/json",
                    "payload": {"them": "$workflows.flow.outputs.all", "plain": "kept"},
                },
                "successCriteria": [{"condition": "$statusCode == 200"}],
            }
        ],
        "outputs": {"theirs": "$workflows.flow.outputs"},
    }
    return {
        "arazzo": "1.1.0",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}],
        "workflows": [flow, after],
    }


def _write(folder: Path) -> Path:
    (folder / "api.openapi.yaml").write_text(yaml.safe_dump(_openapi(), sort_keys=False))
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(_document(), sort_keys=False))
    return path


def _serve(server: Any) -> None:
    server.route("POST", "/echo")(lambda request: (200, {"ok": True}))  # echoes nothing


def _leaks(texts: dict[str, str]) -> dict[str, list[str]]:
    found = {name: [n for n in (str(PIN), str(CODE)) if n in text] for name, text in texts.items()}
    return {name: numbers for name, numbers in found.items() if numbers}


EXPECTED_FLOW = {
    "all": SHOWN_INPUTS,
    "ptr": "***",
    "creds": SHOWN_INPUTS["creds"],
    "credsPtr": SHOWN_INPUTS["creds"],
    "stepAll": {"ins": SHOWN_INPUTS, "p": "***"},
}


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_secret_members_of_an_object_read_whole_are_masked_in_every_printed_form(tmp_path, capsys, fmt):
    path = _write(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--server", f"api={server.url}", "--format", fmt, "--verbose",
            *GIVEN,
            "--report-json", reports / "run.json", "--junit", reports / "junit.xml",
            "--har", reports / "run.har", "--html", reports / "run.html",
        )  # fmt: skip
        sent = [request.json() if request.body else None for request in server.requests]
    assert result.code == 0, result.out + result.err
    # the wire got the real values, where the document asked
    given = {"pin": PIN, "name": "bob", "creds": {"code": CODE, "user": "al"}}
    assert sent == [given, {"them": given, "plain": "kept"}]
    texts = {"stdout": result.out, "stderr": result.err}
    texts.update({p.name: p.read_text() for p in sorted(reports.iterdir())})
    assert set(texts) == {"stdout", "stderr", "run.json", "junit.xml", "run.har", "run.html"}
    assert not _leaks(texts), _leaks(texts)
    # the other members are shown as they are
    report = json.loads(texts["run.json"])
    flow, after = report["workflows"]
    assert flow["outputs"] == EXPECTED_FLOW
    assert after["outputs"] == {"theirs": EXPECTED_FLOW}
    step = flow["steps"][0]
    assert step["outputs"] == {"ins": SHOWN_INPUTS, "p": "***"}
    body = step["exchanges"][-1]["request"]["body"]
    assert json.loads(body["text"] if isinstance(body, dict) else body) == SHOWN_INPUTS
    traced = {e["where"]: e["value"] for e in step["trace"]["attempts"][0]["expressions"]}
    assert traced["request body"] == SHOWN_INPUTS and traced["output ins"] == SHOWN_INPUTS
    assert traced["output p"] == "***"
    body = after["steps"][0]["exchanges"][-1]["request"]["body"]
    later = {"them": SHOWN_INPUTS, "plain": "kept"}
    assert json.loads(body["text"] if isinstance(body, dict) else body) == later
    entries = json.loads(texts["run.har"])["log"]["entries"]
    assert [json.loads(e["request"]["postData"]["text"]) for e in entries] == [SHOWN_INPUTS, later]
    if fmt == "json":
        shown = json.loads(result.out)["workflows"]
        assert [w["outputs"] for w in shown] == [EXPECTED_FLOW, {"theirs": EXPECTED_FLOW}]
    else:
        shown_all = '"pin": "***", "name": "bob", "creds": {"code": "***", "user": "al"}'
        assert f"    all: {{{shown_all}}}\n" in result.out
        assert '    ptr: "***"\n' in result.out
        assert '    credsPtr: {"code": "***", "user": "al"}\n' in result.out
    verbose = result.out if fmt == "text" else result.err
    assert '"pin": "***"' in verbose and '"user": "al"' in verbose


def test_a_rows_header_and_entry_show_secret_inputs_of_any_type_as_masks(tmp_path, capsys):
    path = _write(tmp_path)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"pin": PIN, "name": "bob", "creds": {"code": CODE, "user": "al"}}) + "\n")
    reports = tmp_path / "reports"
    reports.mkdir()
    with ScriptedServer() as server:
        _serve(server)
        text = cli(capsys, "run", path, "--workflow", "flow", "--server", f"api={server.url}",
                   "--inputs-file", rows)  # fmt: skip
        data = cli(capsys, "run", path, "--workflow", "flow", "--server", f"api={server.url}",
                   "--inputs-file", rows, "--format", "json", "--report-json", reports / "rows.json",
                   "--html", reports / "rows.html", "--junit", reports / "rows.xml")  # fmt: skip
        assert [r.json()["pin"] for r in server.requests] == [PIN, PIN]  # sent, twice
    assert text.code == 0 and data.code == 0, text.out + data.out
    assert text.out.startswith('== row 1 (line 1): pin=***, name=bob, creds={"code": "***", "user...\n')
    texts = {"text": text.out + text.err, "json": data.out + data.err}
    texts.update({p.name: p.read_text() for p in sorted(reports.iterdir())})
    assert not _leaks(texts), _leaks(texts)
    (entry,) = json.loads(data.out)["rows"]
    assert entry["inputs"] == SHOWN_INPUTS
    assert entry["result"]["workflows"][0]["outputs"]["all"] == SHOWN_INPUTS


def test_a_failed_criterion_that_read_an_object_holding_a_secret_member_shows_no_value(tmp_path, capsys):
    path = _write(tmp_path)
    document = _document()
    document["workflows"][0]["steps"][0]["successCriteria"] = [
        {"condition": "$inputs.creds == 5"},
        {"condition": "$inputs.name == 5"},
    ]
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--workflow", "flow", "--server", f"api={server.url}", "--format", "json",
            *GIVEN,
        )  # fmt: skip
    assert result.code == 1, result.out + result.err
    assert not _leaks({"stdout": result.out, "stderr": result.err})
    (step,) = json.loads(result.out)["workflows"][0]["steps"]
    assert step["failedCriteria"] == [
        "$inputs.creds == 5: false (derived from a secret: values not shown)",
        "$inputs.name == 5: got 'bob'",
    ]


def _loop_document() -> dict:
    card = {"type": "object", "properties": {"code": SECRET_NUMBER, "user": {"type": "string"}}}
    child = {
        "workflowId": "child",
        "inputs": {"type": "object", "properties": {"card": card}},
        "steps": [
            {
                "stepId": "c",
                "operationId": "echo",
                "requestBody": {"contentType": "application/json", "payload": "$inputs"},
                "successCriteria": [{"condition": "$statusCode == 200"}],
            }
        ],
        "outputs": {"got": "$inputs.card"},
    }
    parent = {
        "workflowId": "loop",
        "inputs": {"type": "object", "properties": {"cards": {"type": "array", "items": card}}},
        "steps": [
            {
                "stepId": "each",
                "workflowId": "child",
                "x-forEach": {"items": "$inputs.cards", "input": "card"},
                "outputs": {"all": "$outputs.got"},
            }
        ],
        "outputs": {"cards": "$inputs.cards", "mine": "$steps.each.outputs.all"},
    }
    document = _document()
    document["workflows"] = [parent, child]
    return document


def test_secret_members_of_the_items_of_a_loop_and_of_an_array_input_are_masked(tmp_path, capsys):
    path = _write(tmp_path)
    path.write_text(yaml.safe_dump(_loop_document(), sort_keys=False))
    cards = [{"code": CODE, "user": "al"}, {"code": PIN, "user": "bo"}]
    reports = tmp_path / "reports"
    reports.mkdir()
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--workflow", "loop", "--server", f"api={server.url}", "--format", "json",
            "--input", f"cards={json.dumps(cards)}", "--report-json", reports / "run.json",
            "--har", reports / "run.har",
        )  # fmt: skip
        sent = [request.json() for request in server.requests]
    assert result.code == 0, result.out + result.err
    assert sent == [{"card": cards[0]}, {"card": cards[1]}]
    texts = {"stdout": result.out, "stderr": result.err}
    texts.update({p.name: p.read_text() for p in sorted(reports.iterdir())})
    assert not _leaks(texts), _leaks(texts)
    shown = [{"code": "***", "user": "al"}, {"code": "***", "user": "bo"}]
    loop = json.loads(result.out)["workflows"][0]
    assert loop["outputs"] == {"cards": shown, "mine": shown}
    assert loop["steps"][0]["outputs"] == {"all": shown}
