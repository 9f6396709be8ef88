"""The agent loop against a scripted chat server that records every request: what the model is sent
(tool messages, never a secret), tool calls it gets wrong, the turn limit, chat API failures, the
pinned JSON document, and the library entry points."""

from __future__ import annotations

import asyncio
import json

import pytest

import arazzo_runner
from arazzo_runner import RunOptions, UsageError
from tests.e2e.agentkit import (
    API_KEY,
    BOTH,
    OWNER_KEY,
    SECRETS,
    TOKEN,
    assert_no_secret,
    serve_shop,
    tool_args,
    write_shop,
)
from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

RESULT_KEYS = [
    "status",
    "answer",
    "error",
    "model",
    "endpoint",
    "stream",
    "api",
    "turns",
    "finishReason",
    "partialAnswer",
    "toolCalls",
    "retries",
    "usage",
    "messages",
]
CALL_KEYS = ["turn", "id", "name", "workflowId", "file", "arguments", "status", "outputs", "error"]


def completion(content=None, *calls):
    """A chat.completion answering with `content`, or with the tool calls (name, arguments text)."""
    tool_calls = [
        {"id": f"call_{name}_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    return 200, {
        "id": "cmpl",
        "object": "chat.completion",
        "choices": [choice],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with ScriptedServer() as shop, ScriptedServer() as chat:
        serve_shop(shop)
        yield write_shop(tmp_path), shop, chat


def run_agent(capsys, setup, *argv, fmt="json"):
    path, shop, chat = setup
    chat_flags = ["--chat", f"{chat.url}/v1", "--model", "scripted", "--no-stream"]
    result = cli(
        capsys, "agent", *tool_args(path, shop), *chat_flags, "--prompt", BOTH, *argv, "--format", fmt
    )
    assert_no_secret(result.out + result.err)
    return result


def sent(chat):
    """The bodies the chat server received (every one free of secrets)."""
    bodies = [r.json() for r in chat.requests]
    for request in chat.requests:
        assert_no_secret(request.body.decode())
        assert request.headers["authorization"] == f"Bearer {API_KEY}"
    return bodies


def test_a_three_turn_conversation_replays_every_call_and_result(capsys, setup):
    _, _, chat = setup
    chat.reply(
        "POST",
        "/v1/chat/completions",
        completion(None, ("pet_details", '{"petId": 7}')),
        completion("Let me look up the owner too.", ("owner_lookup", '{"ownerName": "Alice"}')),
        completion("Rex belongs to Alice."),
    )
    result = run_agent(capsys, setup)
    assert result.code == 0, result.err
    data = result.json
    assert data["answer"] == "Rex belongs to Alice." and data["turns"] == 3
    assert [(c["turn"], c["name"], c["status"]) for c in data["toolCalls"]] == [
        (1, "pet_details", "passed"),
        (2, "owner_lookup", "passed"),
    ]
    assert data["usage"] == {"inputTokens": 9, "outputTokens": 6, "totalTokens": 15}
    first, second, third = sent(chat)
    assert [m["role"] for m in third["messages"]] == ["user", "assistant", "tool", "assistant", "tool"]
    assert third["messages"][:3] == second["messages"]
    assert third["messages"][2] == {
        "role": "tool",
        "tool_call_id": "call_pet_details_0",
        "content": json.dumps({"status": "passed", "outputs": {"name": "Rex", "seen": "***"}}),
    }
    assert third["messages"][3]["content"] == "Let me look up the owner too."
    assert json.loads(third["messages"][4]["content"])["outputs"] == {"owner": "Alice", "echo": "***"}
    tools = {tool["function"]["name"]: tool["function"] for tool in first["tools"]}
    assert sorted(tools) == ["adoption_cancel", "owner_lookup", "pet_details"]
    assert tools["pet_details"]["parameters"]["required"] == ["petId"]  # `token` is a credential
    assert "token" not in tools["pet_details"]["parameters"]["properties"]
    assert first["stream"] is False and first["model"] == "scripted"


def test_tool_calls_the_loop_cannot_run_get_an_error_message_not_a_crash(capsys, setup):
    _, _, chat = setup
    chat.reply(
        "POST",
        "/v1/chat/completions",
        completion(
            None,
            ("pet_details", "{not json"),
            ("no_such_tool", "{}"),
            ("pet_details", '{"petId": "seven"}'),
            ("pet_details", json.dumps({"petId": 1, "token": "guess"})),
            ("pet_details", "[1, 2]"),
        ),
        completion("Sorry, I could not do it."),
    )
    result = run_agent(capsys, setup)
    assert result.code == 0, result.err
    calls = result.json["toolCalls"]
    assert [c["status"] for c in calls] == ["rejected"] * 5
    messages = [c["error"]["message"] for c in calls]
    assert messages[0].startswith("the arguments are not valid JSON")
    assert messages[1] == "no tool named 'no_such_tool' (tools: pet_details, owner_lookup, adoption_cancel)"
    assert "invalid arguments for tool 'pet_details'" in messages[2] and "petId" in messages[2]
    assert messages[3].startswith("'***' is not a parameter of tool 'pet_details'\n")
    assert messages[4] == "the arguments must be a JSON object"
    assert calls[0]["arguments"] == "{not json" and calls[4]["arguments"] == [1, 2]
    tool_messages = [m for m in sent(chat)[1]["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"]) for m in tool_messages] == [
        {"status": "rejected", "error": {"message": message}} for message in messages
    ]


def test_the_turn_limit_ends_the_loop_without_an_answer(capsys, setup):
    _, _, chat = setup
    chat.reply("POST", "/v1/chat/completions", completion(None, ("pet_details", '{"petId": 1}')))
    result = run_agent(capsys, setup, "--max-turns", "2")
    assert result.code == 1
    data = result.json
    assert data["status"] == "failed" and data["answer"] is None
    assert data["error"] == {"kind": "max-turns", "message": "no answer after 2 turns"}
    assert data["turns"] == 2 and len(data["toolCalls"]) == 2 and len(chat.requests) == 2


def test_a_chat_api_error_exits_1_with_its_message_and_no_key(capsys, setup):
    _, _, chat = setup

    @chat.route("POST", "/v1/chat/completions")
    def refuse(request):
        echoed = request.headers["authorization"]
        return 401, {
            "error": {
                "message": f"bad key {echoed}",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        }

    result = run_agent(capsys, setup)
    assert result.code == 1
    error = result.json["error"]
    assert error["kind"] == "chat"
    assert (
        error["message"]
        == "the chat API answered 401: bad key Bearer *** (type invalid_request_error, code invalid_api_key)"
    )
    text = run_agent(capsys, setup, fmt="text")
    assert text.code == 1
    assert f"error: {error['message']}" in text.err


def test_a_400_from_the_chat_api_is_a_chat_error_with_its_message(capsys, setup):
    """OpenAI answers 400 to a conversation it refuses (a tool message without its call, say): the loop
    stops there, saying what the API said, rather than reading the error as an answer."""
    _, _, chat = setup
    error = {"message": "Invalid 'messages[2].tool_call_id'", "type": "invalid_request_error"}
    chat.reply("POST", "/v1/chat/completions", (400, {"error": {**error, "param": "messages", "code": None}}))
    result = run_agent(capsys, setup)
    assert result.code == 1
    assert result.json["error"] == {
        "kind": "chat",
        "message": "the chat API answered 400: Invalid 'messages[2].tool_call_id' "
        "(type invalid_request_error, param messages)",
    }
    assert result.json["turns"] == 0 and result.json["toolCalls"] == []


def test_a_secret_in_the_arguments_of_a_rejected_call_is_masked(capsys, setup):
    """A model that got hold of a credential and passes it to a tool the loop cannot run, as an input
    the server supplies, or in arguments that are not an object: each call's arguments are reported,
    masked (run_agent also checks that no output holds a secret)."""
    _, _, chat = setup
    calls = (
        ("no_such_tool", json.dumps({"apiKey": API_KEY, "petId": 7})),
        ("pet_details", json.dumps({"petId": 1, "token": TOKEN})),
        ("pet_details", json.dumps([OWNER_KEY])),
    )
    twice = (completion(None, *calls), completion("Done.")) * 2  # a run in JSON, then one in text
    chat.reply("POST", "/v1/chat/completions", *twice)
    result = run_agent(capsys, setup)
    assert result.code == 0, result.err
    assert [(c["status"], c["arguments"]) for c in result.json["toolCalls"]] == [
        ("rejected", {"apiKey": "***", "petId": 7}),
        ("rejected", {"petId": 1, "token": "***"}),
        ("rejected", ["***"]),
    ]
    text = run_agent(capsys, setup, fmt="text")
    assert text.code == 0 and "3 tool call(s) (3 not passed)" in text.out


def test_an_answer_that_echoes_the_key_is_masked(capsys, setup):
    _, _, chat = setup

    @chat.route("POST", "/v1/chat/completions")
    def echo(request):
        return completion(f"your key is {request.headers['authorization'][7:]}")

    result = run_agent(capsys, setup)
    assert result.code == 0 and result.json["answer"] == "your key is ***"


@pytest.mark.parametrize("content", ["", " \n\t "])
def test_an_empty_answer_is_no_answer(capsys, setup, content):
    _, _, chat = setup
    chat.reply("POST", "/v1/chat/completions", completion(content))
    result = run_agent(capsys, setup)
    assert result.code == 1
    assert result.json["error"] == {
        "kind": "no-answer",
        "message": "the model ended without an answer (finish_reason stop)",
    }


def test_the_json_document_is_pinned(capsys, setup):
    _, _, chat = setup
    chat.reply(
        "POST", "/v1/chat/completions", completion(None, ("pet_details", '{"petId": 2}')), completion("Rex.")
    )
    data = run_agent(capsys, setup).json
    assert list(data) == RESULT_KEYS
    assert [list(call) for call in data["toolCalls"]] == [CALL_KEYS]
    assert data["model"] == "scripted" and data["endpoint"] == f"{setup[2].url}/v1"
    assert isinstance(data["turns"], int) and list(data["usage"]) == [
        "inputTokens",
        "outputTokens",
        "totalTokens",
    ]


def test_usage_errors_exit_2_before_anything_is_sent(capsys, setup, monkeypatch):
    path, shop, chat = setup
    base = [*tool_args(path, shop), "--prompt", "hi"]
    monkeypatch.delenv("OPENAI_API_KEY")
    result = cli(capsys, "agent", *base, "--chat", chat.url, "--model", "m")
    assert result.code == 2 and "no API key in the environment variable OPENAI_API_KEY" in result.err
    monkeypatch.setenv("OTHER_KEY", API_KEY)
    result = cli(capsys, "agent", *base, "--chat", chat.url, "--api-key-env", "OTHER_KEY")
    assert result.code == 2 and "give the model with --model" in result.err
    no_token = [str(path), "--server", f"shop={shop.url}", "--prompt", "hi"]
    result = cli(capsys, "agent", *no_token, "--format", "json")
    assert result.code == 2
    assert "tool 'pet_details' needs the credential input 'token'" in result.err
    assert "ARAZZO_INPUT_TOKEN=..." in result.err
    assert result.json["errors"][0]["message"].startswith("tool 'pet_details' needs the credential input")
    assert chat.requests == [] and shop.requests == []


def test_the_library_runs_the_loop_sync_and_async(setup):
    path, shop, _ = setup
    options = RunOptions(servers={"shop": shop.url}, auth={"ownerKey": OWNER_KEY})
    result = arazzo_runner.agent(path, BOTH, inputs={"token": TOKEN}, options=options, stream=False)
    assert result.ok and result.turns == 2
    assert sorted(c.outcome.name for c in result.tool_calls) == ["owner_lookup", "pet_details"]
    text = json.dumps(result.to_dict())
    assert not any(secret in text for secret in SECRETS)

    async def inside_a_loop():
        with pytest.raises(UsageError, match=r"use `await aagent\(\.\.\.\)`"):
            arazzo_runner.agent(path, BOTH)
        doc = arazzo_runner.load(path)
        return await arazzo_runner.aagent(
            doc, BOTH, workflows=["pet_details"], inputs={"token": TOKEN}, options=options
        )

    result = asyncio.run(inside_a_loop())
    assert result.ok and [c.outcome.name for c in result.tool_calls] == ["pet_details"]
    with pytest.raises(UsageError, match="credential inputs nothing supplies"):
        arazzo_runner.agent(path, BOTH, options=options)


@pytest.mark.parametrize(
    ("reason", "cause"),
    [("length", "it reached its token limit"), ("content_filter", "a content filter cut it")],
)
def test_an_answer_cut_short_is_not_an_answer(capsys, setup, reason, cause):
    _, _, chat = setup
    status, body = completion("Rex belongs to")
    body["choices"][0]["finish_reason"] = reason
    chat.reply("POST", "/v1/chat/completions", (status, body))
    result = run_agent(capsys, setup)
    assert result.code == 1
    data = result.json
    assert data["status"] == "failed" and data["answer"] is None
    assert data["partialAnswer"] == "Rex belongs to" and data["finishReason"] == reason
    assert data["error"] == {
        "kind": "incomplete",
        "message": f"the model stopped before finishing its answer: {cause} (finish_reason {reason})",
    }
    text = run_agent(capsys, setup, fmt="text")
    assert text.code == 1 and "answer:" not in text.out
    assert text.out.splitlines()[1:3] == [
        "turn 1 text: Rex belongs to",
        f"turn 1: that text is incomplete (finish_reason {reason}), not an answer",
    ]
    assert f"error: the model stopped before finishing its answer: {cause}" in text.err
