"""Secrets audit: every shipped workflow, run with secret inputs and credentials, with every output and
report switched on; no output, report or log line may contain a secret value."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from arazzo_runner.reference import ReferenceServer
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import ROOT, cli

SECRET_KEY = "sk-audit-9f3c2a7e51d04b8c"
SOURCE = "chatCompletionsApi"
SHIPPED = sorted((ROOT / "workflows").glob("*.arazzo.yaml"))
WORKFLOWS = [p for p in SHIPPED if f"name: {SOURCE}" in p.read_text()]  # those that take a credential
INPUTS = {
    "apiKey": SECRET_KEY,
    "model": "agentaus",
    "userMessage": "What's the weather in Sydney today?",
    "toolName": "get_current_weather",
    "toolResult": "sunny",
}


def _inputs(path: Path) -> list[str]:
    """`--input` flags for the inputs the document's workflows declare (an undeclared one is refused)."""
    import arazzo_runner
    from arazzo_runner.workspace.inputs import declared_input_names

    workspace = arazzo_runner.load(path)
    declared = declared_input_names(workspace, workspace.document.workflows)
    return [
        f for k, v in INPUTS.items() if declared is None or k in declared for f in ("--input", f"{k}={v}")
    ]


@pytest.fixture(scope="module")
def chat_server():
    with ReferenceServer() as server:
        yield server


def _files(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_output_report_or_log_contains_a_secret(path, fmt, chat_server, capsys, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    reports = tmp_path / "reports"
    reports.mkdir()
    result = cli(
        capsys,
        "run", path,
        "--server", f"{SOURCE}={chat_server.url}",
        "--format", fmt,
        "--verbose",
        "--report-json", reports / "run.json",
        "--junit", reports / "junit.xml",
        "--har", reports / "run.har",
        *_inputs(path),
    )  # fmt: skip
    assert result.code in (0, 1), result.err  # the verbatim seed fails at its follow-up, by design
    outputs = {"stdout": result.out, "stderr": result.err, "logs": caplog.text, **_files(reports)}
    assert set(outputs) == {"stdout", "stderr", "logs", "run.json", "junit.xml", "run.har"}
    for name, text in outputs.items():
        assert SECRET_KEY not in text, f"the secret leaked into {name}"
    # The secret was really sent (masked in every record of it), so the audit is not vacuous.
    assert "Bearer ***" in outputs["run.har"]
    assert "Bearer ***" in (result.out if fmt == "text" else result.err)


def test_the_audit_covers_every_shipped_workflow():
    assert {p.name for p in WORKFLOWS} == {
        "chat-completion-tool-call.arazzo.yaml",
        "chat-completions-scenarios.arazzo.yaml",
        "seed-chat-completion-tool-call.arazzo.yaml",
    }
    # the others take no credential: none of their sources declares a security scheme
    import arazzo_runner

    others = [p for p in SHIPPED if p not in WORKFLOWS]
    assert [p.name for p in others] == ["order-events.arazzo.yaml"]
    for path in others:
        workspace = arazzo_runner.load(path)
        assert all(not workspace.source(s.name).security_schemes for s in workspace.document.sources)


# -- hostile documents and servers -------------------------------------------------------------------
# A document may print a secret in a form masking by value does not know (XPath computes, messages cut
# it), and a server may echo it in an encoding of its own. None of these forms may reach any output.

HOSTILE_SECRET = "Xy7 Sup3r:s3cr3t!t0k3n"  # a space and reserved characters: every encoding differs
SESSION = "plain-session-cookie-42"  # a cookie from a plain input: masked by name, so echoes too
JAR_COOKIE = "jar-cookie-value-77"  # set by the server, sent back by the client's cookie jar
XPATH31 = {"type": "xpath", "version": "xpath-31"}
AUTH = "'{$request.header.Authorization}'"


def _hostile_forms() -> dict[str, str]:
    bearer = "Bearer " + HOSTILE_SECRET
    return {
        "raw": HOSTILE_SECRET,
        "upper-case": bearer.upper(),
        "substring": HOSTILE_SECRET[1:],
        "the start, cut": HOSTILE_SECRET[:5],
        "allowReserved query": "Xy7%20Sup3r:s3cr3t!t0k3n",
        "allowReserved form": "Xy7+Sup3r:s3cr3t!t0k3n",
        "cookie echo": SESSION,
        "cookie jar echo": JAR_COOKIE,
    }


def _hostile_openapi() -> dict:
    def op(operation_id: str, *parameters: dict, **fields: Any) -> dict:
        found = {"operationId": operation_id, "responses": {"200": {"description": "ok"}}, **fields}
        if parameters:
            found["parameters"] = list(parameters)
        return {"get": found} if "requestBody" not in fields else {"post": found}

    string = {"type": "string"}
    form = {"schema": {"type": "object"}, "encoding": {"token": {"allowReserved": True}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "hostile", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/xml": op("xml", {"name": "X-Up", "in": "header", "schema": string}),
            "/cut": op("cut"),
            "/reserved": op(
                "reserved", {"name": "q", "in": "query", "allowReserved": True, "schema": string}
            ),
            "/form": op("form", requestBody={"content": {"application/x-www-form-urlencoded": form}}),
            "/cookie": op(
                "cookie",
                {"name": "sid", "in": "cookie", "schema": string},
                {"name": "session", "in": "cookie", "schema": string},
            ),
            "/jar": op("jar"),
        },
    }


def _failing(condition: str, **fields: Any) -> dict:
    return {"condition": condition, "context": "$response.body", "type": XPATH31, **fields}


def _selector(selector: str) -> dict:
    return {"context": "$response.body", "selector": selector, "type": XPATH31}


def _hostile_document() -> dict:
    error = "error(QName('', 'e'), {})"
    xpath = {
        "stepId": "xpath",
        "operationId": "xml",
        "parameters": [{"name": "Authorization", "in": "header", "value": "Bearer {$inputs.token}"}],
        "successCriteria": [
            _failing(
                f"string-to-codepoints({AUTH}) = 0 or "
                + error.format(f"string-join(for $c in string-to-codepoints({AUTH}) return string($c), ' ')")
            ),
            _failing(error.format(f"upper-case({AUTH})")),  # raised while the condition compiles
            _failing(error.format(f"substring({AUTH}, 9)")),
            _failing(error.format("upper-case('{$inputs.token}')")),
            _failing(error.format("upper-case(string(/r/t))")),  # the server echoed the header
        ],
        "onFailure": [{"name": "onward", "type": "goto", "stepId": "useUpper"}],
        "outputs": {
            "upper": _selector("upper-case(string(/r/t))"),
            "codes": _selector("string-to-codepoints(string(/r/t))"),
        },
    }
    use_upper = {
        "stepId": "useUpper",
        "operationId": "xml",
        "parameters": [{"name": "X-Up", "in": "header", "value": "$steps.xpath.outputs.upper"}],
        "successCriteria": [{"condition": "$response.header.X-Seen == 'no'"}],
        "onFailure": [{"name": "onward", "type": "goto", "stepId": "cut"}],
    }
    cut = {
        "stepId": "cut",
        "operationId": "cut",
        "successCriteria": [{"condition": "$response.body#/msg == 'ok'"}],
        "onFailure": [{"name": "onward", "type": "goto", "stepId": "reserved"}],
        "outputs": {"msg": "$response.body#/msg"},
    }
    reserved = {
        "stepId": "reserved",
        "operationId": "reserved",
        "parameters": [{"name": "q", "in": "query", "value": "$inputs.token"}],
    }
    form = {
        "stepId": "form",
        "operationId": "form",
        "requestBody": {
            "contentType": "application/x-www-form-urlencoded",
            "payload": {"token": "$inputs.token"},
        },
    }
    cookie = {
        "stepId": "cookie",
        "operationId": "cookie",
        "parameters": [
            {"name": "sid", "in": "cookie", "value": "$inputs.token"},
            {"name": "session", "in": "cookie", "value": "$inputs.session"},
        ],
    }
    jar = {"stepId": "jar", "operationId": "jar"}
    jar_echo = {"stepId": "jarEcho", "operationId": "jar"}
    inputs = {
        "type": "object",
        "properties": {"token": {"type": "string", "format": "password"}, "session": {"type": "string"}},
    }
    flow = {
        "workflowId": "hostile",
        "inputs": inputs,
        "steps": [xpath, use_upper, cut, reserved, form, cookie, jar, jar_echo],
        "outputs": {
            "upper": "$steps.xpath.outputs.upper",
            "codes": "$steps.xpath.outputs.codes",
            "cut": "$steps.cut.outputs.msg",
        },
    }
    return {
        "arazzo": "1.1.0",
        "info": {"title": "hostile", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}],
        "workflows": [flow],
    }


def _serve_hostile(server: Any) -> None:
    def xml(request: Any) -> tuple:
        echo = request.headers.get("authorization", "")
        up = request.headers.get("x-up", "")
        body = f"<r><t>{echo}</t><up>{up}</up></r>"
        return 200, body, {"Content-Type": "application/xml", "X-Seen": up or "none"}

    def echo(request: Any) -> tuple:
        cookie = request.headers.get("cookie", "")
        return (
            200,
            {"query": request.raw_query, "body": request.body.decode(), "cookie": cookie},
            {"X-Echo-Cookie": cookie},
        )

    jar_replies = iter([(200, {}, {"Set-Cookie": f"jar={JAR_COOKIE}; Path=/"})])

    def jar(request: Any) -> tuple:
        return next(jar_replies, None) or (200, {"cookie": request.headers.get("cookie")})

    server.route("GET", "/xml")(xml)
    server.route("GET", "/cut")(lambda r: (200, {"msg": "x" * 72 + HOSTILE_SECRET + " and more text"}))
    for method, path in (("GET", "/reserved"), ("POST", "/form"), ("GET", "/cookie")):
        server.route(method, path)(echo)
    server.route("GET", "/jar")(jar)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_form_of_a_secret_a_document_computes_or_a_server_echoes_is_shown(capsys, tmp_path, fmt):
    import yaml

    from tests.servers.scripted import ScriptedServer

    (tmp_path / "api.openapi.yaml").write_text(yaml.safe_dump(_hostile_openapi(), sort_keys=False))
    path = tmp_path / "hostile.arazzo.yaml"
    path.write_text(yaml.safe_dump(_hostile_document(), sort_keys=False))
    reports = tmp_path / "reports"
    reports.mkdir()
    with ScriptedServer() as server:
        _serve_hostile(server)
        result = cli(
            capsys,
            "run", path,
            "--server", f"api={server.url}",
            "--format", fmt,
            "--verbose",
            "--report-json", reports / "run.json",
            "--junit", reports / "junit.xml",
            "--har", reports / "run.har",
            "--input", f"token={HOSTILE_SECRET}",
            "--input", f"session={SESSION}",
        )  # fmt: skip
        sent: dict[str, Any] = {}
        for request in server.requests:
            sent.setdefault(request.path, []).append(request)
    assert result.code == 0, result.out + result.err  # each failure is handled by a goto
    # every attack really happened: the secret went out in each form, and came back
    assert sent["/xml"][0].headers["authorization"] == "Bearer " + HOSTILE_SECRET
    assert sent["/xml"][1].headers["x-up"] == ("Bearer " + HOSTILE_SECRET).upper()
    assert sent["/reserved"][0].raw_query == "q=Xy7%20Sup3r:s3cr3t!t0k3n"
    assert sent["/form"][0].body == b"token=Xy7+Sup3r:s3cr3t!t0k3n"
    assert f"session={SESSION}" in sent["/cookie"][0].headers["cookie"]
    assert sent["/jar"][1].headers["cookie"] == f"jar={JAR_COOKIE}"
    outputs = {"stdout": result.out, "stderr": result.err, **_files(reports)}
    codepoints = re.compile(r"\D{1,4}".join(str(ord(c)) for c in HOSTILE_SECRET[:4]))  # in any layout
    leaks = [("code points", name) for name, text in outputs.items() if codepoints.search(text)]
    for name, text in outputs.items():
        leaks += [(form, name) for form, value in _hostile_forms().items() if value in text]
    assert not leaks, leaks
    # the failures are still explained, without the values
    report = json.loads(outputs["run.json"])
    steps = {s["stepId"]: s for s in report["workflows"][0]["steps"]}
    failed = steps["xpath"]["failedCriteria"]
    assert len(failed) == 5
    assert all("derived from a secret" in message for message in failed), failed
    # a plain selection is masked where it is shown, and its cut never shows a secret's start
    assert steps["cut"]["failedCriteria"] == [
        f"$response.body#/msg == 'ok': got '{'x' * 72}***...(28 more chars)'"
    ]
    assert report["workflows"][0]["outputs"]["upper"] == "***"
    assert report["workflows"][0]["outputs"]["codes"] == "***"  # numbers: masked by name, as derived
    assert steps["xpath"]["outputs"]["upper"] == "***"
    assert steps["xpath"]["outputs"]["codes"] == "***"


def test_a_message_cut_never_shows_the_start_of_a_secret(capsys, write):
    """An input error quotes the value it refuses, cut to a few dozen characters: masking comes after
    the cut, and still hides the part of the secret the cut left."""
    secret = "Xy7 Sup3r" + "-s3cr3t" * 10
    token = {"type": "string", "format": "password", "maxLength": 8}
    schema = {"type": "object", "properties": {"token": token}}
    step = {"stepId": "s", "operationId": "listPets"}
    path = write(arazzo_doc({"workflowId": "w", "inputs": schema, "steps": [step]}))
    result = cli(capsys, "run", path, "--input", f"token={secret}")
    assert result.code == 2
    assert "is too long" in result.err
    assert secret[:5] not in result.err, result.err
    assert "***" in result.err
