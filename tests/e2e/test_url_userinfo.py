"""A password written into a server URL (issue 23, point 3): `--server a=http://user:PASS@host`, a
description's `servers.url`, an `x-operation` URL, the agent's `--chat` URL.

It is sent as HTTP Basic authentication to that URL's origin (as curl, httpx and requests send it) and
nowhere else: never on the wire in the URL, never forwarded to another origin by a document, never
printed (console URL line, --verbose, --dry-run, --format json, JUnit, HAR, --report-json, errors, the
agent's start line). Real local servers record what was sent.
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path

import yaml

from tests.e2e.agentkit import API_KEY, serve_shop, tool_args, write_shop
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow
from tests.e2e.test_agent_loop import completion
from tests.servers.scripted import ScriptedServer

PASSWORD = "Pw-7f3e9c2b1d"
USER = "alice"
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
ENCODED = BASIC.split()[1]


def _flow() -> dict:
    get = op_step("get", "getPet", parameters=[{"name": "petId", "in": "path", "value": 1}])
    listing = op_step("list", "listPets", successCriteria=[{"condition": "$statusCode == 200"}])
    return arazzo_doc(workflow("flow", get, listing))


def _serve(server) -> None:
    server.route("GET", "/pets/{petId}")(lambda r: (200, {"id": 1}))
    server.route("GET", "/pets")(lambda r: (500, {"error": "down"}))


def _outputs(tmp_path: Path, result) -> dict[str, str]:
    found = {"stdout": result.out, "stderr": result.err}
    found.update({p.name: p.read_text() for p in sorted((tmp_path / "reports").iterdir())})
    return found


def _assert_no_password(texts: dict[str, str]) -> None:
    leaks = {name for name, text in texts.items() if PASSWORD in text or ENCODED in text}
    assert not leaks, leaks


def _reported(capsys, tmp_path: Path, path: Path, *argv: str, fmt: str = "text"):
    reports = tmp_path / "reports"
    reports.mkdir(exist_ok=True)
    return cli(
        capsys, "run", path, *argv, "--verbose", "--format", fmt, "--report-json", reports / "run.json",
        "--junit", reports / "junit.xml", "--har", reports / "run.har",
    )  # fmt: skip


def test_a_password_in_server_is_sent_as_basic_auth_and_printed_nowhere(capsys, write, server, tmp_path):
    _serve(server)
    path = write(_flow())
    host = server.url.split("//")[1]
    given = f"http://{USER}:{PASSWORD}@{host}"
    for fmt in ("text", "json"):
        result = _reported(capsys, tmp_path, path, "--server", f"pets={given}", fmt=fmt)
        assert result.code == 1, result.err  # the second step fails (500): its URL is in the failure too
        texts = _outputs(tmp_path, result)
        _assert_no_password(texts)
        assert f"GET {server.url}/pets/1" in texts["stdout"] + texts["stderr"] or fmt == "json"
        report = json.loads(texts["run.json"])
        request = report["workflows"][0]["steps"][0]["request"]
        assert request["url"] == f"{server.url}/pets/1"  # the URL as sent: no userinfo
        har = json.loads(texts["run.har"])["log"]["entries"][0]["request"]
        assert har["url"] == f"{server.url}/pets/1"
        assert {"name": "Authorization", "value": "Basic ***"} in har["headers"]
    assert [r.headers["authorization"] for r in server.requests] == [BASIC] * 4
    dry = cli(capsys, "run", path, "--server", f"pets={given}", "--dry-run", "--verbose")
    assert dry.code == 0 and PASSWORD not in dry.out + dry.err and ENCODED not in dry.out + dry.err


def test_a_password_in_a_description_s_servers_url_likewise(capsys, write, server, tmp_path):
    _serve(server)
    api = copy.deepcopy(PETS_OPENAPI)
    host = server.url.split("//")[1]
    api["servers"] = [{"url": f"http://{USER}:{PASSWORD}@{host}"}]
    path = write(_flow(), openapi=api)
    result = _reported(capsys, tmp_path, path, fmt="json")
    assert result.code == 1
    _assert_no_password(_outputs(tmp_path, result))
    assert result.json["workflows"][0]["steps"][0]["request"]["url"] == f"{server.url}/pets/1"
    assert server.requests[0].headers["authorization"] == BASIC


def test_an_x_operation_url_s_password_likewise(capsys, write, server, tmp_path):
    _serve(server)
    host = server.url.split("//")[1]
    step = {"stepId": "x", "x-operation": {"method": "get", "url": f"http://{USER}:{PASSWORD}@{host}/pets/1"}}
    path = write(arazzo_doc(workflow("flow", step)))
    result = _reported(capsys, tmp_path, path, fmt="json")
    assert result.code == 0, result.out
    _assert_no_password(_outputs(tmp_path, result))
    assert result.json["workflows"][0]["steps"][0]["request"]["url"] == f"{server.url}/pets/1"
    assert server.requests[0].headers["authorization"] == BASIC


def test_the_password_stays_with_its_origin(capsys, write, server, other_server):
    """The API echoes the Authorization it got; the document forwards it to another origin: refused
    unsent, and the other server receives nothing."""
    server.route("GET", "/pets/{petId}")(lambda r: (200, {"auth": r.headers["authorization"]}))
    other_server.route("POST", "/pets")(lambda r: (201, {}))
    api = copy.deepcopy(PETS_OPENAPI)
    api["servers"] = [{"url": f"http://{USER}:{PASSWORD}@{server.url.split('//')[1]}"}]
    other = {"name": "other", "url": "./other.openapi.yaml", "type": "openapi"}
    (Path(write(_flow(), openapi=api)).parent / "other.openapi.yaml").write_text(
        yaml.safe_dump({**PETS_OPENAPI, "servers": [{"url": other_server.url}]})
    )
    get = op_step(
        "get", "$sourceDescriptions.pets.getPet", parameters=[{"name": "petId", "in": "path", "value": 1}]
    )
    get["outputs"] = {"auth": "$response.body#/auth"}
    forward = {
        "stepId": "forward",
        "operationId": "$sourceDescriptions.other.createPet",
        "requestBody": {"payload": {"stolen": "$steps.get.outputs.auth"}},
    }
    sources = [{"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"}, other]
    path = write(arazzo_doc(workflow("flow", get, forward), sources=sources), openapi=api)
    result = cli(capsys, "run", path, "--format", "json")
    assert result.code == 1, result.out
    error = result.json["workflows"][0]["steps"][1]["error"]
    assert error.startswith(
        f"request not sent: it carries the credential of the password in the server URL of {server.url}, "
        f"which stays with {server.url}"
    )
    assert other_server.requests == []
    assert PASSWORD not in result.out + result.err and ENCODED not in result.out + result.err


def test_a_credential_the_request_carries_already_wins(capsys, write, server):
    _serve(server)
    get = op_step(
        "get",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": 1},
            {"name": "Authorization", "in": "header", "value": "Bearer the-step-s-own"},
        ],
    )
    path = write(arazzo_doc(workflow("flow", get)))
    given = f"http://{USER}:{PASSWORD}@{server.url.split('//')[1]}"
    result = cli(capsys, "run", path, "--server", f"pets={given}", "--format", "json")
    assert result.code == 0
    assert server.requests[0].headers["authorization"] == "Bearer the-step-s-own"
    warnings = result.json["workflows"][0]["steps"][0]["warnings"]
    assert (
        f"the user and password in the server URL of {server.url} are not sent: the request carries an "
        "Authorization header already"
    ) in warnings
    assert PASSWORD not in result.out + result.err


def test_an_unreachable_server_s_error_shows_no_password(capsys, write):
    path = write(_flow())
    result = cli(capsys, "run", path, "--server", f"pets=http://{USER}:{PASSWORD}@127.0.0.1:9", "--verbose")
    assert result.code == 1
    assert PASSWORD not in result.out + result.err and "127.0.0.1:9" in result.out + result.err


def test_the_agent_s_start_line_masks_the_chat_url_s_password(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with ScriptedServer() as shop, ScriptedServer() as chat:
        serve_shop(shop)
        chat.reply("POST", "/v1/chat/completions", completion("Nothing to do."))
        chat_url = f"http://{USER}:{PASSWORD}@{chat.url.split('//')[1]}/v1"
        argv = [
            "agent",
            *tool_args(write_shop(tmp_path), shop),
            "--chat",
            chat_url,
            "--model",
            "m",
            "--no-stream",
        ]
        text = cli(capsys, *argv, "--prompt", "hi")
        data = cli(capsys, *argv, "--prompt", "hi", "--format", "json")
    assert text.code == 0 and data.code == 0, text.err
    assert f"chat at http://{USER}:***@127.0.0.1:" in text.out
    assert data.json["endpoint"].startswith(f"http://{USER}:***@")
    assert PASSWORD not in text.out + text.err + data.out + data.err
