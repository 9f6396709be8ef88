"""Masking: one secret (a `format: password` input) sent in a header, a query parameter and a request
body, echoed back in a response body and quoted by an error message, never appears in any output:
console (with --verbose), --format json, --report-json, --junit, --har."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from urllib.parse import quote

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow

SECRET = "Sup3r/Secret+Value"
FORMS = (SECRET, quote(SECRET, safe=""), quote(SECRET))  # raw, and as a query parameter carries it
SECRET_INPUTS = {
    "type": "object",
    "properties": {
        "password": {"type": "string", "format": "password"},
        "account": {"type": "object", "properties": {"token": {"type": "string", "writeOnly": True}}},
        "label": {"type": "string"},
    },
}


def _openapi() -> dict:
    api = copy.deepcopy(PETS_OPENAPI)
    api["components"] = {"securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "api_key"}}}
    api["paths"]["/flaky"]["get"]["security"] = [{"key": []}]
    return api


def _document() -> dict:
    create = op_step(
        "create", "createPet", requestBody={"payload": {"name": "rex", "password": "$inputs.password"}}
    )
    get = op_step(
        "get",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": 1},
            {"name": "X-Trace", "in": "header", "value": "$inputs.password"},
        ],
    )
    search = op_step(
        "search",
        "listPets",
        parameters=[{"name": "tags", "in": "query", "value": ["$inputs.password"]}],
        successCriteria=[{"condition": "$response.body#/error == 'none'"}],
    )
    return arazzo_doc(workflow("flow", create, get, search, inputs=SECRET_INPUTS))


def _serve(server) -> None:
    server.route("POST", "/pets")(lambda r: (201, {"stored": r.json()}))
    server.route("GET", "/pets/{petId}")(lambda r: (200, {"trace": r.headers.get("x-trace")}))
    server.route("GET", "/pets")(lambda r: (403, {"error": f"tags {r.query['tags'][0]} refused"}))


def _run(capsys, write, server, tmp_path: Path, *extra: str):
    _serve(server)
    path = write(_document(), openapi=_openapi())
    return cli(capsys, "run", path, "--server", f"pets={server.url}", "--input", f"password={SECRET}", *extra)


def _assert_masked(text: str, where: str) -> None:
    for form in FORMS:
        assert form not in text, f"{form!r} in {where}"
    assert "***" in text, where


def test_the_secret_is_sent_but_never_shown(capsys, write, server, tmp_path):
    files = {name: tmp_path / name for name in ("report.json", "junit.xml", "run.har")}
    result = _run(
        capsys,
        write,
        server,
        tmp_path,
        "--verbose",
        "--report-json",
        files["report.json"],
        "--junit",
        files["junit.xml"],
        "--har",
        files["run.har"],
    )
    assert result.code == 1
    # it really went out everywhere: header, query, body; and came back in bodies and the error
    sent = {r.method + r.path: r for r in server.requests}
    assert sent["POST/pets"].json()["password"] == SECRET
    assert sent["GET/pets/1"].headers["x-trace"] == SECRET
    assert sent["GET/pets"].query["tags"] == [SECRET]
    _assert_masked(result.out, "console")
    assert "X-Trace: ***" in result.out
    assert '"password": "***"' in result.out  # the echoed body, pretty-printed by --verbose
    assert "tags=***" in result.out  # the query parameter, as sent (URL-encoded) and masked
    assert "got 'tags *** refused'" in result.out  # the error message quoting the response
    for name, file in files.items():
        _assert_masked(file.read_text(encoding="utf-8"), name)


def test_json_output_and_verbose_on_stderr_are_masked(capsys, write, server, tmp_path):
    result = _run(capsys, write, server, tmp_path, "--format", "json", "--verbose")
    assert result.code == 1
    data = json.loads(result.out)  # still exactly one document: --verbose goes to stderr
    _assert_masked(result.out, "json")
    _assert_masked(result.err, "verbose on stderr")
    assert "> X-Trace: ***" in result.err
    step = data["workflows"][0]["steps"][2]
    assert step["failedCriteria"] == ["$response.body#/error == 'none': got 'tags *** refused'"]


def test_no_mask_shows_secrets_with_a_warning(capsys, write, server, tmp_path):
    result = _run(capsys, write, server, tmp_path, "--verbose", "--no-mask")
    assert SECRET in result.out
    assert result.err.startswith("warning: --no-mask:")


def test_invalid_inputs_quoting_a_secret_are_masked(capsys, write, server):
    doc = _document()
    doc["workflows"][0]["inputs"]["properties"]["password"]["maxLength"] = 4
    path = write(doc, openapi=_openapi())
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--input", f"password={SECRET}")
    assert result.code == 2
    assert "is too long" in result.err
    _assert_masked(result.err, "stderr")
    assert server.requests == []


def test_nested_write_only_inputs_and_derived_forms_are_masked(capsys, write, server):
    token = "tok-Ünïcode secret"  # JSON-escaped and URL-encoded forms differ from the raw text
    server.route("GET", "/flaky")(lambda r: (200, {"seen": r.query.get("q"), "raw": r.raw_query}))
    flow = workflow(
        "flow",
        op_step(
            "call",
            "flaky",
            parameters=[{"name": "q", "in": "query", "value": "$inputs.account.token"}],
            outputs={"echo": "$response.body"},
        ),
        inputs=SECRET_INPUTS,
        outputs={"echo": "$steps.call.outputs.echo"},
    )
    path = write(arazzo_doc(flow), openapi=_openapi())
    inputs = json.dumps({"account": {"token": token}})
    result = cli(
        capsys, "run", path, "--server", f"pets={server.url}", "--inputs", inputs, "--format", "json", "-v"
    )
    assert result.code == 0, result.out
    text = result.out + result.err
    for form in (token, quote(token, safe=""), json.dumps(token)[1:-1]):
        assert form not in text
    assert json.loads(result.out)["workflows"][0]["outputs"]["echo"]["seen"] == ["***"]


def test_short_credentials_are_masked_by_name_only(capsys, write, server, tmp_path):
    """A 3-character api key is hidden where the scheme puts it (query `api_key`), but the same three
    letters elsewhere are left alone: masking them everywhere would wreck the output."""
    server.route("GET", "/flaky")(lambda r: (200, {"note": "abc is fine"}))
    path = write(arazzo_doc(workflow("flow", op_step("call", "flaky"))), openapi=_openapi())
    har = tmp_path / "run.har"
    result = cli(
        capsys, "run", path, "--server", f"pets={server.url}", "--auth", "key=abc", "-v", "--har", har
    )
    assert result.code == 0, result.out
    assert server.requests[0].query["api_key"] == ["abc"]
    assert "?api_key=***" in result.out
    assert "abc is fine" in result.out
    entry = json.loads(har.read_text())["log"]["entries"][0]
    assert entry["request"]["queryString"] == [{"name": "api_key", "value": "***"}]
    assert entry["request"]["url"].endswith("?api_key=***")


def test_authorization_and_cookies_are_masked_by_name(capsys, write, server):
    server.route("GET", "/session")(
        lambda r: (200, {}, {"Set-Cookie": "sid=xy; Path=/; HttpOnly", "X-Other": "visible"})
    )
    step = op_step(
        "session",
        "session",
        parameters=[
            {"name": "sid", "in": "cookie", "value": "ab"},
            {"name": "Authorization", "in": "header", "value": "Bearer t0"},
            {"name": "Proxy-Authorization", "in": "header", "value": "Basic zz"},
        ],
    )
    path = write(arazzo_doc(workflow("flow", step)))
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "-v")
    assert result.code == 0, result.out
    assert server.requests[0].headers["authorization"] == "Bearer t0"
    for line in ("> Cookie: sid=***", "> Authorization: Bearer ***", "> Proxy-Authorization: Basic ***"):
        assert line in result.out
    assert "< set-cookie: sid=***; Path=/; HttpOnly" in result.out  # httpx gives header names lowercased
    assert "visible" in result.out
