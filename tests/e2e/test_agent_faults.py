"""`arazzo agent` against llmock (a third-party fault-injecting mock of the OpenAI API, run as a real
process): a malformed chunk fails the answer (also in a tool-call stream, where no tool runs), rate
limits and server errors are retried as the server asks (`Retry-After`), a stall is named a stall, a
truncated stream is not an answer; streamed and not. What the server received is read from its journal
(every attempt), never inferred from the time taken."""

from __future__ import annotations

import pytest

from tests.e2e.agentkit import API_KEY, BOTH, assert_no_secret, serve_shop, tool_args, write_shop
from tests.e2e.helpers import cli
from tests.e2e.llmockkit import LLMock
from tests.servers.scripted import ScriptedServer

ANSWER = {"type": "reply", "text": "Rex belongs to Alice."}
PET_CALL = {"type": "reply", "tool_calls": [{"name": "pet_details", "arguments": {"petId": 7}}]}


@pytest.fixture(scope="module")
def mock():
    with LLMock() as server:
        yield server


@pytest.fixture
def setup(tmp_path, monkeypatch, mock):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    mock.reset()
    with ScriptedServer() as shop:
        serve_shop(shop)
        yield write_shop(tmp_path), shop, mock


def agent(capsys, setup, *argv, stream=True):
    path, shop, mock = setup
    flags = ["--chat", f"{mock.url}/v1", "--model", "gpt-4o", "--stream" if stream else "--no-stream"]
    result = cli(capsys, "agent", *tool_args(path, shop), *flags, "--prompt", BOTH, *argv, "--format", "json")
    assert_no_secret(result.out + result.err)
    return result


def test_a_malformed_chunk_fails_the_answer_with_its_place(capsys, setup):
    """llmock cuts the JSON of the third event in half; skipping it would drop a word and exit 0."""
    _, _, mock = setup
    mock.script(ANSWER, {"type": "stream_fault", "kind": "malformed", "after_chunks": 2})
    result = agent(capsys, setup)
    assert result.code == 1
    data = result.json
    assert data["status"] == "failed" and data["answer"] is None and data["retries"] == []
    message = data["error"]["message"]
    assert data["error"]["kind"] == "chat"
    assert message.startswith("the chat API's answer is unusable: event 3 of the stream is not JSON: '{")
    assert message.endswith("(line 5 of the stream)")
    assert len(mock.requests()) == 1  # a protocol violation is not asked again


def test_a_malformed_chunk_in_a_tool_call_stream_is_the_streams_fault_not_the_models(capsys, setup):
    """The arguments chunk is the broken one: nothing runs, and no tool call is reported rejected for
    arguments the model did not write."""
    _, shop, mock = setup
    mock.script(PET_CALL, {"type": "stream_fault", "kind": "malformed", "after_chunks": 2})
    result = agent(capsys, setup)
    assert result.code == 1
    data = result.json
    assert data["toolCalls"] == [] and shop.requests == []
    assert data["error"]["message"].startswith(
        "the chat API's answer is unusable: event 3 of the stream is not JSON: "
    )


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "not-streamed"])
@pytest.mark.parametrize("status", [429, 503])
def test_a_rate_limit_or_server_error_is_retried_after_the_wait_asked(capsys, setup, stream, status):
    _, _, mock = setup
    mock.script({"type": "fail", "status": status, "retry_after": 1}, ANSWER)
    result = agent(capsys, setup, stream=stream)
    assert result.code == 0, result.err
    data = result.json
    assert data["answer"] == "Rex belongs to Alice."
    served = mock.requests()
    assert [r["status"] for r in served] == [status, 200]
    [retry] = data["retries"]
    assert retry["waitedSeconds"] == served[0]["retry_after"] == 1
    assert (retry["turn"], retry["attempt"]) == (1, 1)
    assert retry["cause"].startswith(f"the chat API answered {status}: ")


def test_retries_stop_at_chat_retries_and_the_last_failure_is_the_error(capsys, setup):
    _, _, mock = setup
    mock.script({"type": "fail", "status": 500, "retry_after": 1, "times": 3}, ANSWER)
    result = agent(capsys, setup, "--chat-retries", "1", stream=False)
    assert result.code == 1
    data = result.json
    assert [r["status"] for r in mock.requests()] == [500, 500]
    assert [(r["turn"], r["attempt"], r["waitedSeconds"]) for r in data["retries"]] == [(1, 1, 1)]
    assert data["error"]["kind"] == "chat" and data["error"]["message"].startswith(
        "the chat API answered 500"
    )
    assert data["turns"] == 0


def test_chat_retries_0_asks_once(capsys, setup):
    _, _, mock = setup
    mock.script({"type": "fail", "status": 429, "retry_after": 1}, ANSWER)
    result = agent(capsys, setup, "--chat-retries", "0")
    assert result.code == 1 and result.json["retries"] == []
    assert len(mock.requests()) == 1


def test_a_retry_after_beyond_the_cap_is_not_waited_for(capsys, setup):
    """A server asking two minutes (a quota) is not retried after a minute regardless: its answer is
    the failure, saying what it asked."""
    _, _, mock = setup
    mock.script({"type": "fail", "status": 429, "retry_after": 120}, ANSWER)
    result = agent(capsys, setup)
    assert result.code == 1 and result.json["retries"] == []
    assert result.json["error"]["message"].endswith(
        "(it asks to retry after 120 s; not retried: the longest wait this client accepts is 60 s)"
    )
    assert len(mock.requests()) == 1


def test_a_stall_is_reported_as_a_stall_and_retried(capsys, setup):
    """The idle limit far below the stall (llmock stops for 60 s after two events): the exchange is a
    stall, named so, and asked again (no text was handed out); the second answer is the answer."""
    _, _, mock = setup
    stall = {"type": "stream_fault", "kind": "stall", "after_chunks": 2, "stall_seconds": 60}
    mock.script(stall, {**ANSWER, "times": 2})  # the stalled attempt takes a reply too
    result = agent(capsys, setup, "--chat-idle-timeout", "2")
    assert result.code == 0, result.err
    [retry] = result.json["retries"]
    assert retry["cause"] == "the chat API stopped sending for 2 s after 2 events"
    assert result.json["answer"] == "Rex belongs to Alice."


def test_a_stall_without_retries_ends_the_run_with_the_stall(capsys, setup):
    _, _, mock = setup
    mock.script({"type": "stream_fault", "kind": "stall", "after_chunks": 1, "stall_seconds": 60}, ANSWER)
    result = agent(capsys, setup, "--chat-timeout", "2", "--chat-retries", "0")
    assert result.code == 1
    assert result.json["error"] == {
        "kind": "chat",
        "message": "the chat API stopped sending for 2 s after 1 event",
    }
    assert "warning: --chat-timeout is deprecated" in result.err


def test_a_truncated_stream_is_not_an_answer(capsys, setup):
    """llmock ends the stream cleanly after two events, without a finish reason or `[DONE]`."""
    _, _, mock = setup
    mock.script(ANSWER, {"type": "stream_fault", "kind": "truncate", "after_chunks": 2})
    result = agent(capsys, setup)
    assert result.code == 1
    assert result.json["error"]["message"] == (
        "the chat API's answer is unusable: the stream ended before 'data: [DONE]'"
    )
    assert len(mock.requests()) == 1


def test_a_disconnect_mid_stream_is_retried(capsys, setup):
    _, _, mock = setup
    mock.script({"type": "stream_fault", "kind": "disconnect", "after_chunks": 2}, {**ANSWER, "times": 2})
    result = agent(capsys, setup)
    assert result.code == 0, result.err
    [retry] = result.json["retries"]
    assert retry["cause"].startswith("the chat API's answer broke off after 2 events: ")
    assert 0.375 <= retry["waitedSeconds"] <= 0.5  # the first backoff, less its jitter
    assert len(mock.requests()) == 2
    assert result.json["answer"] == "Rex belongs to Alice."


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "not-streamed"])
def test_an_exchange_past_its_limit_fails_naming_the_limit(capsys, setup, stream):
    _, _, mock = setup
    mock.script({"type": "delay", "seconds": 60}, ANSWER)
    result = agent(capsys, setup, "--chat-exchange-timeout", "0.5", "--chat-retries", "0", stream=stream)
    assert result.code == 1
    assert result.json["error"]["message"] == (
        "the chat API's answer took longer than 0.5 s, the limit of one exchange (no answer began)"
    )
