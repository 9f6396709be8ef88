"""http/lean_exchange.py sends a run client's requests straight to the lean pool, without httpx's transport
layer: compared here with httpx's transport over the same pool, on a real local server written by hand,
byte for byte as received, answer by answer as the engine reads them (`transport.send`'s record, the
httpx.Response a run client's `stream` gives), failure by failure (the engine's words, httpx's class, the
httpcore error it was raised from, the request it carries), and the cookies a row's jar keeps."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import logging
from typing import Any

import httpx
import pytest

from arazzo_runner.http import run_client
from arazzo_runner.http.request import PreparedRequest, RequestView
from arazzo_runner.http.run_client import run_view
from arazzo_runner.http.transport import (
    TransportError,
    new_client,
    send,
    shared_client,
    shared_pool,
)
from tests.unit.http.raw_server import answer, raw_server

BODY = b'{"ok": true, "n": 1}'
ZIPPED = gzip.compress(b'{"zipped": ' + b"1" * 300 + b"}")
EVENTS = b'data: {"choices": [{"delta": {"content": "he"}}]}\n\ndata: [DONE]\n\n'


ANSWERS: dict[bytes, bytes | None] = {  # path -> what the server writes (None: it closes at once)
    b"/plain": answer(b"200 OK", [b"Content-Type: application/json", b"Content-Length: 20"], BODY),
    b"/login": answer(
        b"200 OK",
        [b"Set-Cookie: sid=s1; Path=/", b"Set-Cookie: lang=fr; Path=/", b"Content-Length: 2"],
        b"ok",
    ),
    b"/zipped": answer(
        b"200 OK",
        [b"Content-Type: application/json", b"Content-Encoding: gzip", b"Content-Length: %d" % len(ZIPPED)],
        ZIPPED,
    ),
    b"/chunked": answer(
        b"201 Created",
        [b"Content-Type: application/json", b"Transfer-Encoding: chunked", b"X-Dup: 1", b"x-dup:  2 "],
        b'6\r\n{"a": \r\n2\r\n1}\r\n0\r\n\r\n',
    ),
    b"/events": answer(
        b"200 OK", [b"Content-Type: text/event-stream", b"Content-Length: %d" % len(EVENTS)], EVENTS
    ),
    b"/big": answer(b"200 OK", [b"Content-Type: text/plain", b"Content-Length: 5000"], b"x" * 5000),
    b"/bomb": answer(
        b"200 OK", [b"Content-Type: text/plain", b"Content-Encoding: gzip"], gzip.compress(b"\0" * 200_000)
    ),  # then closed: a close-delimited body
    b"/teapot": answer(b"418 I'm a Teapot", [b"Content-Length: 0", b"X-Name: ol\xc3\xa9"], b""),
    b"/cut": answer(b"200 OK", [b"Content-Type: text/plain", b"Content-Length: 100"], b"only ten.."),
    b"/silent": None,
    b"/garbage": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    b"/empty-post": answer(b"204 No Content", [], b""),
    b"/echo": answer(b"200 OK", [b"Content-Length: 2"], b"ok"),
}
CLOSING = {b"/bomb", b"/cut", b"/silent", b"/garbage"}  # the server closes after writing these


async def _server() -> tuple[asyncio.AbstractServer, str, list[bytes]]:
    return await raw_server(ANSWERS, ANSWERS[b"/echo"], CLOSING)


STEPS = [  # method, path, headers, content, max_body
    ("GET", "/plain?x=a%2Fb&y=1,2", [("Accept", "application/json")], None, 2**20),
    ("GET", "/login", [], None, 2**20),  # Set-Cookie: sent back by each request after it
    ("POST", "/orders", [("Content-Type", "application/json"), ("X-Name", "Zoë")], b'{"n": 1}', 2**20),
    ("POST", "/empty-post", [], None, 2**20),
    ("PUT", "/a/./b/../c", [("user-agent", "mine"), ("X-A", "1"), ("x-a", "2")], b"", 2**20),
    ("DELETE", "/q?", [("Cookie", "own=1")], None, 2**20),
    ("GET", "/zipped", [], None, 2**20),
    ("GET", "/chunked", [], None, 2**20),
    ("GET", "/events", [], None, 2**20),
    ("GET", "/big", [], None, 1000),  # past --max-response-bytes
    ("GET", "/bomb", [], None, 10_000),  # decodes past it
    ("GET", "/teapot", [], None, 2**20),
    ("GET", "/a b", [], None, 2**20),  # a URL httpx parses itself
    ("GET", "/cut", [], None, 2**20),
    ("GET", "/silent", [], None, 2**20),
    ("GET", "/garbage", [], None, 2**20),
    ("GET", "/echo", [], None, 2**20),
]


def _record(response: Any) -> tuple:
    return (
        response.status_code,
        list(response.headers.items()),
        response.body,
        response.content,
        response.content_type,
        response.notes,
        response.error,
        response.oversize,
        response.json,
    )


async def _steps(client: Any, url: str) -> list[Any]:
    seen: list[Any] = []
    for method, path, headers, content, max_body in STEPS:
        prepared = PreparedRequest(method, url + path, headers, content, RequestView())
        try:
            seen.append(_record(await send(client, prepared, timeout=5.0, max_body=max_body)))
        except TransportError as exc:
            seen.append(str(exc).replace(url, "URL"))
    seen.append(await _refused(client))
    seen.append(sorted((c.name, c.value, c.domain, c.path) for c in client.cookies.jar))
    return seen


async def _refused(client: Any) -> str:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    prepared = PreparedRequest("GET", f"http://127.0.0.1:{port}/x", [], None, RequestView())
    with pytest.raises(TransportError) as caught:
        await send(client, prepared, timeout=5.0)
    return str(caught.value).replace(str(port), "PORT")


def _exchanges(kind: str, lean: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list[bytes], list]:
    sent: list[Any] = []
    real_exchange = run_client.exchange

    async def counted(pool: Any, request: Any) -> Any:
        sent.append(request)
        return await real_exchange(pool, request)

    monkeypatch.setattr(run_client, "exchange", counted)
    real_direct = run_client._AsyncExchange._direct

    async def written(self: Any, pool: Any, request: Any) -> Any:  # written for the pool (wire_direct.py)
        sent.append(request)
        return await real_direct(self, pool, request)

    monkeypatch.setattr(run_client._AsyncExchange, "_direct", written)
    if not lean:
        monkeypatch.setattr(run_client, "lean_pool", lambda transport: None)

    async def main() -> tuple[list, list[bytes]]:
        server, url, received = await _server()
        if kind == "shared":  # a row's view of the rows' shared client (`arazzo run --inputs-file`)
            pool = shared_pool()
            shared = shared_client(5.0, pool)
            seen = await _steps(run_view(shared), url)
            await shared.aclose()
            await pool.close_pool()
        else:  # a run's own client
            client = new_client(5.0)
            seen = await _steps(client, url)
            await client.aclose()
        server.close()
        port = url.rsplit(":", 1)[1].encode()
        return seen, [r.replace(port, b"PORT") for r in received]

    seen, received = asyncio.run(main())
    monkeypatch.undo()
    return seen, received, sent


@pytest.mark.parametrize("kind", ["shared", "own"])
def test_the_lean_exchange_sends_and_reads_as_httpx_transport(kind, monkeypatch) -> None:
    lean, lean_received, lean_sent = _exchanges(kind, True, monkeypatch)
    reference, reference_received, reference_sent = _exchanges(kind, False, monkeypatch)
    assert lean_received == reference_received  # the same bytes on the wire, request by request
    assert lean == reference  # the same answers, failures and cookies
    assert len(lean_sent) == len(STEPS) + 1 and reference_sent == []  # every request the lean way
    by_path = {r.split(b" ")[1]: r for r in lean_received}
    assert b"Cookie: sid=s1; lang=fr\r\n" in by_path[b"/orders"]  # the jar's cookies, from /login
    assert b"Cookie: own=1\r\n" in by_path[b"/q?"]  # the step's own Cookie: the jar's not added
    assert b"\r\nContent-Length: 0\r\n" in by_path[b"/empty-post"]
    assert b"\r\nContent-Length: 8\r\n" in by_path[b"/orders"]
    assert by_path[b"/orders"].endswith(b'\r\n\r\n{"n": 1}')
    answers = dict(zip([s[1] for s in STEPS], lean, strict=False))
    assert answers["/zipped"][2] == {"zipped": int("1" * 300)}  # decoded within the bound
    assert answers["/chunked"][:3] == (
        201,
        [("content-type", "application/json"), ("transfer-encoding", "chunked"), ("x-dup", "1, 2")],
        {"a": 1},
    )
    assert answers["/events"][6] is None and answers["/events"][2]["stream_complete"] is True
    assert answers["/big"][7].startswith("the response body is larger than the limit of 1000 bytes")
    assert "decoded; max-response-bytes" in answers["/bomb"][6]
    assert answers["/cut"].startswith("the server closed the connection mid-response")
    assert answers["/silent"].startswith("the server closed the connection without answering")
    assert answers["/garbage"].startswith("the server sent a malformed response: illegal status line")
    assert lean[-2] == "connection refused (GET http://127.0.0.1:PORT/x)"
    assert [name for name, *_ in lean[-1]] == ["lang", "sid"]


async def _failure(client: Any, url: str, path: str) -> tuple:
    with pytest.raises(httpx.HTTPError) as caught:
        async with client.stream("GET", url + path) as response:
            await response.aread()
    exc = caught.value
    return type(exc), str(exc), type(exc.__cause__), exc.request.method, str(exc.request.url).replace(url, "")


def _responses(lean: bool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> list:
    if not lean:
        monkeypatch.setattr(run_client, "lean_pool", lambda transport: None)

    async def main() -> list:
        server, url, _ = await _server()
        pool = shared_pool()
        shared = shared_client(5.0, pool)
        client = run_view(shared)
        found: list[Any] = []
        for path in ("/plain", "/teapot", "/chunked", "/zipped"):
            async with client.stream("GET", url + path, headers=[("X-Row", "1")]) as response:
                sent = [(k, v.replace(url[7:].encode(), b"HOST")) for k, v in response.request.headers.raw]
                head = (
                    isinstance(response, httpx.Response),
                    response.status_code,
                    response.headers.raw,
                    response.http_version,
                    response.reason_phrase,
                    response.extensions,
                    sent,
                    response.is_closed,
                )
                body = await response.aread()
                found.append((head, body, response.text, response.is_closed, response.num_bytes_downloaded))
        pieces = []
        async with client.stream("GET", url + "/big") as response:
            async for piece in response.aiter_raw(1024):  # httpx's re-chunking
                pieces.append(len(piece))
            found.append((pieces, response.is_stream_consumed, response.is_closed))
        async with client.stream("GET", url + "/big") as response:
            async for _ in response.aiter_raw():
                break
            with pytest.raises(httpx.StreamConsumed):
                await response.aiter_raw().__anext__()
        with pytest.raises(httpx.StreamConsumed):  # consumed comes first, as httpx checks
            await response.aiter_raw().__anext__()
        async with client.stream("GET", url + "/plain") as response:
            pass
        with pytest.raises(httpx.StreamClosed):
            await response.aiter_raw().__anext__()
        for path in ("/cut", "/silent", "/garbage"):
            found.append(await _failure(client, url, path))
        await shared.aclose()
        await pool.close_pool()
        server.close()
        return found, url

    with caplog.at_level(logging.INFO, logger="httpx"):
        found, url = asyncio.run(main())
    found.append([r.getMessage().replace(url, "URL") for r in caplog.records if r.name == "httpx"])
    caplog.clear()
    monkeypatch.undo()
    return found


def test_a_run_clients_response_is_httpx_own_read_the_same_either_way(monkeypatch, caplog) -> None:
    lean = _responses(True, monkeypatch, caplog)
    reference = _responses(False, monkeypatch, caplog)
    assert lean == reference
    assert lean[0][0][1:5] == (
        200,
        [(b"Content-Type", b"application/json"), (b"Content-Length", b"20")],
        "HTTP/1.1",
        "OK",
    )
    assert lean[1][0][4] == "I'm a Teapot"
    assert lean[4][0] == [1024] * 4 + [904]
    assert lean[5][:2] == (
        httpx.RemoteProtocolError,
        "peer closed connection without sending complete message body (received 10 bytes, expected 100)",
    )
    assert lean[5][2].__module__.startswith("httpcore")  # raised from httpcore's error, as httpx does
    assert lean[-1][0] == 'HTTP Request: GET URL/plain "HTTP/1.1 200 OK"'


def test_a_rows_client_view_makes_no_jar_until_a_cookie_is_set(monkeypatch) -> None:
    """A row's view of the shared client had a cookie jar made for it (~10 µs a row) that most rows never
    fill: made now when a response sets a cookie (or the jar is asked for); the cookies are the same."""

    async def main() -> tuple[Any, Any, list]:
        server, url, received = await _server()
        pool = shared_pool()
        shared = shared_client(5.0, pool)
        quiet, cookied = run_view(shared), run_view(shared)
        for client in (quiet, cookied):
            await send(client, PreparedRequest("GET", url + "/plain", [], None, RequestView()), timeout=5.0)
        await send(cookied, PreparedRequest("GET", url + "/login", [], None, RequestView()), timeout=5.0)
        await send(cookied, PreparedRequest("GET", url + "/echo", [], None, RequestView()), timeout=5.0)
        await send(quiet, PreparedRequest("GET", url + "/echo", [], None, RequestView()), timeout=5.0)
        jars = (quiet._jar, cookied._jar)
        await shared.aclose()
        await pool.close_pool()
        server.close()
        return jars, dict(shared.cookies), [r.split(b"\r\n\r\n")[0].split(b"\r\n")[-1] for r in received]

    (quiet, cookied), shared_jar, last_lines = asyncio.run(main())
    assert quiet is None  # no response set one: none made
    assert dict(cookied) == {"sid": "s1", "lang": "fr"}
    assert shared_jar == {}  # the shared client's own jar stays empty
    assert last_lines[3] == b"Cookie: sid=s1; lang=fr" and not last_lines[4].startswith(b"Cookie")


def test_a_transport_whose_sending_was_replaced_is_sent_through(monkeypatch) -> None:
    """An instrumentation that wraps httpx's transport (as tracing libraries do) sees each request a run
    client sends: the lean exchange is only taken over httpx's own sending, and a row's client makes no
    jar for a response without cookies, whichever way it was sent."""
    import arazzo_runner.http.lean_exchange as lean_exchange

    seen: list[str] = []
    original = httpx.AsyncHTTPTransport.handle_async_request

    async def traced(self: Any, request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url.path))
        return await original(self, request)

    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", traced)
    monkeypatch.setattr(lean_exchange, "_HTTPX_OWN", True)  # as if wrapped after the module's import

    async def main() -> tuple[int, Any]:
        server, url, _ = await _server()
        pool = shared_pool()
        shared = shared_client(5.0, pool)
        view = run_view(shared)
        answer = await send(
            view, PreparedRequest("GET", url + "/plain", [], None, RequestView()), timeout=5.0
        )
        await shared.aclose()
        await pool.close_pool()
        server.close()
        return answer.status_code, view._jar

    assert asyncio.run(main()) == (200, None)
    assert seen == ["/plain"]


def test_a_body_that_arrived_with_its_head_is_taken_whole(monkeypatch) -> None:
    """A body without Content-Encoding that is all in the connection's buffer when the head is read is
    taken in one piece (`PooledBody.arrived`), not through the three async iterators over one another;
    past the limit it is cut as before, and the connection goes back to the pool either way. A body
    still arriving (cut short here), or one to decode, is read piece by piece as before."""
    from arazzo_runner.http.lean_pool import PooledBody

    pieces: list[str] = []
    real_next = PooledBody.__anext__

    async def counted(self: Any) -> bytes:
        pieces.append("piece")
        return await real_next(self)

    monkeypatch.setattr(PooledBody, "__anext__", counted)

    async def main() -> tuple[list, int]:
        server, url, _ = await _server()
        pool = shared_pool()
        shared = shared_client(5.0, pool)
        client = run_view(shared)
        seen = []
        for path, max_body in (
            ("/plain", 2**20),
            ("/big", 1000),
            ("/teapot", 2**20),
            ("/big", 4999),
            ("/big", 5000),
        ):
            response = await send(client, PreparedRequest("GET", url + path, [], None, RequestView()),
                                  timeout=5.0, max_body=max_body)  # fmt: skip
            seen.append((response.content[:20], len(response.content), response.oversize is not None))
        idle = len(shared._transport._pool.connections)
        seen.append(len(pieces))
        for path in ("/zipped", "/cut"):
            with contextlib.suppress(TransportError):  # (cut short: the engine's words)
                await send(client, PreparedRequest("GET", url + path, [], None, RequestView()), timeout=5.0)
        await shared.aclose()
        await pool.close_pool()
        server.close()
        return seen, idle

    seen, idle = asyncio.run(main())
    assert seen[:3] == [(BODY, 20, False), (b"x" * 20, 1000, True), (b"", 0, False)]
    assert seen[3:5] == [(b"x" * 20, 4999, True), (b"x" * 20, 5000, False)]  # one byte over; at the limit
    assert seen[5] == 0  # each taken whole
    assert idle == 1  # the one connection, given back after each
    assert pieces  # the gzip body and the one cut short: read piece by piece
