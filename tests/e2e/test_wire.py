"""The engine's own HTTP/1.1 connections against servers written by hand over real sockets, so each can
break HTTP where a test needs it: framing, reuse, failures with httpcore's words (as httpx shows them),
time limits, TLS, bounded buffers, cancellation. Most run against both pools (`kind`): the rows' and
asyncio runs' (`http/wire.py`, asyncio and llhttp) and a blocking run's (`http/blocking_wire.py`, a
plain socket and llhttp, its httpx.Client driven from the test's event loop in a thread)."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from arazzo_runner.http.blocking_wire import BlockingPool, BlockingWire
from arazzo_runner.http.lean_pool import MAX_IDLE, LeanPool, lean_transport
from arazzo_runner.http.wire import HIGH_WATER, MAX_HEAD, Wire
from tests.servers.scripted import TEST_CA, ScriptedServer

Script = Callable[[int, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


async def _serve(script: Script) -> tuple[asyncio.AbstractServer, str, list[int]]:
    """A server running `script(n, reader, writer)` for its n-th connection; [connections accepted]."""
    count = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        count[0] += 1
        try:
            await script(count[0], reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", count


async def _request(reader: asyncio.StreamReader) -> bytes:
    """One request's head and body (by Content-Length, or chunked up to its last chunk), as sent."""
    head = await reader.readuntil(b"\r\n\r\n")
    lower = head.lower()
    if b"content-length:" in lower:
        length = int(lower.split(b"content-length:")[1].split(b"\r\n")[0])
        return head + await reader.readexactly(length)
    if b"transfer-encoding: chunked" in lower:
        return head + await reader.readuntil(b"0\r\n\r\n")
    return head


def _answering(*answers: bytes, then_close: bool = False) -> Script:
    """Each request on a connection gets the next of `answers`."""

    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for answer in answers:
            await _request(reader)
            writer.write(answer)
            await writer.drain()
        if not then_close:
            await reader.read()

    return script


@pytest.fixture(params=["asyncio", "blocking"])
def kind(request: pytest.FixtureRequest) -> str:
    """The pool a test runs against: `LeanPool` of `Wire`s, or `BlockingPool` of `BlockingWire`s."""
    return request.param


WIRES: dict[str, Any] = {"asyncio": Wire, "blocking": BlockingWire}


def _client(
    kind: str = "asyncio", *, ssl_context: Any = None, max_idle: int = MAX_IDLE, timeout: float | None = 5.0
) -> tuple[Any, LeanPool]:
    if kind == "blocking":
        pool: LeanPool = BlockingPool(ssl_context, max_idle)
        transport = httpx.HTTPTransport()
        transport._pool = pool  # type: ignore[assignment]
        return _Blocking(httpx.Client(transport=transport, timeout=timeout)), pool
    transport = lean_transport(None)
    transport._pool = pool = LeanPool(ssl_context, max_idle)
    return httpx.AsyncClient(transport=transport, timeout=timeout), pool


class _Blocking:
    """An httpx.Client over the blocking pool with the AsyncClient's calls the tests make: each runs in a
    thread (in a copy of the context: a `bounded.limited` block reaches it), so that the test's event
    loop goes on serving meanwhile."""

    def __init__(self, client: httpx.Client) -> None:
        self.sync = client
        self.build_request = client.build_request

    async def __aenter__(self) -> _Blocking:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.sync.close)

    def __getattr__(self, name: str) -> Any:  # get, post, head, request, send
        call = getattr(self.sync, name)

        async def in_thread(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(call, *args, **kwargs)

        return in_thread


async def _read(response: httpx.Response) -> bytes:
    """A streamed response's body, whichever client sent it."""
    if isinstance(response.stream, httpx.SyncByteStream):
        return await asyncio.to_thread(response.read)
    return await response.aread()


def _body(kind: str, parts: list[bytes]) -> Any:
    """A request body read once, as a stream (an iterator for the blocking client)."""

    async def streamed() -> Any:
        for part in parts:
            yield part

    return iter(parts) if kind == "blocking" else streamed()


def _recorded_connects(kind: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The connections `kind`'s pool makes, as they are made."""
    wire_class = WIRES[kind]
    connect = wire_class.connect
    wires: list[Any] = []
    if kind == "blocking":

        def recorded(*args: Any) -> Any:
            wires.append(connect(*args))
            return wires[-1]
    else:

        async def recorded(*args: Any) -> Any:  # type: ignore[misc]
            wires.append(await connect(*args))
            return wires[-1]

    monkeypatch.setattr(wire_class, "connect", recorded)
    return wires


def _run(main: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(main())


def test_keep_alive_serves_every_request_over_one_connection(kind):
    async def main() -> tuple[list[str], int, int]:
        server, url, count = await _serve(_answering(*[OK] * 5))
        client, pool = _client(kind)
        async with client:
            texts = [(await client.get(f"{url}/{n}")).text for n in range(5)]
            (wire,) = pool.connections
            assert isinstance(wire, WIRES[kind])
        server.close()
        return texts, count[0], wire.exchanges

    assert _run(main) == (["ok"] * 5, 1, 5)


def test_chunked_and_close_delimited_bodies(kind):
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n"
    until_close = b"HTTP/1.1 200 OK\r\n\r\nhello, until the end"

    async def main() -> tuple[str, str, int, int]:
        server, url, count = await _serve(_answering(chunked, until_close, then_close=True))
        client, pool = _client(kind)
        async with client:
            first = (await client.get(f"{url}/a")).text
            second = (await client.get(f"{url}/b")).text
            idle = len(pool.connections)
        server.close()
        return first, second, count[0], idle

    # the chunked answer left the connection reusable; the close-delimited one ended it
    assert _run(main) == ("abcdefg", "hello, until the end", 1, 0)


def test_head_with_a_content_length_has_no_body_and_its_connection_is_not_reused(kind):
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"

    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while request := await _request(reader):
            writer.write(head if request.startswith(b"HEAD ") else OK)

    async def main() -> tuple[int, str, bytes, str, int]:
        server, url, count = await _serve(script)
        client, _ = _client(kind)
        async with client:
            answer = await client.head(f"{url}/h")
            after = await client.get(f"{url}/g")
        server.close()
        return answer.status_code, answer.headers["content-length"], answer.content, after.text, count[0]

    assert _run(main) == (200, "10", b"", "ok", 2)


def test_204_and_304_have_no_body_whatever_they_say_and_keep_the_connection(kind):
    no_content = b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"
    not_modified = b"HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n"

    async def main() -> tuple[list[tuple[int, bytes]], int]:
        server, url, count = await _serve(_answering(no_content, not_modified, OK))
        client, _ = _client(kind)
        async with client:
            answers = [await client.get(f"{url}/{n}") for n in range(3)]
        server.close()
        return [(a.status_code, a.content) for a in answers], count[0]

    assert _run(main) == ([(204, b""), (304, b""), (200, b"ok")], 1)


def test_interim_answers_are_skipped_and_101_is_refused(kind):
    interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + OK
    switching = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n"

    async def main() -> tuple[int, str, bool, str]:
        server, url, _ = await _serve(_answering(interim, switching))
        client, _ = _client(kind)
        async with client:
            answer = await client.get(f"{url}/a")
            with pytest.raises(httpx.RemoteProtocolError) as refused:
                await client.get(f"{url}/b")
        server.close()
        return answer.status_code, answer.text, "link" in answer.headers, str(refused.value)

    assert _run(main) == (200, "ok", False, "the server switched protocols (101): not supported")


def test_bytes_past_a_response_close_its_connection(kind):
    async def main() -> tuple[list[str], int]:
        server, url, count = await _serve(
            _answering(OK + b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged", OK)
        )
        client, _ = _client(kind)
        async with client:
            texts = [(await client.get(f"{url}/{n}")).text for n in range(2)]
        server.close()
        return texts, count[0]

    assert _run(main) == (["ok", "ok"], 2)


def test_a_connection_the_server_closed_while_idle_is_not_used(kind):
    async def main() -> tuple[list[str], int]:
        server, url, count = await _serve(_answering(OK, then_close=True))
        client, pool = _client(kind)
        async with client:
            first = (await client.get(f"{url}/a")).text
            for _ in range(200):  # until the close has reached the event loop (a poll, no time bound)
                if not pool.connections or pool.connections[0].lost:
                    break
                if kind == "blocking" and pool.connections[0].readable():  # no loop: in the kernel
                    break
                await asyncio.sleep(0.01)
            second = (await client.get(f"{url}/b")).text
        server.close()
        return [first, second], count[0]

    assert _run(main) == (["ok", "ok"], 2)


def test_a_close_not_yet_seen_by_the_event_loop_keeps_a_post_off_that_connection(kind):
    """The server closes an idle connection and the close is in the kernel, but the event loop has not
    run since (a busy loop: rows in flight): the pool looks at the socket as httpcore does before
    reusing it, so a POST, which is never sent twice, goes over a new connection and succeeds. A thread
    serves, so that the test's own loop can be kept from running while it closes."""
    import select
    import socket
    import threading

    closing, closed = threading.Event(), threading.Event()
    requests: list[bytes] = []

    def read_request(conn: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data or (data.startswith(b"POST") and not data.endswith(b"{}")):
            part = conn.recv(65536)
            if not part:
                break
            data += part
        return data

    def serve(listener: socket.socket) -> None:
        with listener:
            first, _ = listener.accept()
            with first:
                requests.append(read_request(first))
                first.sendall(OK)
                closing.wait(60)  # a hang guard
            closed.set()
            second, _ = listener.accept()
            with second:
                requests.append(read_request(second))
                second.sendall(OK)

    listener = socket.create_server(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    server = threading.Thread(target=serve, args=(listener,), daemon=True)
    server.start()

    async def main() -> str:
        client, pool = _client(kind)
        async with client:
            assert (await client.get(f"{url}/a")).text == "ok"
            (wire,) = pool.connections
            closing.set()
            closed.wait(60)  # the loop does not run meanwhile: the close stays unseen by it
            select.select([wire._socket.fileno()], [], [], 60)  # it has come
            assert not wire.lost
            return (await client.post(f"{url}/b", json={})).text

    assert _run(main) == "ok"
    server.join(60)
    assert [r.split(b" ", 1)[0] for r in requests] == [b"GET", b"POST"]  # the POST sent once


def _closing_on_second_request(seen: list[bytes]) -> Script:
    """The first connection answers one request, then reads the next and closes without answering (a
    server dropping an idle connection as the request reached it); later connections answer."""

    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await _request(reader))
        writer.write(OK)
        await writer.drain()
        if n == 1:
            seen.append(await _request(reader))
            return
        await reader.read()

    return script


def test_a_get_the_server_dropped_on_a_reused_connection_is_sent_once_more(kind):
    async def main() -> tuple[str, int, int]:
        seen: list[bytes] = []
        server, url, count = await _serve(_closing_on_second_request(seen))
        client, _ = _client(kind)
        async with client:
            await client.get(f"{url}/a")
            answer = await client.get(f"{url}/b")
        server.close()
        return answer.text, count[0], sum(r.startswith(b"GET /b ") for r in seen)

    assert _run(main) == ("ok", 2, 2)


def test_a_post_the_server_dropped_is_never_sent_twice(kind):
    async def main() -> tuple[str, int, int]:
        seen: list[bytes] = []
        server, url, count = await _serve(_closing_on_second_request(seen))
        client, _ = _client(kind)
        async with client:
            await client.get(f"{url}/a")
            with pytest.raises(httpx.RemoteProtocolError) as failed:
                await client.post(f"{url}/b", content=b"pay once")
        server.close()
        return str(failed.value), count[0], sum(r.startswith(b"POST /b ") for r in seen)

    assert _run(main) == ("Server disconnected without sending a response.", 1, 1)


def test_a_get_with_a_streamed_body_the_server_dropped_is_not_sent_twice(kind):
    """A safe method, but a body that can be read once (a stream): not sent again, the failure shown."""

    async def main() -> tuple[str, int, int]:
        seen: list[bytes] = []
        server, url, count = await _serve(_closing_on_second_request(seen))
        client, _ = _client(kind)
        async with client:
            await client.get(f"{url}/a")
            with pytest.raises(httpx.RemoteProtocolError) as failed:
                await client.request("GET", f"{url}/b", content=_body(kind, [b"read once"]))
        server.close()
        return str(failed.value), count[0], sum(r.startswith(b"GET /b ") for r in seen)

    assert _run(main) == ("Server disconnected without sending a response.", 1, 1)


def test_a_get_whose_new_connection_is_closed_unanswered_is_not_sent_again(kind):
    """The retry is for a reused connection the server dropped while idle; a new connection closed without
    an answer is the server's answer, shown as it came (one request sent, one connection)."""
    seen: list[bytes] = []

    async def hang_up(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await _request(reader))

    async def main() -> tuple[str, int]:
        server, url, count = await _serve(hang_up)
        client, _ = _client(kind)
        async with client:
            with pytest.raises(httpx.RemoteProtocolError) as failed:
                await client.get(f"{url}/a")
        server.close()
        return str(failed.value), count[0]

    assert _run(main) == ("Server disconnected without sending a response.", 1)
    assert len(seen) == 1


def test_an_idle_connection_past_its_expiry_is_not_reused(monkeypatch, kind):
    """Given back with an expiry already past (the sweep not due yet): the next request opens a new
    connection, and the expired one is closed."""
    from arazzo_runner.http import lean_pool

    async def main() -> tuple[list[str], int]:
        server, url, count = await _serve(_answering(OK, OK))
        client, _ = _client(kind)
        monkeypatch.setattr(lean_pool, "KEEPALIVE_EXPIRY", -1.0)  # after the pool set its first sweep
        async with client:
            texts = [(await client.get(f"{url}/{n}")).text for n in range(2)]
        server.close()
        return texts, count[0]

    assert _run(main) == (["ok", "ok"], 2)


def test_the_sweep_closes_idle_connections_past_their_expiry(monkeypatch, kind):
    """The sweep (due at once here) closes every idle connection whose expiry has passed, the one just
    given back included: none is left idle."""
    from arazzo_runner.http import lean_pool

    async def main() -> tuple[str, int, int]:
        monkeypatch.setattr(lean_pool, "KEEPALIVE_EXPIRY", -1.0)  # before the pool: its sweep is due
        server, url, count = await _serve(_answering(OK, OK))
        client, pool = _client(kind)
        async with client:
            text = (await client.get(f"{url}/a")).text
            idle = len(pool.connections)
        server.close()
        return text, idle, count[0]

    assert _run(main) == ("ok", 0, 1)


def test_a_get_whose_answer_was_cut_short_on_a_reused_connection_is_not_sent_again(kind):
    """The retry is for a close before any byte of the answer: a part of a status line came, so the server
    read the request; the failure is shown, the request sent once."""
    seen: list[bytes] = []

    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await _request(reader))
        writer.write(OK)
        await writer.drain()
        if n == 1:
            seen.append(await _request(reader))
            writer.write(b"HTTP/1.1 200")
            await writer.drain()
            return
        await reader.read()

    async def main() -> int:
        server, url, count = await _serve(script)
        client, _ = _client(kind)
        async with client:
            await client.get(f"{url}/a")
            with pytest.raises(httpx.RemoteProtocolError):  # (its words are the parser's business)
                await client.get(f"{url}/b")
        server.close()
        return count[0]

    assert _run(main) == 1
    assert sum(r.startswith(b"GET /b ") for r in seen) == 1


def test_a_chunked_bodys_trailer_fields_are_not_added_to_the_response_headers(kind):
    """httpcore drops trailer fields; the headers are those of the head, the body whole."""
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Head: h\r\n\r\n"
        b"2\r\nok\r\n0\r\nX-Trailer: t\r\n\r\n"
    )

    async def main() -> tuple[list[tuple[str, str]], str]:
        server, url, _ = await _serve(_answering(chunked))
        client, _ = _client(kind)
        async with client:
            response = await client.get(f"{url}/a")
        server.close()
        return list(response.headers.items()), response.text

    assert _run(main) == ([("transfer-encoding", "chunked"), ("x-head", "h")], "ok")


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
            "peer closed connection without sending complete message body (received 3 bytes, expected 10)",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n",
            "peer closed connection without sending complete message body (incomplete chunked read)",
        ),
        (b"HTTP/1.1 200 OK\r\nContent-", "Server disconnected without sending a response."),
    ],
)
def test_a_body_cut_short_is_a_remote_protocol_error(answer: bytes, message: str, kind):
    async def main() -> str:
        server, url, _ = await _serve(_answering(answer, then_close=True))
        client, pool = _client(kind)
        async with client:
            with pytest.raises(httpx.RemoteProtocolError) as failed:
                await client.get(f"{url}/a")
            assert pool.connections == []
        server.close()
        return str(failed.value)

    assert _run(main) == message


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (b"SSH-2.0-OpenSSH_9.6\r\n", "illegal status line: b'SSH-2.0-OpenSSH_9.6'"),  # h11's words
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nBad Header\r\n\r\nok", "Invalid header token"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\nok", "Invalid character in Content-Length"),
    ],
)
def test_a_malformed_answer_is_a_remote_protocol_error_with_the_parsers_reason(
    answer: bytes, message: str, kind
):
    async def main() -> str:
        server, url, _ = await _serve(_answering(answer))
        client, _ = _client(kind)
        async with client:
            with pytest.raises(httpx.RemoteProtocolError) as failed:
                await client.get(f"{url}/a")
        server.close()
        return str(failed.value)

    assert _run(main) == message


def test_a_folded_field_line_and_bare_line_feeds_are_read_as_h11_reads_them(kind):
    """RFC 9112: a user agent MUST read an obs-fold in a response as spaces (5.2), and MAY take a bare LF
    for a line's end (2.2): h11 (httpcore) read both, strict llhttp refused them; a NUL in a value is
    still refused, with h11's words."""
    folded = b"HTTP/1.1 200 OK\r\nX-Folded: one\r\n two\r\nContent-Length: 2\r\n\r\nok"
    bare = b"HTTP/1.1 200 OK\nX-Bare: yes\nContent-Length: 2\n\nok"
    nul = b"HTTP/1.1 200 OK\r\nX-Nul: a\x00b\r\nContent-Length: 2\r\n\r\nok"

    async def main() -> tuple[str, str, str, str]:
        server, url, _ = await _serve(_answering(folded, bare))
        client, _ = _client(kind)
        async with client:
            first = await client.get(f"{url}/a")
            second = await client.get(f"{url}/b")
        server.close()
        server, url, _ = await _serve(_answering(nul))
        client, _ = _client(kind)
        async with client:
            with pytest.raises(httpx.RemoteProtocolError) as failed:
                await client.get(f"{url}/c")
        server.close()
        return (
            first.headers["x-folded"],
            first.text + second.text,
            second.headers["x-bare"],
            str(failed.value),
        )

    folded_value, texts, bare_value, refused = _run(main)
    assert folded_value.split() == ["one", "two"]
    assert (texts, bare_value) == ("okok", "yes")
    assert refused == "illegal header line: b'X-Nul: a\\x00b'"


def test_a_response_head_past_the_limit_is_refused_not_buffered(kind, monkeypatch):
    """The server sends headers without end: the client stops at MAX_HEAD (and one read), not at memory's
    end; the server finds the connection closed."""

    async def endless(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\n")
        sent = 0
        while sent < 64 * MAX_HEAD:  # far past the limit; the client must have left before
            writer.write(b"X-Filler: " + b"a" * 1000 + b"\r\n")
            sent += 1012
            await writer.drain()
        writer.write(b"\r\n")

    async def main() -> tuple[str, int]:
        server, url, _ = await _serve(endless)
        wires = _recorded_connects(kind, monkeypatch)
        client, _ = _client(kind)
        async with client:
            with pytest.raises(httpx.RemoteProtocolError) as failed:
                await client.get(f"{url}/a")
        server.close()
        return str(failed.value), wires[0]._head_bytes

    message, read = _run(main)
    assert message == "Receive buffer too long"
    assert MAX_HEAD < read <= MAX_HEAD + 256 * 1024  # one read past the limit at most (asyncio's size)


def test_a_large_response_head_arriving_in_parts_is_read_as_httpcore_reads_it(kind, monkeypatch):
    """httpcore lets h11 buffer 100 KiB of a response head not yet whole (a dozen big cookies, a long
    Content-Security-Policy): a 40 KiB head that arrives in two reads is read, as httpx's own transport
    (the blocking run's before) read it. The server sends its second part once the client has the first."""
    fields = b"".join(b"X-Field-%d: %s\r\n" % (n, b"v" * 1000) for n in range(40))
    head = b"HTTP/1.1 200 OK\r\n" + fields + b"Content-Length: 2\r\n\r\n"
    first = 20 * 1024

    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        writer.write(head[:first])
        await writer.drain()
        while not wires or wires[0]._received < first:  # the client has read the first part
            await asyncio.sleep(0.01)
        writer.write(head[first:] + b"ok")
        await writer.drain()
        await reader.read()

    wires = _recorded_connects(kind, monkeypatch)

    async def main() -> tuple[int, int, str]:
        server, url, _ = await _serve(script)
        client, _ = _client(kind, timeout=None)
        async with client:
            response = await client.get(f"{url}/a")
        server.close()
        return (
            response.status_code,
            sum(name.startswith("x-field-") for name in response.headers),
            response.text,
        )

    assert _run(main) == (200, 40, "ok")


@pytest.mark.parametrize(
    "opening",
    [b"2\r\nok\r\n0\r\nX-Trailer: ", b"2;x="],  # trailer fields without end, a chunk-size line without end
)
def test_a_chunked_bodys_framing_without_end_is_refused_not_buffered(opening: bytes, kind, monkeypatch):
    """Past the head, bytes that end no chunk-size line and no trailer field are not body bytes: the
    engine's --max-response-bytes never sees them, and httptools would keep the trailer field's text
    whole. They stop at MAX_HEAD (and one read), as h11's buffer limit stops them."""
    total = 64 * MAX_HEAD

    async def endless(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + opening)
        for _ in range(total // 1024):  # far past the limit; the client must have left before
            writer.write(b"a" * 1024)
            await writer.drain()
        writer.write(b"\r\n\r\n" if opening.startswith(b"2\r\n") else b"\r\nok\r\n0\r\n\r\n")
        await reader.read()

    async def main() -> tuple[str, int]:
        server, url, _ = await _serve(endless)
        wires = _recorded_connects(kind, monkeypatch)
        client, _ = _client(kind)
        async with client:
            with pytest.raises(httpx.RemoteProtocolError) as failed:
                await client.get(f"{url}/a")
        server.close()
        return str(failed.value), wires[0]._received

    message, read = _run(main)
    assert message == "Receive buffer too long"
    assert read <= 2 * MAX_HEAD + 256 * 1024  # one read past the limit at most (asyncio's size)


def test_a_server_that_does_not_answer_is_a_read_timeout(kind):
    async def main() -> type:
        server, url, _ = await _serve(_answering())
        client, pool = _client(kind, timeout=0.2)
        async with client:
            with pytest.raises(httpx.TimeoutException) as failed:
                await client.get(f"{url}/a")
            assert pool.connections == []
        server.close()
        return type(failed.value)

    assert _run(main) is httpx.ReadTimeout


def test_a_refused_connection_is_a_connect_error_with_the_os_error(kind):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed at once: nothing listens there

    async def main() -> httpx.ConnectError:
        client, _ = _client(kind)
        async with client:
            with pytest.raises(httpx.ConnectError) as failed:
                await client.get(f"http://127.0.0.1:{port}/")
        return failed.value

    error = _run(main)
    assert isinstance(error.__cause__.__cause__, ConnectionRefusedError)  # httpx <- httpcore <- OS
    assert str(error) == str(error.__cause__.__cause__)


def test_tls_verifies_the_server_with_the_pools_context(kind):
    trusted = ssl.create_default_context(cafile=str(TEST_CA))

    async def main(url: str) -> tuple[str, str]:
        client, pool = _client(kind, ssl_context=trusted)
        async with client:
            answer = await client.get(f"{url}/pets/7")
            (wire,) = pool.connections
            tls = wire._socket if kind == "blocking" else wire.transport.get_extra_info("ssl_object")
            alpn = tls.selected_alpn_protocol()
        untrusting, _ = _client(kind, ssl_context=ssl.create_default_context())  # the system's CAs only
        async with untrusting:
            with pytest.raises(httpx.ConnectError) as failed:
                await untrusting.get(f"{url}/pets/7")
        assert "CERTIFICATE_VERIFY_FAILED" in str(failed.value)
        return answer.json()["id"], str(alpn)

    with ScriptedServer(tls=True) as server:
        server.route("GET", "/pets/{id}")(lambda request: (200, {"id": request.params["id"]}))
        assert asyncio.run(main(server.url)) == ("7", "None")  # the stdlib server offers no ALPN


def test_a_streamed_request_body_is_sent_chunked(kind):
    seen: list[bytes] = []

    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await _request(reader))
        writer.write(OK)
        await writer.drain()
        await reader.read()

    async def main() -> str:
        server, url, _ = await _serve(script)
        client, _ = _client(kind)
        async with client:
            answer = await client.post(f"{url}/up", content=_body(kind, [b"abc", b"", b"0123456789abcdef!"]))
        server.close()
        return answer.text

    assert _run(main) == "ok"
    head, body = seen[0].split(b"\r\n\r\n", 1)
    assert b"Transfer-Encoding: chunked" in head
    assert body == b"3\r\nabc\r\n11\r\n0123456789abcdef!\r\n0\r\n\r\n"


def test_a_large_body_is_streamed_within_a_bounded_buffer():
    size = 16 * 1024 * 1024

    async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
        block = bytes(range(256)) * 256
        for _ in range(size // len(block)):
            writer.write(block)
            await writer.drain()
        await reader.read()

    async def main() -> tuple[int, int, bool, int]:
        server, url, _ = await _serve(script)
        client, pool = _client()
        async with client, client.stream("GET", f"{url}/big") as answer:
            parts = answer.aiter_raw()
            total = len(await parts.__anext__())
            wire = answer.stream._stream._httpcore_stream._wire  # httpx's wrapper of the pool's body
            for _ in range(50):  # let the server fill what it can (a poll: no time bound)
                await asyncio.sleep(0.01)
            buffered, paused = wire._buffered, wire._reading_paused
            async for part in parts:
                total += len(part)
            idle = len(pool.connections)
        server.close()
        return total, buffered, paused, idle

    total, buffered, paused, idle = _run(main)
    assert (total, paused, idle) == (size, True, 1)
    assert buffered <= HIGH_WATER + 256 * 1024  # the limit, and at most one read past it


def test_a_response_closed_unread_leaves_its_connection_reading_for_the_next():
    """A whole body past HIGH_WATER arrives in one read (reading paused), and the response is closed
    without reading it: the connection goes back to the pool reading again; the next request's answer
    is read on it (it waited for the read timeout, or forever without one)."""
    size = HIGH_WATER + 1000
    big = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size + b"x" * size

    async def main() -> tuple[bool, bool, str, int]:
        server, url, count = await _serve(_answering(big, OK))
        client, _ = _client(timeout=30)  # a hang guard: the second answer comes at once
        async with client:
            async with client.stream("GET", f"{url}/big") as answer:
                wire = answer.stream._stream._httpcore_stream._wire
                for _ in range(1000):  # until the whole body came (a poll, no time bound)
                    if wire._complete:
                        break
                    await asyncio.sleep(0.005)
                paused, complete = wire._reading_paused, wire._complete
            text = (await client.get(f"{url}/next")).text
        server.close()
        return paused, complete, text, count[0]

    assert _run(main) == (True, True, "ok", 1)


def test_a_cancelled_request_closes_its_connection_and_leaves_no_task():
    async def main() -> tuple[bytes, int, set]:
        arrived, gone = asyncio.Event(), asyncio.Event()
        read_after: list[bytes] = []

        async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await _request(reader)
            arrived.set()
            read_after.append(await reader.read())  # b"" once the client has closed its side
            gone.set()

        server, url, _ = await _serve(script)
        client, pool = _client()
        async with client:
            request = asyncio.create_task(client.get(f"{url}/slow"))
            await arrived.wait()  # the request is waiting for its answer
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request
            await asyncio.wait_for(gone.wait(), 60)  # a hang guard, not a time bound
            idle = len(pool.connections)
        server.close()
        others = {t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()}
        return read_after[0], idle, {t.get_coro().__qualname__ for t in others}

    data, idle, tasks = _run(main)
    assert (data, idle) == (b"", 0)
    assert not any("Wire" in name or "LeanPool" in name for name in tasks)


def test_closing_the_pool_ends_a_request_in_flight_and_closes_its_connection():
    """`aclose` (a client closing, an MCP server's pool at its end) with a request still waiting for its
    answer and no read time limit: it fails with a ReadError, as over httpcore's pool, and the server
    finds the connection closed, instead of both waiting for ever."""

    async def main() -> tuple[type, bytes, int]:
        arrived, gone = asyncio.Event(), asyncio.Event()
        read_after: list[bytes] = []

        async def script(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await _request(reader)
            arrived.set()
            read_after.append(await reader.read())  # b"" once the client has closed its side
            gone.set()

        server, url, _ = await _serve(script)
        client, pool = _client(timeout=None)
        request = asyncio.create_task(client.get(f"{url}/slow"))
        await asyncio.wait_for(arrived.wait(), 60)  # hang guards, not time bounds
        await client.aclose()
        with pytest.raises(httpx.TransportError) as failed:
            await asyncio.wait_for(request, 60)
        await asyncio.wait_for(gone.wait(), 60)
        server.close()
        return type(failed.value), read_after[0], len(pool.connections)

    assert _run(main) == (httpx.ReadError, b"", 0)


def test_a_response_followed_by_another_in_the_same_packet_is_read_as_it_came(kind):
    """The bytes past the first response start a second one (forged headers, another length): the first
    keeps its own status, headers and body; the connection is not reused."""
    forged = b"HTTP/1.1 500 Forged\r\nX-Forged: yes\r\nContent-Length: 6\r\n\r\nforged"
    first = b"HTTP/1.1 200 OK\r\nX-Row: 1\r\nContent-Length: 2\r\n\r\nok"

    async def main() -> tuple[int, str, str | None, str, int]:
        server, url, count = await _serve(_answering(first + forged, first))
        client, _ = _client(kind)
        async with client:
            answer = await client.get(f"{url}/a")
            await client.get(f"{url}/b")
        server.close()
        return (
            answer.status_code,
            answer.headers["x-row"],
            answer.headers.get("x-forged"),
            answer.text,
            count[0],
        )

    assert _run(main) == (200, "1", None, "ok", 2)


def _twice_never_reused(kind: str, answer: bytes) -> tuple[list[str], int]:
    """(the texts of two GETs each answered `answer`, connections made), the pool keeping none after."""

    async def main() -> tuple[list[str], int]:
        server, url, count = await _serve(_answering(answer))
        client, pool = _client(kind)
        async with client:
            texts = [(await client.get(f"{url}/{n}")).text for n in range(2)]
            assert pool.connections == []
        server.close()
        return texts, count[0]

    return _run(main)


def test_a_response_that_says_connection_close_is_not_reused(kind):
    closing = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
    assert _twice_never_reused(kind, closing) == (["ok", "ok"], 2)


@pytest.mark.parametrize(
    ("lengths", "expected"),
    [
        (b"Content-Length: 2\r\nContent-Length: 2\r\n", ["ok", "ok"]),
        (b"Content-Length: 2, 2\r\n", ["ok", "ok"]),
        (b"Content-Length: 2\r\ncontent-length:  2, 2 \r\n", ["ok", "ok"]),
        (b"Content-Length: 2\r\nContent-Length: 3\r\n", "conflicting Content-Length headers"),
        (b"Content-Length: 2, 3\r\n", "conflicting Content-Length headers"),
    ],
    ids=["twice", "listed", "both", "conflicting", "conflicting-list"],
)
def test_one_content_length_said_more_than_once_is_read_as_h11_reads_it(lengths: bytes, expected: Any, kind):
    """RFC 9110 8.6: a recipient may take identical Content-Length values as one. h11 (httpx's own sync
    transport, the blocking run's before) does; strict llhttp refused them ("Duplicate Content-Length",
    "Invalid character in Content-Length"). Differing values stay refused, in h11's words."""
    answer = b"HTTP/1.1 200 OK\r\n" + lengths + b"X-After: 1\r\n\r\nok"

    async def main() -> Any:
        server, url, count = await _serve(_answering(answer, answer))
        client, _ = _client(kind)
        try:
            async with client:
                responses = [await client.get(f"{url}/{n}") for n in range(2)]
        except httpx.RemoteProtocolError as exc:
            return str(exc)
        finally:
            server.close()
        assert [r.headers.get_list("content-length") for r in responses] == [["2"], ["2"]]
        assert [r.headers["x-after"] for r in responses] == ["1", "1"]
        assert count[0] == 1  # the connection kept: one response, then the next
        return [r.text for r in responses]

    assert _run(main) == expected


def _refused(kind: str, answer: bytes) -> str:
    """The words of the RemoteProtocolError a GET answered `answer` fails with."""

    async def main() -> str:
        server, url, _ = await _serve(_answering(answer))
        client, _ = _client(kind)
        try:
            async with client:
                with pytest.raises(httpx.RemoteProtocolError) as refused:
                    await client.get(f"{url}/")
        finally:
            server.close()
        return str(refused.value)

    return _run(main)


@pytest.mark.parametrize(
    "codings",
    [b"gzip, chunked", b"chunked, gzip", b"gzip", b"identity", b"chunked, chunked"],
    ids=["gzip-chunked", "chunked-gzip", "gzip", "identity", "chunked-listed-twice"],
)
def test_a_transfer_coding_other_than_chunked_alone_is_refused_in_h11s_words(codings: bytes, kind):
    """A transfer coding the connection cannot undo would be read as the body (gzip bytes as JSON, a
    chunked frame's sizes as text): refused, as h11 (httpx's own transport) refuses it."""
    answer = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: " + codings + b"\r\n\r\n3\r\nabc\r\n0\r\n\r\n"

    assert _refused(kind, answer) == "Only Transfer-Encoding: chunked is supported"


def test_two_transfer_encoding_fields_are_refused_in_h11s_words(kind):
    answer = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"

    assert _refused(kind, answer) == "multiple Transfer-Encoding headers"


def test_a_transfer_encoding_chunked_in_any_case_with_blanks_is_chunked(kind):
    answer = b"HTTP/1.1 200 OK\r\nTransfer-Encoding:  Chunked \r\n\r\n3\r\nabc\r\n0\r\n\r\n"

    async def main() -> tuple[list[str], int]:
        server, url, count = await _serve(_answering(answer, answer))
        client, _ = _client(kind)
        async with client:
            texts = [(await client.get(f"{url}/{n}")).text for n in range(2)]
        server.close()
        return texts, count[0]

    assert _run(main) == (["abc", "abc"], 1)


def test_a_response_with_both_a_content_length_and_chunked_framing_is_read_chunked_and_not_reused(kind):
    """RFC 9112 6.3: Transfer-Encoding overrides Content-Length, and the connection is closed after such a
    message (6.1). h11 (httpx's own sync transport, the blocking run's before) read the chunked body;
    strict llhttp refused the response ("Transfer-Encoding can't be present with Content-Length")."""
    both = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
    assert _twice_never_reused(kind, both) == (["abc", "abc"], 2)


def test_a_request_that_says_connection_close_is_not_reused_whatever_the_server_answers(kind):
    """The request asked to close (a step's own `Connection: close` header): the connection is not used
    again, even when the server answers keep-alive and keeps it open."""

    async def main() -> tuple[list[str], int, int]:
        server, url, count = await _serve(_answering(OK, OK))  # keeps the connection, whatever was asked
        client, pool = _client(kind)
        async with client:
            first = await client.get(f"{url}/a", headers={"Connection": "close"})
            idle = len(pool.connections)
            second = await client.get(f"{url}/b")
        server.close()
        return [first.text, second.text], count[0], idle

    assert _run(main) == (["ok", "ok"], 2, 0)


def test_past_max_idle_the_oldest_idle_connection_is_closed_and_the_newest_kept(kind):
    """Three connections of one origin given back in turn to a pool keeping two: the first given back (idle
    the longest, the likeliest to be dropped by the server) is closed, the two most recent are kept."""

    async def main() -> tuple[list[bool], bool, int]:
        server, url, count = await _serve(_answering(*[OK] * 3))
        client, pool = _client(kind, max_idle=2)
        async with client:
            streams = [
                await client.send(client.build_request("GET", f"{url}/{n}"), stream=True) for n in range(3)
            ]
            wires: list[Any] = []
            for response in streams:  # each given back at its body's end, in this order
                await _read(response)
                wires += [wire for wire in pool.connections if wire not in wires]
            kept = [wire in pool.connections for wire in wires]
            first_closed = wires[0].lost
        server.close()
        return kept, first_closed, count[0]

    assert _run(main) == ([False, True, True], True, 3)


def test_a_runs_own_asyncio_client_sends_over_the_lean_pool_and_the_environments_proxy(monkeypatch):
    """The run's client (`new_client`, asyncio): its own origins over the lean pool; an origin the
    environment routes through a proxy goes there (httpx's proxy transport), NO_PROXY ones directly."""
    from arazzo_runner.http.transport import new_client

    async def main() -> tuple[list[bytes], list[str], bool]:
        proxied: list[bytes] = []

        async def proxy(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            proxied.append((await _request(reader)).split(b"\r\n", 1)[0])
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nvia proxy")
            await writer.drain()

        proxy_server, proxy_url, _ = await _serve(proxy)
        server, url, _ = await _serve(_answering(OK))
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        client = new_client(5.0)
        try:
            lean = isinstance(client.httpx._transport._pool, LeanPool)
            texts = []
            for target in ("http://api.example.test/items", f"{url}/direct"):
                async with client.stream("GET", target) as answer:
                    texts.append((await answer.aread()).decode())
        finally:
            await client.aclose()
        proxy_server.close()
        server.close()
        return proxied, texts, lean

    assert _run(main) == ([b"GET http://api.example.test/items HTTP/1.1"], ["via proxy", "ok"], True)


def test_a_server_that_does_not_read_the_body_is_a_write_timeout(kind):
    size = 32 * 1024 * 1024  # past what the kernel's socket buffers take on loopback

    async def main() -> tuple[type, int]:
        done = asyncio.Event()

        async def deaf(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            await done.wait()  # reads no body

        server, url, _ = await _serve(deaf)
        client, pool = _client(kind, timeout=0.3)
        async with client:
            with pytest.raises(httpx.TimeoutException) as failed:
                await client.post(f"{url}/up", content=b"x" * size)
            idle = len(pool.connections)
        done.set()
        server.close()
        return type(failed.value), idle

    assert _run(main) == (httpx.WriteTimeout, 0)


def test_response_bytes_trickling_in_do_not_stretch_a_write_timeout(kind):
    """The server reads no body and sends its answer's head a byte every 10 ms: each byte wakes the
    write's wait, and must not start its time limit again. The client gives up long before the server has
    trickled 3,000 bytes (30 s: a hang guard, not a time bound), having sent a body the kernel cannot take."""
    size = 32 * 1024 * 1024
    trickle = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 3000

    async def main() -> tuple[type, int]:
        sent = [0]

        async def deaf(n: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            for byte in trickle:  # reads no body
                if writer.is_closing() or reader.at_eof():
                    return
                writer.write(bytes([byte]))
                await writer.drain()
                sent[0] += 1
                await asyncio.sleep(0.01)

        server, url, _ = await _serve(deaf)
        client, _ = _client(kind, timeout=0.3)
        async with client:
            with pytest.raises(httpx.TimeoutException) as failed:
                await client.post(f"{url}/up", content=b"x" * size)
        server.close()
        return type(failed.value), sent[0]

    kind, sent = _run(main)
    assert kind is httpx.WriteTimeout
    assert sent < len(trickle)
