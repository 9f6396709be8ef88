"""An OAuth2 `tokenUrl` on another origin than the API receives the client secret (issue 13, section 4):
said once per run and scheme; over plain http to another machine, refused before anything is sent.

Only loopback servers are reached: "another machine" is a name the guard client below never connects to
(it records the attempt instead), and the refusal must come before any attempt.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import httpx
import pytest

import arazzo_runner
from tests.e2e.httpkit import echo, op, openapi, step, write_flow

SECRET = "client-s3cret"
AUTH = {"oauth.client_id": "my-client", "oauth.client_secret": SECRET}


class _LoopbackOnly(httpx.AsyncHTTPTransport):
    """A real transport for loopback hosts; any other host is recorded and refused, never connected to."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback:
            self.refused.append(str(request.url))
            raise httpx.ConnectError(f"test guard: {host} is not this machine", request=request)
        return await super().handle_async_request(request)


def _flow(folder: Path, token_url: str, steps: int = 2) -> Path:
    scheme = {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": token_url, "scopes": {}}}}
    api = openapi(
        {"/r": {"get": op("r", security=[{"oauth": []}])}},
        components={"securitySchemes": {"oauth": scheme}},
    )
    return write_flow(folder, api, [step(f"s{i}", "r") for i in range(steps)])


def _token_endpoint(server: Any) -> None:
    server.route("POST", "/oauth/token")(lambda r: (200, {"access_token": "tok-1", "token_type": "Bearer"}))


def test_a_token_url_on_another_origin_is_said_once_per_run(tmp_path, server, other_server):
    echo(server), _token_endpoint(other_server)
    token_url = f"{other_server.url}/oauth/token"
    path = _flow(tmp_path, token_url)
    [workflow] = arazzo_runner.run(path, servers={"api": server.url}, environ={}, auth=AUTH).to_dict()[
        "workflows"
    ]
    assert workflow["status"] == "passed", workflow["error"]
    first, second = (entry.get("warnings", []) for entry in workflow["steps"])
    assert first == [
        f"security scheme 'oauth': the client secret is sent to its tokenUrl {token_url}, on another origin "
        f"than the API ({server.url})"
    ]
    assert second == []
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer tok-1", "Bearer tok-1"]


def test_a_relative_or_same_origin_token_url_is_not_warned_about(tmp_path, server):
    _token_endpoint(server), echo(server)  # the token route first: the first matching route answers
    for token_url in ("/oauth/token", f"{server.url}/oauth/token"):
        path = _flow(tmp_path, token_url, steps=1)
        [workflow] = arazzo_runner.run(path, servers={"api": server.url}, environ={}, auth=AUTH).to_dict()[
            "workflows"
        ]
        assert workflow["status"] == "passed", workflow["error"]
        assert "warnings" not in workflow["steps"][0], token_url


def test_a_plain_http_token_url_on_another_machine_is_refused_unsent(tmp_path, server):
    echo(server)
    path = _flow(tmp_path, "http://auth.example.test/oauth/token")
    guard = _LoopbackOnly()
    client = httpx.AsyncClient(transport=guard)
    try:
        result = arazzo_runner.run(path, servers={"api": server.url}, environ={}, auth=AUTH, client=client)
    finally:
        import asyncio

        asyncio.run(client.aclose())
    [workflow] = result.to_dict()["workflows"]
    assert guard.refused == []  # no token request was attempted
    assert server.requests == []  # and the step was not sent
    assert workflow["status"] == "failed"
    assert workflow["steps"][0]["error"] == (
        "request not sent: security scheme 'oauth': its tokenUrl http://auth.example.test/oauth/token is "
        "plain http to another machine (auth.example.test) on another origin than the API "
        f"({server.url}); the client secret is not sent there: use an https tokenUrl, or give a token "
        "instead of the client id and secret"
    )
    assert SECRET not in repr(result.to_dict())


def test_a_dry_run_says_the_same_and_a_given_token_needs_no_token_url(tmp_path):
    path = _flow(tmp_path, "http://auth.example.test/oauth/token", steps=1)
    [planned] = arazzo_runner.plan_requests(
        path, servers={"api": "http://127.0.0.1:9"}, environ={}, auth=AUTH
    )
    assert "tokenUrl http://auth.example.test/oauth/token is plain http to another machine" in planned.error
    path = _flow(tmp_path, "https://auth.example.test/oauth/token", steps=1)
    [planned] = arazzo_runner.plan_requests(
        path, servers={"api": "http://127.0.0.1:9"}, environ={}, auth=AUTH
    )
    assert planned.error is None
    assert any("on another origin than the API (http://127.0.0.1:9)" in w for w in planned.warnings)
    given = {"oauth": "a-token"}
    [planned] = arazzo_runner.plan_requests(
        path, servers={"api": "http://127.0.0.1:9"}, environ={}, auth=given
    )
    assert (planned.error, planned.warnings) == (None, [])


@pytest.mark.parametrize("answer", [(401, {"error": "invalid_client"}), (200, {"no": "token"})])
def test_a_failed_token_request_on_another_origin_keeps_the_warning(
    tmp_path, capsys, server, other_server, answer
):
    """The secret was sent to the other origin even though no token came back: still said, in the
    step's warnings (`--format json`) and on the console."""
    from tests.e2e.helpers import cli

    echo(server)
    other_server.route("POST", "/oauth/token")(lambda r: answer)
    token_url = f"{other_server.url}/oauth/token"
    path = _flow(tmp_path, token_url, steps=1)
    [workflow] = arazzo_runner.run(path, servers={"api": server.url}, environ={}, auth=AUTH).to_dict()[
        "workflows"
    ]
    warning = (
        f"security scheme 'oauth': the client secret is sent to its tokenUrl {token_url}, on another origin "
        f"than the API ({server.url})"
    )
    [entry] = workflow["steps"]
    assert entry["status"] == "failed"
    assert entry["error"].startswith("request not sent: security scheme 'oauth': ")
    assert entry["warnings"] == [warning]
    assert len(other_server.requests) == 1 and server.requests == []  # the secret did go there
    flags = ["--server", f"api={server.url}", "--auth", f"oauth.client_id={AUTH['oauth.client_id']}"]
    flags += ["--auth", f"oauth.client_secret={SECRET}"]
    result = cli(capsys, "run", path, *flags, "--format", "json")
    assert result.code == 1
    assert result.json["workflows"][0]["steps"][0]["warnings"] == [warning]
    result = cli(capsys, "run", path, *flags)
    assert warning in result.out + result.err
    assert SECRET not in result.out + result.err
