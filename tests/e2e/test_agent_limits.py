"""The model client's time limits and retries against scripted local servers: the run's own limit
(`--agent-timeout`, tool calls in flight cancelled), an API that cannot be reached (retried with backoff),
`Retry-After` as an HTTP date, silence before an answer and inside a body that is not streamed, no retry
once text was handed out, `arazzo generate --chat` retrying too, and the flags' usage errors. Nothing
is bounded by the clock: what is asserted is what was received, recorded and said."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from email.utils import formatdate

import pytest

import arazzo_runner
from arazzo_runner import RunOptions
from arazzo_runner.agents.apis.base import Conversation, ModelError
from arazzo_runner.agents.apis.chat_completions import ChatCompletionsWire
from arazzo_runner.agents.apis.client import ModelClient
from arazzo_runner.agents.apis.retry import backoff, retry_after
from arazzo_runner.http.transport import new_client
from arazzo_runner.masking.secrets import Masker
from tests.e2e.agentkit import (
    API_KEY,
    BOTH,
    OWNER_KEY,
    TOKEN,
    assert_no_secret,
    serve_shop,
    tool_args,
    write_shop,
)
from tests.e2e.helpers import cli
from tests.e2e.processkit import free_port
from tests.e2e.test_agent_loop import completion
from tests.servers.scripted import ScriptedServer


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    release = threading.Event()
    with ScriptedServer() as shop, ScriptedServer() as chat:

        @shop.route("GET", "/pets/99")
        def slow(request):  # before the shop's routes: pet 99's lookup hangs until the test ends
            release.wait(60)
            return 200, {"id": 99, "name": "Slow"}

        serve_shop(shop)
        yield write_shop(tmp_path), shop, chat
        release.set()


def agent(capsys, setup, *argv, url=None):
    path, shop, chat = setup
    flags = ["--chat", url or f"{chat.url}/v1", "--model", "scripted", "--no-stream"]
    result = cli(capsys, "agent", *tool_args(path, shop), *flags, "--prompt", BOTH, *argv, "--format", "json")
    assert_no_secret(result.out + result.err)
    return result


def test_the_runs_time_limit_cancels_the_tool_calls_in_flight(capsys, setup):
    _, shop, chat = setup
    chat.reply("POST", "/v1/chat/completions", completion(None, ("pet_details", '{"petId": 99}')))
    # the limit leaves a loaded machine time to load the tool's sources and send its request (which then
    # hangs for a minute): the run ends at the limit, not at the request
    result = agent(capsys, setup, "--agent-timeout", "5")
    assert result.code == 1
    data = result.json
    assert data["status"] == "failed"
    assert data["error"] == {
        "kind": "timeout",
        "message": "the agent run passed its time limit of 5 s in turn 1; 1 tool call(s) in flight cancelled",
    }
    assert data["turns"] == 1 and data["toolCalls"] == [] and len(chat.requests) == 1
    assert [r.path for r in shop.requests] == ["/pets/99"]


def test_an_api_that_cannot_be_reached_is_retried_with_backoff(capsys, setup):
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = agent(capsys, setup, url=url)
    assert result.code == 1
    data = result.json
    reason = f"the chat API could not be reached: connection refused (POST {url}/chat/completions)"
    assert data["error"] == {"kind": "chat", "message": reason}
    assert [(r["turn"], r["attempt"], r["cause"]) for r in data["retries"]] == [
        (1, 1, reason),
        (1, 2, reason),
    ]
    first, second = (r["waitedSeconds"] for r in data["retries"])
    assert 0.375 <= first <= 0.5 and 0.75 <= second <= 1.0  # 0.5 s doubling, less up to a quarter


def test_a_retry_after_date_is_honoured(capsys, setup):
    """An HTTP date already past asks no wait: the retry follows at once (waitedSeconds 0)."""
    _, _, chat = setup
    busy = {"error": {"message": "overloaded", "type": "server_error"}}
    past = formatdate(time.time() - 30, usegmt=True)
    twice = ((503, busy, {"Retry-After": past}), completion("Rex.")) * 2  # a run in JSON, then in text
    chat.reply("POST", "/v1/chat/completions", *twice)
    result = agent(capsys, setup)
    assert result.code == 0, result.err
    assert result.json["retries"] == [
        {
            "turn": 1,
            "attempt": 1,
            "cause": "the chat API answered 503: overloaded (type server_error)",
            "waitedSeconds": 0,
        }
    ]
    assert len(chat.requests) == 2
    text = cli(capsys, "agent", *tool_args(setup[0], setup[1]), "--chat", f"{chat.url}/v1", "--model", "m",
               "--no-stream", "--prompt", BOTH)  # fmt: skip
    assert text.code == 0 and "turn 1 text: Rex.\nturn 1: the model answered" in text.out
    assert (
        "note: turn 1: the chat API was asked again after attempt 1 failed (the chat API answered 503: "
        in text.err
    )


def test_retry_after_forms():
    assert retry_after({"retry-after": "7"}) == 7 and retry_after({"retry-after": " 1.5 "}) == 1.5
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    now = 1_800_000_000.0
    assert retry_after({"retry-after": formatdate(now + 3, usegmt=True)}, now=now) == 3
    for unreadable in ("soon", "-1", "nan", "inf", ""):
        assert retry_after({"retry-after": unreadable}) is None
    assert retry_after({}) is None
    assert [backoff(n, jitter=0) for n in (1, 2, 3, 4, 5, 6)] == [0.5, 1, 2, 4, 8, 8]
    assert backoff(1, jitter=1) == 0.375


def test_silence_before_the_answer_and_inside_a_body_is_named(capsys, setup):
    _, _, chat = setup

    @chat.route("POST", "/v1/chat/completions")
    def slow(request):
        if len(chat.requests) == 1:
            time.sleep(20)  # nothing at all
            return completion("late")

        def halfway(write):
            write(b'{"id": "c", "choices": ')
            time.sleep(20)

        return 200, halfway, {"Content-Type": "application/json"}

    result = agent(capsys, setup, "--chat-idle-timeout", "2", "--chat-retries", "1")
    assert result.code == 1
    url = f"{chat.url}/v1/chat/completions"
    assert result.json["retries"][0]["cause"] == (
        f"the chat API sent no answer for 2 s after the request (POST {url})"
    )
    assert (
        result.json["error"]["message"] == "the chat API stopped sending for 2 s after 23 bytes of its answer"
    )


def test_no_retry_once_text_was_handed_out(setup):
    """A stall after the first words were shown: asking again would show them twice (and the new answer
    need not begin the same way), so the stall is the failure."""
    _, _, chat = setup
    piece = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Rex "}}]}

    def words(write):
        write(f"data: {json.dumps(piece)}\n\n".encode())
        time.sleep(20)

    chat.reply("POST", "/v1/chat/completions", (200, words, {"Content-Type": "text/event-stream"}))
    shown = []

    async def ask():
        client = new_client(2)
        try:
            masker = Masker({API_KEY})
            model = ModelClient(
                ChatCompletionsWire(), f"{chat.url}/v1", API_KEY, "m", client=client, masker=masker,
                timeout=2, max_body=2**20, retries=2,
            )  # fmt: skip
            conversation = Conversation()
            conversation.user("hi")
            with pytest.raises(ModelError) as caught:
                await model.complete(conversation, [], on_text=shown.append)
            return str(caught.value), model.retried
        finally:
            await client.aclose()

    message, retried = asyncio.run(ask())
    assert shown == ["Rex "] and retried == [] and len(chat.requests) == 1
    assert message == "the chat API stopped sending for 2 s after 1 event"


def test_the_library_takes_the_same_settings(setup):
    path, shop, chat = setup
    chat.reply(
        "POST", "/v1/chat/completions", (429, {"error": {"message": "slow down"}}, {"Retry-After": "0"})
    )
    options = RunOptions(servers={"shop": shop.url}, auth={"ownerKey": OWNER_KEY})
    settings = {"chat_url": f"{chat.url}/v1", "model": "m", "api_key": API_KEY, "stream": False}
    result = arazzo_runner.agent(
        path, BOTH, inputs={"token": TOKEN}, options=options, chat_retries=3, **settings
    )
    assert not result.ok and len(chat.requests) == 4
    assert [r["waitedSeconds"] for r in result.retries] == [0, 0, 0]
    assert result.to_dict()["retries"][2]["cause"] == "the chat API answered 429: slow down"


def test_generate_chat_retries_too(capsys, tmp_path, setup):
    from tests.servers.library import DESCRIPTION

    _, _, chat = setup
    busy = (502, {"error": {"message": "bad gateway"}}, {"Retry-After": "0"})
    chat.reply(
        "POST",
        "/v1/chat/completions",
        busy,
        (200, {"choices": [{"index": 0, "message": {"content": "none"}}]}),
    )
    document = tmp_path / "lib.arazzo.yaml"
    argv = ["--chat", f"{chat.url}/v1", "--model", "m", "-o", document]
    result = cli(capsys, "generate", DESCRIPTION, *argv)
    assert result.code == 0, result.err
    assert len(chat.requests) == 2
    assert (
        "the chat API was asked again after attempt 1 failed (the chat API answered 502: bad gateway; "
        "waited 0 s)" in result.err
    )
    assert cli(capsys, "generate", DESCRIPTION, *argv, "--chat-retries", "0").code == 0
    assert len(chat.requests) == 3


def test_the_old_and_the_new_name_of_the_idle_limit_together_are_a_usage_error(capsys, setup):
    result = agent(capsys, setup, "--chat-timeout", "5", "--chat-idle-timeout", "5")
    assert result.code == 2
    assert "--chat-timeout is the deprecated name of --chat-idle-timeout: give one of them" in result.err
    assert setup[2].requests == []
    assert agent(capsys, setup, "--chat-retries", "-1").code == 2


def test_a_body_that_is_not_json_is_not_an_answer_and_not_asked_again(capsys, setup):
    """The non-streamed side of the malformed chunk: a JSON answer cut short is unusable, said with its
    start; the server spoke, so asking again is not the cure."""
    _, _, chat = setup
    chat.reply(
        "POST",
        "/v1/chat/completions",
        (200, b'{"id": "c", "choices": [{"index', {"Content-Type": "application/json"}),
    )
    result = agent(capsys, setup)
    assert result.code == 1
    assert result.json["error"] == {
        "kind": "chat",
        "message": """the chat API's answer is unusable: it is not JSON: {"id": "c", "choices": [{"index""",
    }
    assert result.json["retries"] == [] and len(chat.requests) == 1
