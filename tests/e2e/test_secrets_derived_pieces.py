"""A value derived from a secret is shown as `***` in every printed form of the request carrying it,
whatever its type or length (issue 13 audit, point 3).

Masking by value finds a secret's own forms (4 characters or more). A computing selector can split a
token into pieces of 1-3 characters or numbers (XPath `substring`, `string-to-codepoints`); sent in a later
request they are too short to mask by value, and masking "X" everywhere would garble every report. So the
engine masks by construction: when it builds a request, it knows which parameters, headers, cookies and
body members carry a value derived from a secret, and every printed form of that request (the step's URL
line, `--verbose`, `--dry-run`, the JSON result and report, HAR, JUnit) shows those parts as `***`; the
server gets the real values. A real local server records what was sent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

TOKEN = "Xy7Sup3rs3cr3tt0k3n"
PIN = "417"  # a secret input too short to mask by value
XPATH31 = {"type": "xpath", "version": "xpath-31"}
CODES = "string-to-codepoints(string(/r/t))"
STRING = {"type": "string"}


def _openapi() -> dict:
    echo_params = [
        {"name": "q", "in": "query", "schema": STRING},
        {"name": "pin", "in": "query", "schema": STRING},
        {"name": "X-Piece", "in": "header", "schema": STRING},
        {"name": "piece", "in": "cookie", "schema": STRING},
        {"name": "id", "in": "path", "required": True, "schema": STRING},
    ]
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/xml": {
                "get": {
                    "operationId": "xml",
                    "parameters": [{"name": "Authorization", "in": "header", "schema": STRING}],
                    "responses": {"200": {"description": "ok"}},
                }
            },
            "/echo/{id}": {
                "post": {
                    "operationId": "echo",
                    "parameters": echo_params,
                    "requestBody": {"content": {"application/json": {"schema": {}}}},
                    "responses": {"200": {"description": "ok"}},
                }
            },
        },
    }


def _selector(selector: str) -> dict:
    return {"context": "$response.body", "selector": selector, "type": XPATH31}


def _document() -> dict:
    pieces = "for $i in 1 to 8 return substring(string(/r/t), $i*3-2, 3)"
    first = {
        "stepId": "a",
        "operationId": "xml",
        "parameters": [{"name": "Authorization", "in": "header", "value": "Bearer {$inputs.token}"}],
        "outputs": {
            "chars": _selector(
                "for $c in string-to-codepoints(string(/r/t)) return codepoints-to-string($c)"
            ),
            "codes": _selector(CODES),
            "pairs": _selector(pieces),
            "one": _selector("substring(string(/r/t), 4, 3)"),
        },
    }
    second = {
        "stepId": "b",
        "operationId": "echo",
        "parameters": [
            {"name": "q", "in": "query", "value": "$steps.a.outputs.pairs"},
            {"name": "pin", "in": "query", "value": "$inputs.pin"},
            {"name": "X-Piece", "in": "header", "value": "before-{$steps.a.outputs.one}-after"},
            {"name": "piece", "in": "cookie", "value": "$steps.a.outputs.one"},
            {"name": "id", "in": "path", "value": "$steps.a.outputs.one"},
        ],
        "requestBody": {
            "contentType": "application/json",
            "payload": {"c": "$steps.a.outputs.chars", "n": "$steps.a.outputs.codes", "plain": "kept"},
        },
        "successCriteria": [{"condition": "$statusCode == 200"}],
    }
    secret = {"type": "string", "format": "password"}
    inputs = {"type": "object", "properties": {"token": secret, "pin": secret}}
    return {
        "arazzo": "1.1.0",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "flow", "inputs": inputs, "steps": [first, second]}],
    }


def _write(folder: Path) -> Path:
    (folder / "api.openapi.yaml").write_text(yaml.safe_dump(_openapi(), sort_keys=False))
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(_document(), sort_keys=False))
    return path


def _serve(server: Any) -> None:
    def xml(request: Any) -> tuple:
        token = request.headers.get("authorization", "").partition(" ")[2]
        return 200, f"<r><t>{token}</t></r>", {"Content-Type": "application/xml"}

    server.route("GET", "/xml")(xml)
    server.route("POST", "/echo/{id}")(lambda request: (200, {"ok": True}))  # echoes nothing


PIECES = [TOKEN[i : i + 3] for i in range(0, len(TOKEN), 3)]


def _leaks(text: str) -> list[str]:
    """The forms of the token's pieces a printed request would show."""
    found = [f"q={p}" for p in PIECES if f"q={p}&" in text or text.endswith(f"q={p}")]
    found += [f"pin={PIN}"] * (f"pin={PIN}" in text)
    found += ["a piece in a header"] * ("before-Sup-after" in text)
    found += ["a piece in the path"] * ("/echo/Sup" in text)
    found += ["a piece in a cookie"] * ("piece=Sup" in text)
    chars = r'"X"\s*,\s*"y"\s*,\s*"7"'
    found += ["characters"] * bool(re.search(chars, text))
    codes = r"\D{1,4}".join(str(ord(c)) for c in TOKEN[:4])
    found += ["code points"] * bool(re.search(codes, text))
    found += ["the token"] * (TOKEN in text)
    return found


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_pieces_of_a_secret_sent_on_are_shown_as_masks_in_every_printed_form(tmp_path, capsys, fmt):
    path = _write(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--server", f"api={server.url}", "--format", fmt, "--verbose",
            "--input", f"token={TOKEN}", "--input", f"pin={PIN}",
            "--report-json", reports / "run.json", "--junit", reports / "junit.xml",
            "--har", reports / "run.har",
        )  # fmt: skip
        sent = server.requests[1]
    assert result.code == 0, result.out + result.err
    # the wire got the real values
    assert sent.query["q"][:3] == PIECES[:3]
    assert sent.query["pin"] == [PIN]
    assert sent.headers["x-piece"] == "before-Sup-after"
    assert sent.path == "/echo/Sup"
    assert "piece=Sup" in sent.headers["cookie"]
    body = json.loads(sent.body)
    assert body["c"][:3] == ["X", "y", "7"] and body["n"][0] == ord("X") and body["plain"] == "kept"
    outputs = {"stdout": result.out, "stderr": result.err}
    outputs.update({p.name: p.read_text() for p in sorted(reports.iterdir())})
    leaks = {name: _leaks(text) for name, text in outputs.items() if _leaks(text)}
    assert not leaks, leaks
    # the masked parts are shown where they are, the rest as sent
    report = json.loads(outputs["run.json"])
    step = report["workflows"][0]["steps"][1]
    exchange = step["exchanges"][-1]["request"]
    assert exchange["url"].startswith("http://")
    assert (
        "/echo/***?" in exchange["url"] and "q=***&q=***" in exchange["url"] and "pin=***" in exchange["url"]
    )
    headers = {h["name"].lower(): h["value"] for h in exchange["headers"]}
    assert headers["x-piece"] == "before-***-after"
    assert headers["cookie"] == "piece=***"  # masked by name as before
    shown = json.loads(exchange["body"]["text"] if isinstance(exchange["body"], dict) else exchange["body"])
    assert shown["plain"] == "kept"
    assert set(shown["c"]) == {"***"} and len(shown["c"]) == len(TOKEN)
    assert set(shown["n"]) == {"***"}
    assert "/echo/***?" in step["request"]["url"]


def test_a_dry_run_shows_a_secret_input_by_name_whatever_its_length(tmp_path, capsys):
    path = _write(tmp_path)
    result = cli(
        capsys, "run", path, "--dry-run", "--format", "json", "--server", "api=http://127.0.0.1:9",
        "--input", f"token={TOKEN}", "--input", f"pin={PIN}",
    )  # fmt: skip
    assert result.code == 0, result.err
    text = result.out + result.err
    assert f"pin={PIN}" not in text and "pin=***" in text, text


def test_a_validation_finding_about_a_derived_part_shows_no_value(tmp_path, capsys):
    """openapi-core's findings quote the values they check: about a part derived from a secret, the
    finding names the part and leaves the value out."""
    api = _openapi()
    echo = api["paths"]["/echo/{id}"]["post"]
    echo["parameters"][0]["schema"] = {"type": "integer"}  # `q` gets pieces of the token
    echo["requestBody"]["content"]["application/json"]["schema"] = {
        "type": "object",
        "properties": {"c": {"type": "array", "items": {"type": "integer"}}},
    }
    path = _write(tmp_path)
    (tmp_path / "api.openapi.yaml").write_text(yaml.safe_dump(api, sort_keys=False))
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--server", f"api={server.url}", "--format", "json",
            "--validate-requests", "warn", "--input", f"token={TOKEN}", "--input", f"pin={PIN}",
        )  # fmt: skip
    assert result.code == 0, result.out + result.err
    warnings = result.json["workflows"][0]["steps"][1]["warnings"]
    findings = [w for w in warnings if w.startswith("request: ")]
    assert any(w.startswith("request: query parameter 'q'") for w in findings), findings
    assert any(w.startswith("request: body") for w in findings), findings
    assert all("derived from a secret: values not shown" in w for w in findings), findings
    assert not _leaks(result.out), _leaks(result.out)
    assert not any(p in w for p in PIECES if len(p) == 3 for w in findings), findings


def test_what_a_step_reads_back_from_a_derived_part_of_its_request_is_derived_too(tmp_path, capsys):
    doc = _document()
    second = doc["workflows"][0]["steps"][1]
    second["outputs"] = {"sentQ": "$request.query.q", "url": "$url", "plain": "$request.body#/plain"}
    second["successCriteria"] = [{"condition": "$request.header.X-Piece == 'no'"}]
    path = _write(tmp_path)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    report = tmp_path / "run.json"
    with ScriptedServer() as server:
        _serve(server)
        result = cli(
            capsys, "run", path, "--server", f"api={server.url}", "--report-json", report,
            "--input", f"token={TOKEN}", "--input", f"pin={PIN}",
        )  # fmt: skip
    assert result.code == 1
    step = json.loads(report.read_text())["workflows"][0]["steps"][1]
    assert step["failedCriteria"] == [
        "$request.header.X-Piece == 'no': false (derived from a secret: values not shown)"
    ]
    assert step["outputs"]["sentQ"] == "***" and step["outputs"]["url"] == "***"
    assert step["outputs"]["plain"] == "***"  # the body carried a derived member: read back, derived
    assert not _leaks(result.out + result.err + report.read_text())


def test_an_x_operation_url_and_parameters_carrying_pieces_are_printed_masked(tmp_path, capsys):
    """Respect's x-operation: the URL is the step's own (a template here); a piece in it is `***` too."""
    doc = _document()
    first = doc["workflows"][0]["steps"][0]
    doc["workflows"][0]["steps"] = [first]
    report = tmp_path / "run.json"
    with ScriptedServer() as server:
        _serve(server)
        doc["workflows"][0]["steps"].append(
            {
                "stepId": "x",
                "x-operation": {"method": "post", "url": f"{server.url}/echo/{{$steps.a.outputs.one}}?k=v"},
                "parameters": [{"name": "q", "in": "query", "value": "$steps.a.outputs.pairs"}],
            }
        )
        path = _write(tmp_path)
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        result = cli(
            capsys, "run", path, "--server", f"api={server.url}", "--verbose", "--report-json", report,
            "--input", f"token={TOKEN}", "--input", f"pin={PIN}",
        )  # fmt: skip
        sent = server.requests[1]
    assert result.code == 0, result.out + result.err
    assert sent.path == "/echo/Sup" and sent.query["k"] == ["v"] and sent.query["q"][0] == PIECES[0]
    url = json.loads(report.read_text())["workflows"][0]["steps"][1]["request"]["url"]
    assert url == f"{server.url}/echo/***?k=v&" + "&".join(["q=***"] * 8)
    assert not _leaks(result.out + result.err + report.read_text())
