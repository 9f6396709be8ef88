"""`arazzo agent --record FILE` and `--replay FILE`: the model exchanges of a run saved (masked) and
answered again without a model or a key, the tools running their workflows for real; a replay that
asks what the recording does not hold fails (exit 1, error kind `replay`) naming the turn and the
difference."""

from __future__ import annotations

import json

import pytest

from tests.e2e.agentkit import (
    API_KEY,
    BOTH,
    CANCEL,
    SECRETS,
    assert_no_secret,
    serve_shop,
    tool_args,
    write_shop,
)
from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer


@pytest.fixture
def shop(tmp_path):
    with ScriptedServer() as server:
        serve_shop(server)
        yield write_shop(tmp_path), server


def agent(capsys, path, server, *argv, fmt="json"):
    result = cli(capsys, "agent", *tool_args(path, server), *argv, "--format", fmt)
    assert_no_secret(result.out + result.err)
    return result


@pytest.fixture
def recorded(capsys, shop, tmp_path):
    """A run against the bundled reference server (in-process), recorded."""
    path, server = shop
    recording = tmp_path / "pets.recording.json"
    result = agent(capsys, path, server, "--prompt", BOTH, "--record", str(recording))
    assert result.code == 0, result.err
    return recording, result.json


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_a_replay_answers_as_the_recording_without_a_model_or_a_key(
    capsys, shop, recorded, monkeypatch, stream
):
    path, server = shop
    recording, original = recorded
    text = recording.read_text()
    for secret in (*SECRETS, "sk-reference-local"):
        assert secret not in text
    data = json.loads(text)
    assert [data["version"], data["api"], data["model"], data["prompt"]] == [1, "chat", "agentaus", BOTH]
    assert data["status"] == "answered" and len(data["exchanges"]) == 2
    first, second = data["exchanges"]
    assert first["request"]["tools"] == ["pet_details", "owner_lookup", "adoption_cancel"]
    assert [m["role"] for m in first["request"]["messages"]] == ["user"]
    assert sorted(c["name"] for c in first["completion"]["toolCalls"]) == ["owner_lookup", "pet_details"]
    assert second["completion"]["content"] == original["answer"]
    assert second["completion"]["finishReason"] == "stop"

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    sent = len(server.requests)
    result = agent(capsys, path, server, "--replay", str(recording), stream)
    assert result.code == 0, result.err
    replayed = result.json
    assert replayed["answer"] == original["answer"] and replayed["turns"] == 2
    assert replayed["endpoint"] == f"replay:{recording}" and replayed["model"] == "agentaus"
    assert [c["outputs"] for c in replayed["toolCalls"]] == [c["outputs"] for c in original["toolCalls"]]
    assert replayed["messages"] == original["messages"]
    assert len(server.requests) == sent + 2  # the tools ran their workflows again, for real

    shown = agent(capsys, path, server, "--replay", str(recording), stream, fmt="text")
    assert shown.code == 0
    lines = shown.out.splitlines()
    assert lines[0] == f"agent: 3 tool(s), chat at the recording {recording}, replayed"
    assert f"turn 2 text: {original['answer']}" in lines and "turn 2: the model answered" in lines


def test_a_changed_workflow_output_fails_the_replay_naming_the_turn_and_the_value(capsys, recorded, tmp_path):
    recording, _ = recorded
    with ScriptedServer() as changed:

        @changed.route("GET", "/pets/{petId}")  # the first route that matches answers
        def renamed(request):
            return 200, {"id": 1, "name": "Max", "seenAuthorization": request.headers.get("authorization")}

        serve_shop(changed)
        result = agent(capsys, tmp_path / "shop.arazzo.yaml", changed, "--replay", str(recording))
    assert result.code == 1
    error = result.json["error"]
    assert error["kind"] == "replay"
    assert error["message"].startswith(f"replay of {recording}: turn 2: messages[")
    assert '.content.outputs.name: the recording has "Rex", this run "Max"' in error["message"]
    assert "(tool of call call_" in error["message"]
    assert result.json["turns"] == 1 and result.json["status"] == "failed"


def test_a_failed_tool_call_replays_against_a_server_on_another_port(capsys, tmp_path):
    """The failure's `request.url` names the shop's port; the recording holds it without its origin."""
    recording = tmp_path / "cancel.json"
    path = write_shop(tmp_path)
    with ScriptedServer() as first:
        serve_shop(first)
        made = agent(capsys, path, first, "--prompt", CANCEL, "--record", str(recording))
    assert made.code == 0 and made.json["toolCalls"][0]["status"] == "failed"
    assert first.url in made.json["toolCalls"][0]["error"]["request"]["url"]
    with ScriptedServer() as second:
        serve_shop(second)
        again = agent(capsys, path, second, "--replay", str(recording))
    assert again.code == 0, again.json["error"]
    assert again.json["answer"] == made.json["answer"]


def test_other_tools_or_a_longer_conversation_are_not_held(capsys, shop, recorded):
    path, server = shop
    recording, _ = recorded
    fewer = agent(capsys, path, server, "--replay", str(recording), "--workflow", "pet_details")
    assert fewer.code == 1 and fewer.json["error"] == {
        "kind": "replay",
        "message": f"replay of {recording}: turn 1: the tools offered differ: new none, "
        "gone ['adoption_cancel', 'owner_lookup']",
    }
    other = agent(capsys, path, server, "--replay", str(recording), "--prompt", "Show the pet details")
    assert other.code == 1
    assert other.json["error"]["message"] == (
        f"replay of {recording}: turn 1: messages[0] (user).content: the recording has "
        f'"{BOTH}", this run "Show the pet details"'
    )
    data = json.loads(recording.read_text())
    data["exchanges"].pop()
    recording.write_text(json.dumps(data))
    short = agent(capsys, path, server, "--replay", str(recording))
    assert short.code == 1 and short.json["error"]["message"] == (
        f"replay of {recording}: turn 2: the recording holds 1 exchange(s); the loop asks for one more"
    )


def test_a_recording_against_a_chat_api_holds_no_key(capsys, shop, tmp_path, monkeypatch):
    path, server = shop
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    recording = tmp_path / "chat.json"
    with ScriptedServer() as chat:

        @chat.route("POST", "/v1/chat/completions")
        def echo(request):
            key = request.headers["authorization"][7:]
            message = {"role": "assistant", "content": f"your key is {key}"}
            return 200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}

        chat_flags = ["--chat", f"{chat.url}/v1", "--model", "scripted", "--no-stream"]
        result = agent(capsys, path, server, *chat_flags, "--prompt", "hi", "--record", str(recording))
    assert result.code == 0
    text = recording.read_text()
    assert API_KEY not in text and "your key is ***" in text
    assert json.loads(text)["endpoint"] == f"{chat.url}/v1"
    monkeypatch.delenv("OPENAI_API_KEY")
    again = agent(capsys, path, server, "--replay", str(recording))
    assert again.code == 0 and again.json["answer"] == "your key is ***"


def test_usage_errors_exit_2(capsys, shop, recorded, tmp_path):
    path, server = shop
    recording, _ = recorded
    chat = agent(capsys, path, server, "--replay", str(recording), "--chat", "http://127.0.0.1:9/v1")
    assert chat.code == 2 and "--replay answers from the recording: it takes no --chat" in chat.err
    model = agent(capsys, path, server, "--replay", str(recording), "--model", "gpt-4o")
    assert model.code == 2 and "--replay answers from the recording: it takes no --model" in model.err
    missing = agent(capsys, path, server, "--replay", str(tmp_path / "none.json"))
    assert missing.code == 2 and "cannot read it" in missing.err
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**json.loads(recording.read_text()), "version": 2}))
    result = agent(capsys, path, server, "--replay", str(newer))
    assert result.code == 2
    assert "recording version 2; this version of the engine reads version 1" in result.err
    no_prompt = agent(capsys, path, server)
    assert no_prompt.code == 2 and "--prompt" in no_prompt.err
    nowhere = agent(capsys, path, server, "--prompt", "hi", "--record", str(tmp_path / "no" / "r.json"))
    assert nowhere.code == 2 and "--record" in nowhere.err and "the folder does not exist" in nowhere.err


def test_a_recording_naming_no_api_spoken_here_is_quoted_in_json(capsys, shop, recorded, tmp_path):
    """A hand-edited recording's `api` (null, a list) and `version` are quoted as the file writes them,
    in JSON: never Python's `None` or `['chat']`."""
    path, server = shop
    recording, _ = recorded
    written = json.loads(recording.read_text())
    cases = (("api", None, "null"), ("api", ["chat"], '["chat"]'), ("version", None, "null"))
    for field, value, shown in cases:
        edited = tmp_path / f"edited-{field}.json"
        edited.write_text(json.dumps({**written, field: value}))
        result = agent(capsys, path, server, "--replay", str(edited))
        assert result.code == 2, result.err
        wanted = f"recorded with the API {shown}," if field == "api" else f"recording version {shown};"
        assert wanted in result.err, result.err


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda c: {"toolCalls": [{"name": "x", "arguments": "{}"}]},
            "/exchanges/0/completion/toolCalls/0/id is not a string",
        ),
        (lambda c: {**c, "toolCalls": 7}, "/exchanges/0/completion/toolCalls is not a list (nor null)"),
        (lambda c: {**c, "usage": 5}, "/exchanges/0/completion/usage is not an object (nor null)"),
        (
            lambda c: {**c, "usage": {"inputTokens": 1}},
            "/exchanges/0/completion/usage/outputTokens is not an integer",
        ),
        (lambda c: {**c, "content": ["a"]}, "/exchanges/0/completion/content is not a string (nor null)"),
    ],
)
def test_a_misshapen_recording_is_a_usage_error_saying_where(capsys, shop, recorded, tmp_path, edit, message):
    """A hand-edited recording the replay would stumble on (a KeyError, a TypeError) is refused
    before anything runs: exit 2, the exchange and the JSON pointer of the field named."""
    path, server = shop
    recording, _ = recorded
    sent = len(server.requests)  # the recording run's
    written = json.loads(recording.read_text())
    first = written["exchanges"][0]
    written["exchanges"][0] = {**first, "completion": edit(first["completion"])}
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(written))
    result = agent(capsys, path, server, "--replay", str(edited))
    assert result.code == 2, result.err
    assert f"--replay {edited}: exchange 1: {message}" in result.err
    assert len(server.requests) == sent  # nothing ran


def test_a_recording_nesting_too_deep_or_with_a_misshapen_request_is_a_usage_error(
    capsys, shop, recorded, tmp_path
):
    path, server = shop
    recording, _ = recorded
    sent = len(server.requests)  # the recording run's
    written = json.loads(recording.read_text())
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps({**written, "model": "m"})[:-1] + f', "x": {DEEP}}}')
    result = agent(capsys, path, server, "--replay", str(deep))
    assert result.code == 2, result.err
    assert f"--replay {deep}: not read: it nests deeper than 144 levels" in result.err
    written["exchanges"][1]["request"] = ["messages"]
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(written))
    result = agent(capsys, path, server, "--replay", str(odd))
    assert result.code == 2, result.err
    assert f"--replay {odd}: exchange 2: /exchanges/1/request is not an object (nor null)" in result.err
    assert len(server.requests) == sent  # nothing ran
