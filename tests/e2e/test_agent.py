"""`arazzo agent` end to end: the shop's workflows as tools, a real chat server over real sockets (the
bundled reference server in-process and started apart, the independent compat server, and a scripted
one that records what the model is sent), streamed and not."""

from __future__ import annotations

import json
import re
import threading

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
from tests.servers.scripted import ScriptedServer

CHATS = ["inprocess", "reference", "reference-openai", "compat"]


@pytest.fixture(scope="module")
def openai_flavour_server():
    """The reference server speaking OpenAI's wire (`stream` default false, usage only when asked)."""
    from arazzo_runner.reference import ReferenceServer

    with ReferenceServer(flavor="openai") as running:
        yield running


@pytest.fixture
def shop(tmp_path):
    with ScriptedServer() as server:
        yield write_shop(tmp_path), server


def chat_args(kind, request, monkeypatch):
    """The options that choose the chat server `kind`: the bundled reference server in-process (no
    `--chat`), or started apart in its seed flavour or its OpenAI flavour, or the compat server."""
    if kind == "inprocess":
        return []
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    fixture = {"reference": "reference_server", "reference-openai": "openai_flavour_server"}.get(
        kind, "compat_server"
    )
    server = request.getfixturevalue(fixture)
    return ["--chat", server.url, "--model", "agentaus"]


def agent_json(capsys, *argv):
    result = cli(capsys, "agent", *argv, "--format", "json")
    assert_no_secret(result.out + result.err)
    return result, result.json


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("kind", CHATS)
def test_two_tool_calls_of_one_answer_run_at_once(capsys, shop, kind, stream, request, monkeypatch):
    path, server = shop
    serve_shop(server, threading.Barrier(2, timeout=60))  # each request waits for the other
    args = chat_args(kind, request, monkeypatch)
    result, data = agent_json(capsys, *tool_args(path, server), "--prompt", BOTH, stream, *args)
    assert result.code == 0, result.err
    assert data["status"] == "answered" and data["error"] is None
    assert data["turns"] == 2 and data["stream"] is (stream == "--stream")
    calls = {call["name"]: call for call in data["toolCalls"]}
    assert sorted(calls) == ["owner_lookup", "pet_details"]
    assert [call["status"] for call in calls.values()] == ["passed", "passed"]
    assert calls["pet_details"]["outputs"] == {"name": "Rex", "seen": "***"}
    assert calls["owner_lookup"]["outputs"] == {"owner": "Alice", "echo": "***"}
    assert {call["turn"] for call in calls.values()} == {1}
    assert "Alice" in data["answer"]
    # the second completion replayed the assistant's tool calls, each answered by its id
    assistant, *tools = data["messages"][1:]
    assert [c["id"] for c in assistant["tool_calls"]] == [t["tool_call_id"] for t in tools]
    assert [c["id"] for c in data["toolCalls"]] == [t["tool_call_id"] for t in tools]
    assert data["usage"]["totalTokens"] > 0
    sent = {r.path: r.headers for r in server.requests}
    assert sent[f"/pets/{calls['pet_details']['arguments']['petId']}"]["authorization"] == f"Bearer {TOKEN}"
    assert sent["/owners"]["x-owner-key"] == OWNER_KEY


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("kind", CHATS)
def test_a_failing_tool_workflow_is_told_to_the_model_and_reported(
    capsys, shop, kind, stream, request, monkeypatch
):
    path, server = shop
    serve_shop(server)
    args = chat_args(kind, request, monkeypatch)
    result, data = agent_json(capsys, *tool_args(path, server), "--prompt", CANCEL, stream, *args)
    assert result.code == 0, result.err
    (call,) = data["toolCalls"]
    assert call["name"] == "adoption_cancel" and call["status"] == "failed"
    error = call["error"]
    assert error["stepId"] == "cancel" and error["path"] == ["step 'cancel'"]
    assert error["statusCode"] == 409
    assert error["failedCriteria"] == ["$statusCode == 204: got 409"]
    assert "already final" in error["response"]["body"]
    tool_message = json.loads(data["messages"][-1]["content"])
    assert tool_message == {"status": "failed", "error": error}
    assert "got 409" in data["answer"]  # the scripted models quote the tool message


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_the_text_output_shows_each_call_as_it_starts_and_ends_and_the_answer(capsys, shop, stream):
    path, server = shop
    serve_shop(server)
    result = cli(capsys, "agent", *tool_args(path, server), "--prompt", CANCEL, stream)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    streamed = "streamed" if stream == "--stream" else "not streamed"
    assert lines[0] == f"agent: 3 tool(s), chat at the bundled reference server (in-process), {streamed}"
    assert lines[1] == "turn 1: the model calls tools"
    assert re.fullmatch(r'  → adoption_cancel \[(call_\w+)\] \{"adoptionId": 1\}', lines[2])
    call_id = re.search(r"\[(call_\w+)\]", lines[2]).group(1)
    assert lines[3].startswith(f"  ✗ adoption_cancel [{call_id}]: workflow 'adoption_cancel' failed at")
    assert lines[4].startswith("turn 2 text: Based on the tool result: ")
    assert lines[5] == "turn 2: the model answered"
    assert lines[6].startswith("2 turn(s), 1 tool call(s) (1 not passed), usage ")
    assert_no_secret(result.out + result.err)
