"""`arazzo agent` reads every model answer by the rule for JSON from outside (`bounds/json_text.py`), on
each of the three APIs, streamed and not: the bundled reference server answers, behind a proxy (real
sockets) that rewrites its answers. An answer, a stream event or a tool call's arguments nesting
deeper than 128 levels is not read and says so (no RecursionError); a lone surrogate escape
(`"\\ud800"`) in the text or the arguments reads as U+FFFD, and the run goes on (no
UnicodeEncodeError, the result kept)."""

from __future__ import annotations

import contextlib
import json

import httpx
import pytest

from arazzo_runner.reference import ReferenceServer
from tests.e2e.agentkit import API_KEY, assert_no_secret, serve_shop, tool_args, write_shop
from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

APIS = ["chat", "responses", "anthropic"]
PATH = {"chat": "chat/completions", "responses": "responses", "anthropic": "messages"}
KEY_ENV = {"chat": "OPENAI_API_KEY", "responses": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
FLAVOR = {"chat": "seed", "responses": "responses", "anthropic": "anthropic"}
LABEL = {"chat": "the chat API", "responses": "the Responses API", "anthropic": "the Messages API"}
DEEP = b"[" * 100_000 + b"]" * 100_000
PROMPT = "Show the owner lookup for Alice"


@contextlib.contextmanager
def _model(api, rewrite):
    """(the base URL of a proxy to the reference server in `api`'s flavour that answers each request
    with `rewrite(turn, the answer's bytes)`, the requests the model got, as JSON)."""
    sent = []
    with (
        ReferenceServer(flavor=FLAVOR[api]) as reference,
        ScriptedServer() as proxy,
        httpx.Client(timeout=60) as client,
    ):

        @proxy.route("POST", f"/v1/{PATH[api]}")
        def forward(recorded):
            sent.append(json.loads(recorded.body.decode("utf-8")))  # UTF-8, or the test fails here
            headers = {k: v for k, v in recorded.headers.items() if k not in ("host", "content-length")}
            answer = client.post(f"{reference.url}/{PATH[api]}", content=recorded.body, headers=headers)
            content = rewrite(len(sent), answer.content)
            return answer.status_code, content, {"Content-Type": answer.headers["content-type"]}

        yield proxy.url + "/v1", sent


def _agent(capsys, tmp_path, monkeypatch, api, stream, rewrite):
    monkeypatch.setenv(KEY_ENV[api], API_KEY)
    path = write_shop(tmp_path)
    with ScriptedServer() as shop, _model(api, rewrite) as (url, sent):
        serve_shop(shop)
        argv = [*tool_args(path, shop), "--prompt", PROMPT, "--api", api, stream]
        result = cli(capsys, "agent", *argv, "--chat", url, "--model", "agentaus", "--format", "json")
        assert_no_secret(result.out + result.err)
        return result, result.json, shop.requests, sent


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("api", APIS)
def test_an_answer_nesting_too_deep_is_not_read_and_says_so(capsys, tmp_path, monkeypatch, api, stream):
    """100,000 levels in the answer's first object (the body, or the stream's first event)."""

    def deeper(turn, content):
        return content.replace(b"{", b'{"x": ' + DEEP + b", ", 1)

    result, data, _, _ = _agent(capsys, tmp_path, monkeypatch, api, stream, deeper)
    assert result.code == 1, result.err
    assert data["status"] == "failed" and data["error"]["kind"] == "chat"
    where = "it" if stream == "--no-stream" else "event 1 of the stream"
    wanted = f"{LABEL[api]}'s answer is unusable: {where} nests deeper than 128 levels: it was not read"
    assert wanted in data["error"]["message"], data["error"]["message"]


@pytest.mark.parametrize("api", APIS)
def test_tool_call_arguments_nesting_too_deep_fail_that_call_and_the_run_goes_on(
    capsys, tmp_path, monkeypatch, api
):
    """The arguments (anthropic: the joined `partial_json` of the stream) 100,000 levels deep: the call
    fails saying so, the model is told, and it answers."""

    def deeper(turn, content):
        return content.replace(b'Alice\\"}', b'Alice\\", \\"x\\": ' + DEEP + b"}") if turn == 1 else content

    result, data, shop, sent = _agent(capsys, tmp_path, monkeypatch, api, "--stream", deeper)
    assert result.code == 0, result.err
    [call] = data["toolCalls"]
    assert call["status"] == "rejected", call
    assert "the arguments were not read: they nest deeper than 128 levels" in call["error"]["message"]
    assert shop == [] and len(sent) == 2  # nothing ran; the failure went back to the model


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
@pytest.mark.parametrize("api", APIS)
def test_a_lone_surrogate_in_text_and_arguments_reads_as_u_fffd(capsys, tmp_path, monkeypatch, api, stream):
    """`Alice` answered as `Ali\\ud800ce` (an escape of half a surrogate pair) in the tool call's
    arguments and in the final text: both read as `Ali\ufffdce`, the call runs with it, the result is
    kept and the conversation goes back to the model as UTF-8."""

    def lone(turn, content):
        return content.replace(b"Alice", b"Ali\\ud800ce")

    result, data, shop, sent = _agent(capsys, tmp_path, monkeypatch, api, stream, lone)
    assert result.code == 0, result.err
    [call] = data["toolCalls"]
    assert call["status"] == "passed", call
    assert [r.query for r in shop] == [{"name": ["Show the owner lookup for Ali\ufffdce"]}]
    assert "Ali\ufffdce" in json.dumps(sent[1], ensure_ascii=False)  # the arguments, sent back
    assert "Ali\ufffdce" in data["answer"]
