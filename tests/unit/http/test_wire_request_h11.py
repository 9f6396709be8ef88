"""The request head the engine writes itself (`wire_request.request_head`, and `wire_direct`'s lines, which
leave a request they would not write to it) accepts and refuses a header as h11 does, with h11's words:
compared with h11 itself, not with the engine's own path. A name holding `: ` once passed as a line of a
name and a value (`Transfer-Encoding: chunked\\t` sent beside the real Content-Length: a request a
lenient proxy reads two ways)."""

from __future__ import annotations

import asyncio

import h11
import httpcore
import pytest

from arazzo_runner.http.fast_request import given_items
from arazzo_runner.http.request import PreparedRequest, RequestView
from arazzo_runner.http.transport import TransportError, new_client, send
from arazzo_runner.http.wire_request import request_head

HEADERS = [
    (b"X-Ok", b"v"),
    (b"X-Ok", b""),
    (b"X-Ok", b"a  b\tc"),
    (b"Transfer-Encoding: chunked\t", b"v"),
    (b"Content-Length: 5", b"x"),
    (b"X: a", b"b"),
    (b"X:", b"b"),
    (b"X Y", b"v"),
    (b"", b"v"),
    (b"X-Bad", b"a\r\nInjected: 1"),
    (b"X-Bad", b"a\nb"),
    (b"X-Bad", b" lead"),
    (b"X-Bad", b"trail "),
    (b"X-Bad", b"nul\x00"),
    (b"X-\xe9", b"v"),
]


def _h11_verdict(name: bytes, value: bytes) -> str | None:
    try:
        h11.Request(method=b"GET", target=b"/", headers=[(b"Host", b"h"), (name, value)])
    except h11.LocalProtocolError as exc:
        return str(exc)
    return None


def _engine_verdict(name: bytes, value: bytes) -> str | None:
    request = httpcore.Request(b"GET", b"http://h/", headers=[(b"Host", b"h"), (name, value)])
    try:
        request_head(request)
    except httpcore.LocalProtocolError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(("name", "value"), HEADERS)
def test_a_header_is_refused_as_h11_refuses_it(name: bytes, value: bytes) -> None:
    assert _engine_verdict(name, value) == _h11_verdict(name, value)


def test_a_name_holding_a_colon_never_reaches_the_server() -> None:
    received: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.append(await reader.read(4096))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        writer.close()

    async def main() -> str:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client = new_client(5.0)
        headers = [("Transfer-Encoding: chunked\t", "v")]
        request = PreparedRequest("POST", f"http://127.0.0.1:{port}/x", headers, b"abc", RequestView())
        try:
            with pytest.raises(TransportError) as raised:
                await send(client, request, timeout=5.0)
        finally:
            await client.aclose()
            server.close()
        return str(raised.value)

    message = asyncio.run(main())
    assert "Illegal header name b'Transfer-Encoding: chunked\\t'" in message
    assert received == []


def test_headers_given_as_a_mapping_are_its_pairs() -> None:
    assert given_items({"headers": {"TE": "trailers", "XY": "secret"}}) == [
        (b"TE", b"trailers"),
        (b"XY", b"secret"),
    ]
    assert given_items({"headers": [("TE", "trailers")]}) == [(b"TE", b"trailers")]
