"""The rows' own connections (`http/wire.py`, and the blocking pool beside it) where a server does what
the engine did not ask: bytes sent on a connection while it is idle (nothing asked of it) make it
unusable, so the next request goes over a new one; and an answer sent before a big request body was read
(a 413, the connection then closed) is the response the caller gets, not the error of the upload that
the close cut short (as httpcore reads it)."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.test_wire import OK, _client, _request, _run, _serve

TOO_BIG = b"HTTP/1.1 413 Content Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo big!"


@pytest.fixture(params=["asyncio", "blocking"])
def kind(request: pytest.FixtureRequest) -> str:
    """The rows' asyncio pool (`http/wire.py`) or the blocking one beside it (`http/blocking_wire.py`)."""
    return str(request.param)


def test_bytes_sent_on_an_idle_connection_keep_the_next_request_off_it(kind):
    idle = asyncio.Event()  # the first exchange is over: its connection back in the pool

    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        writer.write(OK)
        await writer.drain()
        if n == 1:  # then, the connection idle, bytes nobody asked for
            await idle.wait()
            writer.write(b"junk")
            await writer.drain()
            await _request(reader)  # were the connection used again, its request answered as well
            writer.write(OK)
            await writer.drain()
        await reader.read()

    async def main() -> tuple[list[str], int]:
        server, url, count = await _serve(script)
        client, _ = _client(kind)
        async with client:
            texts = [(await client.get(f"{url}/1")).text]
            idle.set()
            for _ in range(50):  # the junk arrives meanwhile (a poll: no time bound)
                await asyncio.sleep(0.01)
            texts.append((await client.get(f"{url}/2")).text)
        server.close()
        return texts, count[0]

    assert _run(main) == (["ok", "ok"], 2)


def test_an_answer_sent_before_the_body_was_read_is_the_response_though_the_upload_failed(kind):
    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)  # the head and the body's start, no more
        writer.write(TOO_BIG)
        await writer.drain()  # then closed, the body unread: a reset for the sender

    async def main() -> tuple[int, str]:
        server, url, _ = await _serve(script)
        client, _ = _client(kind)
        async with client:
            answer = await client.post(f"{url}/up", content=b"x" * 2**25)  # past the buffers
        server.close()
        return answer.status_code, answer.text

    assert _run(main) == (413, "too big!")
