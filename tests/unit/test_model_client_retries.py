"""The model client (`agents/apis/client.py`) over a real local server: which answers it asks again for
(408 and 409 as 429 and 5xx), how long a server may ask it to wait (up to 60 s, that included), and how
a chat stream's named events and its end are read (`chat_completions.ChatFolder`)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from arazzo_runner.agents.apis import wire
from arazzo_runner.agents.apis.base import Conversation, ModelError
from arazzo_runner.agents.apis.client import ModelClient
from arazzo_runner.agents.apis.retry import backoff, retry_after, retryable_status
from arazzo_runner.masking.secrets import Masker
from tests.servers.scripted import ScriptedServer

CHAT = "/v1/chat/completions"
ANSWER = {
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Rex."}, "finish_reason": "stop"}]
}


def chunk(text: str) -> str:
    body = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": text}}]}
    return "data: " + json.dumps(body) + "\n\n"


def complete(
    server: ScriptedServer, *, stream: bool = False, retries: int = 2, on_text=None
) -> tuple[str | None, list]:
    """The answer's text and the client's retries, for one exchange with `server`."""

    async def go() -> tuple[str | None, list]:
        async with httpx.AsyncClient() as http:
            client = ModelClient(wire("chat"), f"{server.url}/v1", "key-123456", "m", client=http,
                                 masker=Masker(), stream=stream, timeout=10, max_body=10**6,
                                 retries=retries)  # fmt: skip
            talk = Conversation("Be terse.")
            talk.user("Whose is pet 1?")
            completion = await client.complete(talk, [], on_text=on_text)
            return completion.content, client.retried

    return asyncio.run(go())


@pytest.mark.parametrize("status", [408, 409, 500, 599])
def test_a_timeout_or_conflict_answer_is_asked_again(status: int) -> None:
    with ScriptedServer() as server:
        busy = (status, {"error": {"message": "busy"}}, {"Retry-After": "0"})
        server.reply("POST", CHAT, busy, (200, ANSWER))
        content, retried = complete(server)
    assert content == "Rex."
    assert [(r["attempt"], r["waitedSeconds"]) for r in retried] == [(1, 0)]
    assert retried[0]["cause"].startswith(f"the chat API answered {status}: busy")
    assert len(server.requests) == 2


def test_a_retry_after_of_sixty_seconds_is_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """60 s is the longest wait accepted (docs/agents.md), so 60 itself is waited for (the wait is
    recorded here instead of slept: the exchange is what is tested)."""
    waits: list[float] = []
    sleep = asyncio.sleep

    async def recorded(seconds: float, *args: object) -> None:
        waits.append(seconds)
        await sleep(0)

    monkeypatch.setattr(asyncio, "sleep", recorded)
    with ScriptedServer() as server:
        slow = (429, {"error": {"message": "slow down"}}, {"Retry-After": "60"})
        server.reply("POST", CHAT, slow, (200, ANSWER))
        content, retried = complete(server)
    assert content == "Rex." and 60 in waits
    assert [r["waitedSeconds"] for r in retried] == [60]
    with ScriptedServer() as server:
        server.reply("POST", CHAT, (429, {"error": {"message": "quota"}}, {"Retry-After": "61"}))
        with pytest.raises(ModelError, match=r"asks to retry after 61 s; not retried"):
            complete(server)
        assert len(server.requests) == 1


def stream_of(*events: str) -> tuple:
    def write(send) -> None:
        send("".join(events).encode())

    return 200, write, {"Content-Type": "text/event-stream"}


def test_named_events_in_a_chat_stream_are_no_chunks() -> None:
    """`event: ping` (whatever its data: `keep-alive` is no JSON) and comments add nothing and fail
    nothing; the answer is the chunks' text."""
    pings = ("event: ping\ndata: keep-alive\n\n", ": keep-alive\n\n", "event: ping\ndata: {}\n\n",
             "event: keep-alive\ndata: still here\n\n")  # fmt: skip
    events = (chunk("Rex "), *pings, chunk("belongs to Alice."), "data: [DONE]\n\n")
    with ScriptedServer() as server:
        server.reply("POST", CHAT, stream_of(*events))
        content, retried = complete(server, stream=True)
    assert content == "Rex belongs to Alice." and retried == []


def test_a_chunk_after_done_fails_the_answer_and_is_not_merged() -> None:
    events = (chunk("Rex."), "data: [DONE]\n\n", chunk(" And Bob's."))
    with ScriptedServer() as server:
        server.reply("POST", CHAT, stream_of(*events))
        with pytest.raises(ModelError, match=r"event 3 of the stream came after 'data: \[DONE\]'"):
            complete(server, stream=True)
        assert len(server.requests) == 1  # a protocol broken: not asked again


def test_which_statuses_are_asked_again() -> None:
    assert [s for s in (400, 401, 404, 408, 409, 429, 499, 500, 503, 599, 600) if retryable_status(s)] == [
        408, 409, 429, 500, 503, 599,
    ]  # fmt: skip


def test_the_wait_a_server_asks_for() -> None:
    """`retry-after-ms` in milliseconds first, then `Retry-After` in seconds (0 included: at once) or as
    an HTTP date (one already past: no wait); unreadable or negative: none asked."""
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after": "0"}) == 0.0
    assert retry_after({"retry-after": " 2.5 "}) == 2.5
    assert retry_after({"retry-after": "-1"}) is None and retry_after({"retry-after": "soon"}) is None
    now = 1_000_000_000.0  # 2001-09-09T01:46:40Z
    assert retry_after({"retry-after": "Sun, 09 Sep 2001 01:47:10 GMT"}, now=now) == 30.0
    assert retry_after({"retry-after": "Sun, 09 Sep 2001 01:46:00 GMT"}, now=now) == 0.0
    assert retry_after({}) is None


def test_the_backoff_doubles_from_half_a_second_to_eight_less_its_jitter() -> None:
    assert [backoff(n, jitter=0) for n in (1, 2, 3, 4, 5, 6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert backoff(1, jitter=1) == 0.375 and backoff(5, jitter=0.5) == 7.0


def test_an_answer_that_broke_off_after_text_was_shown_is_not_asked_again() -> None:
    """Asking again would show the text twice (the watcher has it already): the break is the failure."""

    def broken(send) -> None:  # a chunked body that ends without its last chunk: the server went away
        event = chunk("Rex ").encode()
        send(b"%x\r\n%s\r\n" % (len(event), event))

    shown: list[str] = []
    with ScriptedServer() as server:
        headers = {"Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"}
        server.reply("POST", CHAT, (200, broken, headers), (200, ANSWER))
        with pytest.raises(ModelError, match="broke off after"):
            complete(server, stream=True, on_text=shown.append)
        assert len(server.requests) == 1
    assert shown == ["Rex "]
