"""`arazzo agent` against model endpoints as they are met in the wild, over real sockets: a proxy that
ends the Responses and Messages streams with the chat stream's `data: [DONE]` (as LiteLLM's
`/v1/responses` and `/v1/messages` do) in front of the bundled reference server in the API's flavour."""

from __future__ import annotations

import threading

import httpx
import pytest

from arazzo_runner.reference import ReferenceServer
from tests.e2e.agentkit import API_KEY, BOTH, assert_no_secret, serve_shop, tool_args, write_shop
from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

APIS = ["responses", "anthropic"]
KEY_ENV = {"responses": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
FORWARDED = ("authorization", "x-api-key", "anthropic-version", "content-type", "accept")


@pytest.fixture
def shop(tmp_path):
    with ScriptedServer() as server:
        yield write_shop(tmp_path), server


def done_adding_proxy(target: str, proxy: ScriptedServer, client: httpx.Client) -> list[bytes]:
    """`proxy` forwards `/v1/...` to `target` (a base URL ending in /v1), each event stream it answers
    followed by `data: [DONE]`, as LiteLLM's proxy sends it; returns the bodies it sent, in order."""
    sent: list[bytes] = []

    @proxy.route("POST", "/v1/{path}")
    def forward(recorded):
        headers = {k: v for k, v in recorded.headers.items() if k in FORWARDED}
        answer = client.post(f"{target}/{recorded.params['path']}", content=recorded.body, headers=headers)
        body, kind = answer.content, answer.headers["content-type"]
        if kind.startswith("text/event-stream"):
            body += b"data: [DONE]\n\n"
        sent.append(body)
        return answer.status_code, body, {"Content-Type": kind}

    return sent


@pytest.mark.parametrize("api", APIS)
def test_a_proxy_ending_each_stream_with_done_gives_the_whole_round_trip(capsys, shop, api, monkeypatch):
    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60))
    monkeypatch.setenv(KEY_ENV[api], API_KEY)
    with (
        ReferenceServer(flavor=api) as reference,
        ScriptedServer() as proxy,
        httpx.Client(timeout=60) as client,
    ):
        sent = done_adding_proxy(reference.url, proxy, client)
        argv = ["--prompt", BOTH, "--api", api, "--chat", proxy.url + "/v1", "--model", "agentaus"]
        result = cli(capsys, "agent", *tool_args(path, server), *argv, "--format", "json")
    assert_no_secret(result.out + result.err)
    data = result.json
    assert result.code == 0, data["error"]
    assert data["status"] == "answered" and data["turns"] == 2 and data["retries"] == []
    assert sorted(call["name"] for call in data["toolCalls"]) == ["owner_lookup", "pet_details"]
    assert "Alice" in data["answer"]
    assert len(sent) == 2 and all(body.endswith(b"\n\ndata: [DONE]\n\n") for body in sent)
