"""A credential the engine added never leaves for another origin (issue 13 audit, point 4b).

The engine's credentials are not readable by expressions, but a document can bounce one off an endpoint
of the right origin that reflects it (`$response.body`) and forward it to another host. Before any request
is sent, its URL, headers, cookies and body are checked, in every encoded form masking knows, for a
credential the engine added (from `--auth`, `ARAZZO_AUTH_*`, an OAuth2 token it obtained, a client
secret) for another origin: the step fails unsent, naming the scheme and the origin it stays with, never
the value. Two real local servers are the two origins.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml

import arazzo_runner
from arazzo_runner.executor.options import RunOptions
from tests.e2e.helpers import cli
from tests.e2e.httpkit import op, openapi, step
from tests.servers.scripted import ScriptedServer

TOKEN = "Tk-9f3c2a7e/51d0+4b8c"  # reserved characters: each encoding differs
STRING = {"type": "string"}


def _reflect(server: Any) -> None:
    """The right origin reflects what it received: the Authorization header, the apiKey query parameter
    and the body, as is and encoded."""

    def reflect(request: Any) -> tuple:
        got = request.headers.get("authorization", "").partition(" ")[2] or request.query.get("key", [""])[0]
        got = got or request.body.decode()
        return 200, {
            "raw": got,
            "b64": base64.b64encode(got.encode()).decode(),
            "pct": quote(got, safe=""),
            "json": json.dumps({"t": got}),
        }

    for method in ("GET", "POST"):
        server.route(method, "/.*")(reflect)


def _sink(server: Any) -> None:
    for method in ("GET", "POST"):
        server.route(method, "/.*")(lambda request: (200, {}))


def _flow(folder: Path, a: Any, b: Any, scheme: dict, forward: dict, **fields: Any) -> Path:
    """Source `a` (server a, operation `opA` secured by `scheme`, and `openA` on a with no security),
    source `b` (server b, operation `opB` with no security); step one calls opA, step two forwards
    `$steps.one.outputs.*` to `forward["operation"]` as `forward` says."""
    api_a = openapi(
        {
            "/a": {"get": op("opA", security=[{"cred": []}])},
            "/open": {"post": op("openA", **_params())},
        },
        components={"securitySchemes": {"cred": scheme}},
    )
    api_a["servers"] = [{"url": a.url}]
    api_b = openapi({"/b": {"post": op("opB", **_params())}})
    api_b["servers"] = [{"url": b.url}]
    (folder / "a.openapi.yaml").write_text(yaml.safe_dump(api_a, sort_keys=False))
    (folder / "b.openapi.yaml").write_text(yaml.safe_dump(api_b, sort_keys=False))
    outputs = {k: f"$response.body#/{k}" for k in ("raw", "b64", "pct", "json")}
    two = step("two", forward.pop("operation", "$sourceDescriptions.b.opB"), **forward)
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [
            {"name": "a", "url": "./a.openapi.yaml", "type": "openapi"},
            {"name": "b", "url": "./b.openapi.yaml", "type": "openapi"},
        ],
        "workflows": [
            {
                "workflowId": "flow",
                **fields,
                "steps": [step("one", "$sourceDescriptions.a.opA", outputs=outputs), two],
            }
        ],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _params() -> dict:
    return {
        "parameters": [
            {"name": "q", "in": "query", "schema": STRING},
            {"name": "X-Fwd", "in": "header", "schema": STRING},
            {"name": "fwd", "in": "cookie", "schema": STRING},
        ],
        "requestBody": {"content": {"application/json": {"schema": {}}}},
    }


BEARER = {"type": "http", "scheme": "bearer"}
FORWARDS = {
    "header": {"parameters": [{"name": "X-Fwd", "in": "header", "value": "$steps.one.outputs.raw"}]},
    "query-percent-encoded": {
        "parameters": [{"name": "q", "in": "query", "value": "$steps.one.outputs.raw"}]
    },
    "cookie": {"parameters": [{"name": "fwd", "in": "cookie", "value": "$steps.one.outputs.raw"}]},
    "body-base64": {
        "requestBody": {"contentType": "application/json", "payload": {"x": "$steps.one.outputs.b64"}}
    },
    "body-json-escaped": {
        "requestBody": {"contentType": "application/json", "payload": "$steps.one.outputs.json"}
    },
    "query-already-encoded": {
        "parameters": [{"name": "q", "in": "query", "value": "$steps.one.outputs.pct"}]
    },
}


def _run(path: Path, **options: Any) -> dict[str, Any]:
    options.setdefault("environ", {})
    [workflow] = arazzo_runner.run(path, None, {}, options=RunOptions(**options)).to_dict()["workflows"]
    return workflow


@pytest.mark.parametrize("where", sorted(FORWARDS))
def test_a_bounced_credential_is_not_sent_to_another_origin(tmp_path, server, other_server, where):
    _reflect(server), _sink(other_server)
    path = _flow(tmp_path, server, other_server, BEARER, dict(FORWARDS[where]))
    workflow = _run(path, auth={"a:cred": TOKEN})
    one, two = workflow["steps"]
    assert one["status"] == "passed"
    assert two["status"] == "failed"
    assert two["error"] == (
        "request not sent: it carries the credential of security scheme 'cred' of source a, which stays "
        f"with {server.url}: the engine never sends a credential it added to another origin "
        f"({other_server.url})"
    )
    assert other_server.requests == []
    assert TOKEN not in two["error"]


def test_the_environment_s_api_key_and_the_command_line_are_guarded_the_same(
    tmp_path, capsys, server, other_server
):
    _reflect(server), _sink(other_server)
    api_key = {"type": "apiKey", "in": "query", "name": "key"}
    path = _flow(tmp_path, server, other_server, api_key, dict(FORWARDS["header"]))
    workflow = _run(path, environ={"ARAZZO_AUTH_CRED_API_KEY": TOKEN})
    assert workflow["steps"][1]["error"].startswith("request not sent: it carries the credential of")
    result = cli(capsys, "run", path, "--auth", f"cred={TOKEN}", "--format", "json")
    assert result.code == 1
    assert "which stays with" in result.json["workflows"][0]["steps"][1]["error"]
    assert TOKEN not in result.out + result.err
    assert other_server.requests == []


def test_an_obtained_oauth2_token_is_guarded(tmp_path, server, other_server):
    token_url = f"{server.url}/token"
    server.route("POST", "/token")(lambda r: (200, {"access_token": TOKEN, "token_type": "Bearer"}))
    _reflect(server), _sink(other_server)
    oauth = {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": token_url, "scopes": {}}}}
    path = _flow(tmp_path, server, other_server, oauth, dict(FORWARDS["header"]))
    workflow = _run(path, auth={"a:cred.client_id": "client-1", "a:cred.client_secret": "s3cret-client"})
    assert workflow["steps"][1]["error"].startswith(
        "request not sent: it carries the credential of security scheme 'cred' of source a, which stays "
        f"with {server.url}:"
    )
    assert other_server.requests == []


def test_a_client_secret_stays_with_its_token_url_s_origin(tmp_path, server, other_server):
    """A hostile token endpoint (another origin) hands the form it received back as the token: the
    client secret inside it would go to the API with the token. It stays with the token URL's origin:
    the step fails unsent, and the API receives nothing."""
    secret = "s3cret-of-the-client"
    with ScriptedServer() as token_server:
        token_server.route("POST", "/token")(
            lambda r: (200, {"access_token": r.body.decode(), "token_type": "Bearer"})
        )
        _reflect(server), _sink(other_server)
        token_url = f"{token_server.url}/token"
        oauth = {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": token_url, "scopes": {}}}}
        path = _flow(tmp_path, server, other_server, oauth, dict(FORWARDS["header"]))
        creds = {"a:cred.client_id": "client-1", "a:cred.client_secret": secret, "a:cred.client_auth": "post"}
        workflow = _run(path, auth=creds)
        assert len(token_server.requests) == 1  # the secret went where it is for, and only there
    [one] = workflow["steps"]
    assert one["error"] == (
        "request not sent: it carries the credential of security scheme 'cred' of source a, which stays "
        f"with {token_server.url}: the engine never sends a credential it added to another origin "
        f"({server.url})"
    )
    assert server.requests == [] and other_server.requests == []
    assert secret not in one["error"]


def test_what_stays_with_its_origin_or_is_the_document_s_own_is_sent(tmp_path, server, other_server):
    _reflect(server), _sink(other_server)
    # to the credential's own origin (another operation of it, with no security): allowed
    same_origin = dict(FORWARDS["header"], operation="$sourceDescriptions.a.openA")
    path = _flow(tmp_path, server, other_server, BEARER, same_origin)
    workflow = _run(path, auth={"a:cred": TOKEN})
    assert workflow["status"] == "passed", workflow["steps"][1].get("error")
    assert server.requests[-1].headers["x-fwd"] == TOKEN
    # a credential given as an input is the document's own: it can send it where it likes
    schema = {"type": "object", "properties": {"cred": STRING}}
    path = _flow(tmp_path, server, other_server, BEARER, dict(FORWARDS["header"]), inputs=schema)
    workflow = arazzo_runner.run(path, None, {"cred": TOKEN}, options=RunOptions(environ={})).to_dict()
    assert workflow["workflows"][0]["status"] == "passed"
    assert other_server.requests[-1].headers["x-fwd"] == TOKEN
