"""`arazzo agent --api responses|anthropic` against a model server that misbehaves (a scripted server
over real sockets): a data line that is not JSON, a stream that ends before its API says the answer is
complete, an error event, an event after the end, a failed or cut answer, an overloaded API. Each ends
the run with exit 1 and its cause; nothing partial passes for an answer."""

from __future__ import annotations

import json

import pytest

from tests.e2e.agentkit import API_KEY, assert_no_secret, tool_args, write_shop
from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

APIS = ["responses", "anthropic"]
PATH = {"responses": "/v1/responses", "anthropic": "/v1/messages"}
KEY_ENV = {"responses": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
WORDS = ["The ", "pet ", "is ", "available."]
MALFORMED = '{"type": "text_delta_cut_here'


def responses_events(words=WORDS, end="completed", reason=None):
    text = "".join(words)
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed"}
    part = {"type": "output_text", "text": text, "annotations": []}
    final = {"id": "resp_1", "object": "response", "status": end, "output": [{**item, "content": [part]}]}
    final["incomplete_details"] = {"reason": reason} if reason else None
    final["usage"] = {"input_tokens": 5, "output_tokens": len(words), "total_tokens": 5 + len(words)}
    events = [("response.created", {"response": {**final, "status": "in_progress", "output": []}})]
    events.append(("response.output_item.added", {"output_index": 0, "item": {**item, "content": []}}))
    events += [
        ("response.output_text.delta", {"output_index": 0, "content_index": 0, "delta": w}) for w in words
    ]
    events.append(("response.output_item.done", {"output_index": 0, "item": {**item, "content": [part]}}))
    events.append((f"response.{end}", {"response": final}))
    return events


def anthropic_events(words=WORDS, reason="end_turn"):
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []}
    events = [("message_start", {"message": {**message, "usage": {"input_tokens": 5, "output_tokens": 1}}})]
    events.append(("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}))
    events.append(("ping", {}))
    events += [
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": w}}) for w in words
    ]
    events.append(("content_block_stop", {"index": 0}))
    events.append(
        ("message_delta", {"delta": {"stop_reason": reason}, "usage": {"output_tokens": len(words)}})
    )
    events.append(("message_stop", {}))
    return events


EVENTS = {"responses": responses_events, "anthropic": anthropic_events}


def sse(events):
    """The stream: each (name, data) as `event:` and `data:` lines; data given as text is sent as is."""
    lines = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps({"type": name, **data})
        lines.append(f"event: {name}\ndata: {payload}\n\n")
    return "".join(lines).encode()


@pytest.fixture
def model(tmp_path, monkeypatch):
    """(a function running the agent against the scripted model with its replies, the server)."""
    path = write_shop(tmp_path)
    with ScriptedServer() as server:

        def run(capsys, api, *replies, stream="--stream"):
            monkeypatch.setenv(KEY_ENV[api], API_KEY)
            server.reply("POST", PATH[api], *replies)
            argv = [*tool_args(path, server), "--prompt", "Is the pet available?", "--api", api, stream]
            argv += ["--chat", server.url + "/v1", "--model", "m", "--format", "json"]
            result = cli(capsys, "agent", *argv)
            assert_no_secret(result.out + result.err)
            return result, result.json

        yield run, server


def streamed(events):
    return 200, sse(events), {"Content-Type": "text/event-stream"}


@pytest.mark.parametrize("api", APIS)
def test_a_well_formed_stream_is_an_answer(capsys, model, api):
    run, _ = model
    result, data = run(capsys, api, streamed(EVENTS[api]()))
    assert result.code == 0 and data["answer"] == "The pet is available."
    assert data["usage"] == {"inputTokens": 5, "outputTokens": 4, "totalTokens": 9}


@pytest.mark.parametrize("api", APIS)
def test_a_data_line_that_is_not_json_fails_the_answer(capsys, model, api):
    run, _ = model
    events = EVENTS[api]()
    position = next(i for i, (name, _) in enumerate(events) if name.endswith("delta")) + 1
    events[position] = (events[position][0], MALFORMED)
    result, data = run(capsys, api, streamed(events))
    assert result.code == 1 and data["status"] == "failed" and data["answer"] is None
    assert data["error"]["kind"] == "chat"
    assert f"event {position + 1} of the stream is not JSON: '{MALFORMED}'" in data["error"]["message"]


@pytest.mark.parametrize("api", APIS)
def test_a_stream_that_ends_before_its_last_event_is_not_an_answer(capsys, model, api):
    run, _ = model
    result, data = run(capsys, api, streamed(EVENTS[api]()[:-1]))
    assert result.code == 1 and data["answer"] is None and data["partialAnswer"] is None
    last = "response.completed" if api == "responses" else "message_stop"
    assert f"the stream ended before {last}" in data["error"]["message"]


@pytest.mark.parametrize("api", APIS)
def test_an_event_after_the_end_breaks_the_stream(capsys, model, api):
    run, _ = model
    events = EVENTS[api]()
    result, data = run(capsys, api, streamed([*events, events[-1]]))
    assert result.code == 1 and "came after" in data["error"]["message"]
    # the answer was complete before the stream broke: the turn was made, its text kept (not the answer)
    assert data["turns"] == 1 and data["answer"] is None
    assert data["partialAnswer"] == "The pet is available."
    assert data["usage"] == {"inputTokens": 5, "outputTokens": 4, "totalTokens": 9}


DONE = b"data: [DONE]\n\n"  # the chat stream's end, which LiteLLM's /v1/responses and /v1/messages add


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("api", APIS)
def test_a_trailing_done_after_the_last_event_ends_the_stream_as_the_official_clients_read_it(
    capsys, model, api, stream
):
    run, _ = model
    reply = (200, sse(EVENTS[api]()) + DONE, {"Content-Type": "text/event-stream"})
    result, data = run(capsys, api, reply, stream=stream)  # a streamed answer to either request
    assert result.code == 0, data["error"]
    assert data["status"] == "answered" and data["answer"] == "The pet is available."
    assert data["turns"] == 1 and data["error"] is None


@pytest.mark.parametrize("api", APIS)
def test_a_done_before_the_last_event_is_still_a_stream_cut_short(capsys, model, api):
    run, _ = model
    reply = (200, sse(EVENTS[api]()[:-1]) + DONE, {"Content-Type": "text/event-stream"})
    result, data = run(capsys, api, reply)
    assert result.code == 1 and data["answer"] is None and data["turns"] == 0
    last = "response.completed" if api == "responses" else "message_stop"
    assert f"the stream ended before {last}" in data["error"]["message"]


@pytest.mark.parametrize("api", APIS)
def test_a_failed_run_whose_answer_was_complete_counts_its_turn_in_text(capsys, tmp_path, api, monkeypatch):
    events = EVENTS[api]()
    monkeypatch.setenv(KEY_ENV[api], API_KEY)
    with ScriptedServer() as server:
        server.reply("POST", PATH[api], streamed([*events, events[-1]]))
        argv = ["--api", api, "--chat", server.url + "/v1", "--model", "m", "--prompt", "Is it available?"]
        result = cli(capsys, "agent", *tool_args(write_shop(tmp_path), server), *argv)
    assert result.code == 1
    assert "turn 1 text: The pet is available.\nturn 1: that text is not an answer" in result.out
    assert result.out.splitlines()[-1] == "1 turn(s), 0 tool call(s), usage 5 input + 4 output = 9 tokens"


@pytest.mark.parametrize("api", APIS)
def test_an_error_event_fails_the_answer_with_its_message(capsys, model, api):
    run, _ = model
    events = EVENTS[api]()[:3]
    if api == "responses":
        events.append(("error", {"code": "server_error", "message": "The model crashed", "param": None}))
    else:
        events.append(("error", {"error": {"type": "overloaded_error", "message": "Overloaded"}}))
    result, data = run(capsys, api, streamed(events))
    assert result.code == 1 and data["error"]["kind"] == "chat"
    expected = (
        "The model crashed (code server_error)" if api == "responses" else "Overloaded (overloaded_error)"
    )
    assert f"the stream reported an error: {expected}" in data["error"]["message"]


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("api", APIS)
def test_a_filtered_answer_is_not_an_answer(capsys, model, api, stream):
    run, _ = model
    if api == "responses":
        events = responses_events(end="incomplete", reason="content_filter")
    else:
        events = anthropic_events(reason="refusal")
    if stream == "--stream":
        reply = streamed(events)
    elif api == "responses":
        reply = (200, events[-1][1]["response"])
    else:
        text = {"type": "text", "text": "".join(WORDS)}
        message = {"type": "message", "role": "assistant", "content": [text], "stop_reason": "refusal"}
        reply = (200, {**message, "usage": {"input_tokens": 5, "output_tokens": 4}})
    result, data = run(capsys, api, reply, stream=stream)
    assert result.code == 1 and data["error"]["kind"] == "incomplete"
    assert data["finishReason"] == ("content_filter" if api == "responses" else "refusal")
    assert data["partialAnswer"] == "The pet is available." and data["answer"] is None
    assert "a content filter cut it" in data["error"]["message"]


def test_a_failed_response_fails_with_its_error(capsys, model):
    run, _ = model
    failed = {"object": "response", "status": "failed", "output": []}
    failed["error"] = {"code": "server_error", "message": "Something broke"}
    result, data = run(capsys, "responses", (200, failed), stream="--no-stream")
    assert result.code == 1 and "Something broke (code server_error)" in data["error"]["message"]


def test_an_overloaded_messages_api_is_reported_in_its_words(capsys, model):
    run, server = model
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    result, data = run(capsys, "anthropic", (529, body), stream="--no-stream")
    assert result.code == 1
    assert "the Messages API answered 529: Overloaded (overloaded_error)" in data["error"]["message"]
    recorded = server.requests[-1]
    assert recorded.headers["x-api-key"] == API_KEY and recorded.json()["stream"] is False
