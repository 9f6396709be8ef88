"""Respect's extensions, run as documented in docs/semantics.md (*Extensions*), over real local servers:
`x-operation` steps (a method and an absolute URL) from Respect's own fixtures, with their hosts pointed
at the local server, and `x-security` from Respect's fixtures with their remote Cafe description
replaced by a local one. Credentials stay with their origin: the engine's never reach an x-operation."""

from __future__ import annotations

import base64
import json
import shutil

import pytest
import yaml

from tests.e2e.dialectkit import CORPUS, fix_in_place
from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer
from tests.shared import MISSING

RESPECT = CORPUS / "redocly-respect-fixtures" / "tests"
pytestmark = pytest.mark.skipif(not RESPECT.is_dir(), reason=MISSING)

POST_1 = {
    "userId": 1,
    "id": 1,
    "title": "sunt aut facere repellat provident occaecati excepturi optio reprehenderit",
    "body": "quia et suscipit\nsuscipit recusandae consequuntur expedita et cum\nreprehenderit molestiae "
    "ut ut quas totam\nnostrum rerum est autem sunt rem eveniet architecto",
}


def _pointed(source, target, hosts, server):
    """A copy of the fixture `source` at `target` whose absolute URLs on `hosts` go to `server`."""
    text = source.read_text(encoding="utf-8")
    for host in hosts:
        text = text.replace(host, server.url)
    target.write_text(text, encoding="utf-8")
    return target


def test_respects_free_apis_fixture_runs_its_x_operation_steps(tmp_path, capsys) -> None:
    server = ScriptedServer()
    server.reply("GET", "/posts/1", (200, POST_1))
    server.reply("GET", "/posts/wrong-id", (404, {}))
    page = "<html><body><h2>404 - File or directory not found.</h2></body></html>"
    server.reply("POST", "/api/Traveler", (404, page, {"Content-Type": "text/html"}))
    folder = tmp_path / "free-apis"
    shutil.copytree(RESPECT / "e2e" / "respect" / "free-apis", folder)
    hosts = ("https://jsonplaceholder.typicode.com", "http://restapi.adequateshop.com")
    with server:
        document = _pointed(folder / "free.arazzo.yaml", folder / "free.arazzo.yaml", hosts, server)
        checked = cli(capsys, "validate", document)
        assert checked.code == 0 and checked.out.count("warning x-operation:") == 3, checked.out
        run = cli(capsys, "run", document, "--format", "json")
    assert run.code == 0, run.out + run.err
    assert [w["status"] for w in run.json["workflows"]] == ["passed", "passed"]
    assert [(r.method, r.path) for r in server.requests] == [
        ("GET", "/posts/1"),
        ("GET", "/posts/wrong-id"),
        ("POST", "/api/Traveler"),
    ]
    xml = server.requests[2]
    assert xml.headers["content-type"] == "application/xml"
    assert xml.body.decode().startswith('<?xml version="1.0"?>\n<Travelerinformation>')


def _rebilly_server():
    server = ScriptedServer()
    state = {}

    def create(request):
        state["customer"] = {**request.json()["primaryAddress"], "id": "cus_7"}
        return 201, {"id": "cus_7"}

    def read(request):
        if "customer" not in state:
            return 404, {}
        return 200, state["customer"]

    def update(request):
        state["customer"].update(request.json()["primaryAddress"])
        return 200, state["customer"]

    def delete(request):
        state.pop("customer")
        return 204, b""

    base = "/organizations/redocly/customers"
    server.route("POST", base)(create)
    server.route("GET", base + "/{id}")(read)
    server.route("PUT", base + "/{id}")(update)
    server.route("DELETE", base + "/{id}")(delete)
    return server


@pytest.mark.parametrize("fixed", [False, True], ids=["as written", "fixed"])
def test_rebillys_crud_workflow_of_x_operation_steps(tmp_path, capsys, fixed) -> None:
    folder = tmp_path / "rebilly"
    shutil.copytree(RESPECT / "smoke" / "rebilly", folder)
    server = _rebilly_server()
    inputs = json.dumps({"env": {"SANDBOX_REBILLY_TOKEN": "reb-token-123"}})
    with server:
        document = _pointed(folder / "rebilly.arazzo.yaml", folder / "rebilly.arazzo.yaml",
                            ("https://api-sandbox.rebilly.com",), server)  # fmt: skip
        if fixed:
            fix_in_place(capsys, document)
        # the engine's credential for the description's scheme must not reach an x-operation URL
        run = cli(capsys, "run", document, "-w", "crud", "--inputs", inputs, "--format", "json",
                  "--auth", "SecretApiKey=engine-held-key")  # fmt: skip
    assert run.code == 0, run.out + run.err
    steps = run.json["workflows"][0]["steps"]
    assert [s["status"] for s in steps] == ["passed"] * 5
    assert [(r.method, r.path, r.raw_query) for r in server.requests] == [
        ("POST", "/organizations/redocly/customers", ""),
        ("GET", "/organizations/redocly/customers/cus_7", ""),
        ("PUT", "/organizations/redocly/customers/cus_7", ""),
        (
            "DELETE",
            "/organizations/redocly/customers/cus_7",
            "targetCustomerId=cus_01GYWHGJAJYC3SKM8BKWKZA0SZ",
        ),
        ("GET", "/organizations/redocly/customers/cus_7", ""),
    ]
    for request in server.requests:
        assert request.headers["reb-apikey"] == "reb-token-123"  # the workflow's header parameter
        assert "engine-held-key" not in json.dumps(request.headers) + request.raw_query
    assert server.requests[0].json() == {
        "primaryAddress": {"firstName": "First", "lastName": "Last"},
        "defaultPaymentInstrument": {"method": "check"},
    }


CAFE = {
    "openapi": "3.1.0",
    "info": {"title": "Cafe (local stand-in)", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/unused"}],
    "components": {
        "securitySchemes": {
            "OAuth2": {
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": "/token", "scopes": {"read": "read"}}},
            },
            "ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-KEY"},
        }
    },
    "security": [{"OAuth2": []}, {"ApiKey": []}],
    "paths": {
        "/menu": {
            "get": {
                "operationId": "listMenuItems",
                "parameters": [{"name": "search", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/orders": {
            "post": {
                "operationId": "createOrder",
                "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
                "responses": {"201": {"description": "created"}, "401": {"description": "no"}},
            }
        },
    },
}


def _x_security_run(tmp_path, capsys, case, *argv):
    """Respect's fixture `case`, its Cafe source replaced by the local description above."""
    source = RESPECT / "e2e" / "respect" / case / f"{case}.arazzo.yaml"
    text = source.read_text(encoding="utf-8").replace(
        "https://cafe.redocly.com/_bundle/openapi/cafe.yaml", "cafe.yaml"
    )
    (tmp_path / "cafe.yaml").write_text(yaml.safe_dump(CAFE), encoding="utf-8")
    document = tmp_path / f"{case}.arazzo.yaml"
    document.write_text(text, encoding="utf-8")
    server = ScriptedServer()
    server.reply("GET", "/menu", (200, []))
    server.reply("POST", "/orders", (401, {"error": "unauthorized"}))
    with server:
        run = cli(capsys, "run", document, "--server", f"cafe-api={server.url}", "--format", "json", *argv)
    return run, server.requests


def _basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize(
    ("case", "header", "value"),
    [
        ("x-security-basic-auth", "authorization", _basic("John", "s3cret-pass")),
        ("x-security-bearer-auth", "authorization", "Bearer s3cret-pass"),
        ("x-security-api-key-auth", "x-api-key", "s3cret-pass"),
        ("x-security-oauth2-auth", "authorization", "Bearer oauth2-token"),
        ("x-security-open-id-connect-auth", "authorization", "Bearer openIdConnect-token"),
    ],
)
def test_respects_x_security_fixtures(tmp_path, capsys, case, header, value) -> None:
    run, requests = _x_security_run(tmp_path, capsys, case, "--input", "secret=s3cret-pass")
    assert run.code == 0, run.out + run.err
    [request] = requests
    assert request.headers[header] == value
    assert request.query == {"search": ["mermaid-treasure-latte"]}
    assert "s3cret-pass" not in run.out and "oauth2-token" not in run.out  # secrets from then on


def test_x_security_apply_order(tmp_path, capsys) -> None:
    run, [request] = _x_security_run(tmp_path, capsys, "x-security-scheme-apply-order")
    assert run.code == 0, run.out + run.err
    # workflow entries first, then the step's; a later entry wins over an earlier one and over a parameter
    assert request.headers["authorization"] == _basic("basic-auth-should-be-in-final-result", "some-password")
    assert request.headers["x-api-key"] == "api-key-auth-should-be-in-final-result"
    assert request.headers["cookie"] == (
        "X-API-KEY-WORKFLOW=workflow-api-key-auth; X-API-KEY=cookie-api-key-auth-should-be-in-final-result"
    )


def test_x_security_on_the_workflow_applies_to_every_step(tmp_path, capsys) -> None:
    run, requests = _x_security_run(tmp_path, capsys, "x-security-on-workflow-level-merged-to-steps")
    assert run.code == 0, run.out + run.err
    assert [r.headers["authorization"] for r in requests] == [_basic("John", "some-password")] * 2


def test_x_security_by_scheme_name_of_the_steps_source(tmp_path, capsys) -> None:
    run, requests = _x_security_run(
        tmp_path, capsys, "x-security-resolve-scheme-name", "--input", "secret=k3y-value"
    )
    assert run.code == 0, run.out + run.err
    assert requests[0].headers["authorization"] == "Bearer k3y-value"  # OAuth2: the accessToken
    assert requests[1].headers["x-api-key"] == "k3y-value"  # ApiKey: its header


def test_an_x_security_value_that_is_missing_fails_the_step_unsent(tmp_path, capsys) -> None:
    run, requests = _x_security_run(tmp_path, capsys, "x-security-bearer-auth")  # no `secret` input
    assert run.code == 1 and requests == []
    [step] = run.json["workflows"][0]["steps"]
    assert "x-security value 'token' has no value" in step["error"]


def _with_server_url(tmp_path, declared, servers=("http://127.0.0.1:9/unused",)):
    openapi = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": url} for url in servers],
        "paths": {
            "/menu": {"get": {"operationId": "listMenuItems", "responses": {"200": {"description": "ok"}}}}
        },
    }
    (tmp_path / "cafe.yaml").write_text(yaml.safe_dump(openapi), encoding="utf-8")
    document = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [
            {"name": "cafe", "url": "cafe.yaml", "type": "openapi", "x-serverUrl": declared}
        ],
        "workflows": [{"workflowId": "w", "steps": [{"stepId": "s", "operationId": "listMenuItems"}]}],
    }
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def test_x_server_url_sets_the_sources_server_below_the_server_flag(tmp_path, capsys) -> None:
    with ScriptedServer() as server, ScriptedServer() as other:
        server.reply("GET", "/base/menu", (200, []))
        other.reply("GET", "/menu", (200, []))
        path = _with_server_url(tmp_path, server.url + "/base")
        assert cli(capsys, "run", path).code == 0
        assert cli(capsys, "run", path, "--server", f"cafe={other.url}").code == 0
        # `$servers.<index>.url`: that server of the description
        indexed = _with_server_url(
            tmp_path, "$servers.1.url", ("http://127.0.0.1:9/unused", server.url + "/base")
        )
        assert cli(capsys, "run", indexed).code == 0
    assert [r.path for r in server.requests] == ["/base/menu", "/base/menu"]
    assert [r.path for r in other.requests] == ["/menu"]
    bad = cli(capsys, "run", _with_server_url(tmp_path, "$servers.5.url"))
    assert bad.code == 2 and "x-serverUrl $servers.5.url of source 'cafe': it has 1 server(s)" in bad.err
