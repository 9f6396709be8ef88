"""The retries and the stream check against the independent OpenAI-compatible server
(`tests/servers/openai_compat.py`: hand-written HTTP/1.1, CRLF event streams, one chunk per answer),
streamed and not: a 429 asking `Retry-After: 1` is waited for and asked again; a chunk cut off
mid-JSON fails the answer with its place, and nothing runs."""

from __future__ import annotations

import pytest

from tests.e2e.agentkit import API_KEY, assert_no_secret, serve_shop, tool_args, write_shop
from tests.e2e.helpers import cli
from tests.servers.openai_compat import OpenAICompatServer
from tests.servers.scripted import ScriptedServer


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with ScriptedServer() as shop, OpenAICompatServer() as compat:
        serve_shop(shop)
        yield write_shop(tmp_path), shop, compat


def agent(capsys, setup, prompt, stream):
    path, shop, compat = setup
    flags = ["--chat", compat.url, "--model", "compat", "--stream" if stream else "--no-stream"]
    result = cli(capsys, "agent", *tool_args(path, shop), *flags, "--prompt", prompt, "--format", "json")
    assert_no_secret(result.out + result.err)
    return result


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "not-streamed"])
def test_a_rate_limited_turn_is_asked_again_after_the_wait_asked(capsys, setup, stream):
    _, shop, compat = setup
    result = agent(capsys, setup, "trigger-rate-limit: show the pet details", stream)
    assert result.code == 0, result.err
    data = result.json
    assert compat.statuses == [429, 200, 200]  # turn 1 twice, then the answer to the tool's result
    assert data["retries"] == [
        {
            "turn": 1,
            "attempt": 1,
            "cause": "the chat API answered 429: Rate limit reached "
            "(type requests, code rate_limit_exceeded)",
            "waitedSeconds": 1,
        }
    ]
    assert [c["status"] for c in data["toolCalls"]] == ["passed"] and len(shop.requests) == 1


def test_a_chunk_cut_mid_json_fails_the_answer_and_nothing_runs(capsys, setup):
    _, shop, compat = setup
    result = agent(capsys, setup, "trigger-malformed-chunk: show the pet details", True)
    assert result.code == 1
    data = result.json
    message = data["error"]["message"]
    assert message.startswith("the chat API's answer is unusable: event 1 of the stream is not JSON: '{")
    assert message.endswith("(line 3 of the stream)")  # after the `: ok` comment and its blank line
    assert data["toolCalls"] == [] and shop.requests == [] and compat.statuses == [200]
