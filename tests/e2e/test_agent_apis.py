"""`arazzo agent --api responses|anthropic` end to end: the shop's workflows as tools over OpenAI's
Responses API and Anthropic's Messages API, against the bundled reference server in the matching
flavour (in-process, and started apart as a process behind a recording proxy: every request the model
got is checked for secrets), streamed and not; `--max-tokens` making an answer incomplete."""

from __future__ import annotations

import contextlib
import json
import sys
import threading

import httpx
import pytest

from tests.e2e.agentkit import (
    API_KEY,
    BOTH,
    CANCEL,
    OWNER_KEY,
    TOKEN,
    assert_no_secret,
    serve_shop,
    tool_args,
    write_shop,
)
from tests.e2e.helpers import cli
from tests.e2e.processkit import Process
from tests.servers.scripted import ScriptedServer

APIS = ["responses", "anthropic"]
KEY_ENV = {"responses": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
FORWARDED = ("authorization", "x-api-key", "anthropic-version", "content-type", "accept")


@pytest.fixture
def shop(tmp_path):
    with ScriptedServer() as server:
        yield write_shop(tmp_path), server


@contextlib.contextmanager
def _apart(api):
    """The reference server started as a process in the API's flavour, behind a proxy that records
    each request: (the proxy, its base URL)."""
    process = Process([sys.executable, "-m", "arazzo_runner.reference", "--port", "0", "--flavor", api])
    try:
        target = process.line("Reference chat-completions server at").split()[0]
        with ScriptedServer() as proxy, httpx.Client(timeout=60) as client:

            @proxy.route("POST", "/v1/{path}")
            def forward(recorded):
                headers = {k: v for k, v in recorded.headers.items() if k in FORWARDED}
                url = f"{target}/{recorded.params['path']}"
                answer = client.post(url, content=recorded.body, headers=headers)
                return answer.status_code, answer.content, {"Content-Type": answer.headers["content-type"]}

            yield proxy, proxy.url + "/v1"
    finally:
        process.stop()


@pytest.fixture(scope="module")
def apart_responses():
    with _apart("responses") as running:
        yield running


@pytest.fixture(scope="module")
def apart_anthropic():
    with _apart("anthropic") as running:
        yield running


def agent_json(capsys, *argv):
    result = cli(capsys, "agent", *argv, "--format", "json")
    assert_no_secret(result.out + result.err)
    return result, result.json


def model_args(kind, api, request, monkeypatch):
    if kind == "inprocess":
        return ["--api", api]
    proxy, url = request.getfixturevalue(f"apart_{api}")
    monkeypatch.setenv(KEY_ENV[api], API_KEY)
    proxy.requests.clear()
    return ["--api", api, "--chat", url, "--model", "agentaus"]


def tool_exchange(api, messages):
    """(the ids of the model's calls, the ids its results answer, whether each result is an error)."""
    if api == "responses":
        calls = [m["call_id"] for m in messages if m.get("type") == "function_call"]
        results = [m for m in messages if m.get("type") == "function_call_output"]
        return calls, [r["call_id"] for r in results], [None for _ in results]
    assistant = [m for m in messages if m["role"] == "assistant"]
    calls = [b["id"] for m in assistant for b in m["content"] if b["type"] == "tool_use"]
    results = [
        b for m in messages if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"]
    ]
    return calls, [r["tool_use_id"] for r in results], [r.get("is_error") for r in results]


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("kind", ["inprocess", "apart"])
@pytest.mark.parametrize("api", APIS)
def test_two_tool_calls_make_a_round_trip_and_the_credentials_stay_hidden(
    capsys, shop, api, kind, stream, request, monkeypatch
):
    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60))  # the two calls of one answer run at once
    args = model_args(kind, api, request, monkeypatch)
    result, data = agent_json(capsys, *tool_args(path, server), "--prompt", BOTH, stream, *args)
    assert result.code == 0, result.err
    assert data["status"] == "answered" and data["api"] == api and data["turns"] == 2
    assert data["finishReason"] == ("completed" if api == "responses" else "end_turn")
    calls = {call["name"]: call for call in data["toolCalls"]}
    assert calls["pet_details"]["outputs"] == {"name": "Rex", "seen": "***"}
    assert calls["owner_lookup"]["outputs"] == {"owner": "Alice", "echo": "***"}
    assert "Alice" in data["answer"] and "***" in data["answer"]
    sent_calls, answered, errors = tool_exchange(api, data["messages"])
    assert sent_calls == answered == [call["id"] for call in data["toolCalls"]]
    assert errors == [None, None]
    assert data["usage"]["inputTokens"] > 0 and data["usage"]["outputTokens"] > 0
    if kind == "apart":
        proxy, _ = request.getfixturevalue(f"apart_{api}")
        _assert_requests(api, proxy.requests, stream == "--stream")


def _assert_requests(api, requests, stream):
    assert len(requests) == 2
    for recorded in requests:
        everything = recorded.body.decode() + json.dumps(recorded.headers)
        assert TOKEN not in everything and OWNER_KEY not in everything
        body = recorded.json()
        assert body["stream"] is stream and API_KEY not in recorded.body.decode()
        if api == "responses":
            assert recorded.path == "/v1/responses" and body["store"] is False
            assert recorded.headers["authorization"] == f"Bearer {API_KEY}"
            assert {tool["name"] for tool in body["tools"]} == {
                "pet_details",
                "owner_lookup",
                "adoption_cancel",
            }
            assert all(tool["type"] == "function" and tool["strict"] is False for tool in body["tools"])
            assert "token" not in json.dumps(body["tools"])  # the credential input is no parameter
        else:
            assert recorded.path == "/v1/messages" and body["max_tokens"] == 4096
            assert recorded.headers["x-api-key"] == API_KEY and "authorization" not in recorded.headers
            assert recorded.headers["anthropic-version"] == "2023-06-01"
            assert all(set(tool) == {"name", "description", "input_schema"} for tool in body["tools"])
            assert "token" not in json.dumps(body["tools"])


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("api", APIS)
def test_a_failing_tool_is_told_to_the_model_as_a_failure(capsys, shop, api, stream):
    path, server = shop
    serve_shop(server)
    result, data = agent_json(capsys, *tool_args(path, server), "--prompt", CANCEL, stream, "--api", api)
    assert result.code == 0, result.err
    (call,) = data["toolCalls"]
    assert call["status"] == "failed" and call["error"]["statusCode"] == 409
    _, _, errors = tool_exchange(api, data["messages"])
    assert errors == ([None] if api == "responses" else [True])  # the Messages API's is_error
    last = data["messages"][-1]
    output = last["output"] if api == "responses" else last["content"][0]["content"]
    assert json.loads(output) == {"status": "failed", "error": call["error"]}
    assert "got 409" in data["answer"]


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("api", APIS)
def test_an_answer_cut_by_max_tokens_is_not_an_answer(capsys, shop, api, stream):
    path, server = shop
    serve_shop(server)
    argv = [*tool_args(path, server), "--prompt", CANCEL, stream, "--api", api, "--max-tokens", "16"]
    result, data = agent_json(capsys, *argv)
    assert result.code == 1
    assert data["status"] == "failed" and data["answer"] is None
    assert data["error"]["kind"] == "incomplete"
    assert data["finishReason"] == ("max_output_tokens" if api == "responses" else "max_tokens")
    assert data["partialAnswer"].startswith("Based on the tool result:")
    assert len(data["partialAnswer"].split()) == 16


@pytest.mark.parametrize("api", APIS)
def test_the_text_output_names_the_api(capsys, shop, api):
    path, server = shop
    serve_shop(server)
    result = cli(capsys, "agent", *tool_args(path, server), "--prompt", CANCEL, "--api", api)
    assert result.code == 0, result.err
    name = {"responses": "Responses API", "anthropic": "Messages API"}[api]
    assert (
        result.out.splitlines()[0]
        == f"agent: 3 tool(s), {name} at the bundled reference server (in-process), streamed"
    )
    assert_no_secret(result.out + result.err)


def test_the_key_variable_follows_the_api(capsys, shop, monkeypatch):
    path, server = shop
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)  # not read for --api anthropic
    argv = [*tool_args(path, server), "--prompt", CANCEL, "--api", "anthropic"]
    result = cli(capsys, "agent", *argv, "--chat", "http://127.0.0.1:9/v1", "--model", "claude")
    assert result.code == 2
    assert "no API key in the environment variable ANTHROPIC_API_KEY" in result.err
    result = cli(
        capsys,
        "agent",
        *argv,
        "--chat",
        "http://127.0.0.1:9/v1",
        "--model",
        "c",
        "--api-key-env",
        "OPENAI_API_KEY",
    )
    assert result.code == 1 and "the Messages API could not be reached" in result.err
