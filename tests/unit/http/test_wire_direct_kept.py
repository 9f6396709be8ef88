"""http/wire_direct.py keeps what it checked once (an origin's Host line and fields, the client's default
lines, a method's bytes) and leaves to the way before what it must not write: held here on real local
servers where the behaviour is I/O (mutation round 52: each of these passed every test when broken).
- the origins are kept by scheme and authority: an https URL after an http one of the same host and
  port is sent over TLS, not in plain text on the http one's kept fields;
- a bodiless POST, PUT or PATCH given in lower case says `Content-Length: 0`, as httpx writes it;
- a client's default `Connection: Close`, in any case, is left to the way before, which closes the
  connection after the answer (the pool never reuses it);
- a client's default header whose name holds `: ` is refused with h11's words, nothing sent;
- the kept tables stay within their bound however many origins, defaults and methods a run meets."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from arazzo_runner.http import wire_direct
from arazzo_runner.http.request import PreparedRequest, RequestView
from arazzo_runner.http.run_client import run_view
from arazzo_runner.http.transport import TransportError, send, shared_client, shared_pool
from tests.unit.http.raw_server import answer, raw_server
from tests.unit.http.test_wire_direct import _reference

OK = answer(b"200 OK", [b"Content-Length: 2"], b"ok")


async def _steps(steps: list[tuple[str, str]], setup: Any = None) -> list[Any]:
    """Each (method, URL) sent by a row's view of a shared client (`setup(client)` first): the
    status and body, or the failure's words."""
    pool = shared_pool()
    shared = shared_client(5.0, pool)
    if setup is not None:
        setup(shared)
    client = run_view(shared)
    seen: list[Any] = []
    try:
        for method, url in steps:
            try:
                response = await send(
                    client, PreparedRequest(method, url, [], None, RequestView()), timeout=5.0
                )
                seen.append((response.status_code, response.content))
            except TransportError as exc:
                seen.append(str(exc))
    finally:
        await shared.aclose()
        await pool.close_pool()
    return seen


def test_an_https_url_after_the_same_host_and_port_over_http_is_sent_over_tls() -> None:
    async def main() -> tuple[list[Any], list[bytes], int]:
        received: list[bytes] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            data = await reader.read(1 << 16)
            received.append(data)
            if data.startswith(b"GET "):
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                await writer.drain()
            writer.close()  # a TLS hello is not answered: the handshake fails

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        seen = await _steps([("GET", f"http://127.0.0.1:{port}/a"), ("GET", f"https://127.0.0.1:{port}/a")])
        server.close()
        return seen, received, port

    seen, received, port = asyncio.run(main())
    assert seen[0] == (200, b"ok")
    assert (
        seen[1]
        == f"cannot connect: the server closed the connection while it was being set up (GET https://127.0.0.1:{port}/a)"
    )
    assert received[0].startswith(b"GET /a HTTP/1.1\r\n")
    assert len(received) == 2 and received[1][:2] == b"\x16\x03", received  # a TLS record: the hello


@pytest.mark.parametrize("method", ["post", "put", "patch", "Post"])
def test_a_bodiless_post_put_or_patch_in_lower_case_says_content_length_0(method: str) -> None:
    client = shared_client(5.0, shared_pool())
    url = "http://127.0.0.1:8123/x"
    written = wire_direct.written(client, method, url, {}, None)
    assert written is not None
    fields, _ = _reference(client, method, url, {})
    assert written.head == fields[2] and written.length == fields[3] == 0
    assert b"\r\nContent-Length: 0\r\n" in written.head

    async def main() -> tuple[list[Any], list[bytes]]:
        server, base, received = await raw_server({}, OK, ())
        seen = await _steps([(method, base + "/x")])
        server.close()
        return seen, received

    seen, received = asyncio.run(main())
    assert seen == [(200, b"ok")]
    assert received[0].startswith(method.upper().encode() + b" /x HTTP/1.1\r\n")
    assert b"\r\nContent-Length: 0\r\n" in received[0]


@pytest.mark.parametrize("value", ["Close", "CLOSE", "keep-alive, Close"])
def test_a_default_connection_close_in_any_case_closes_the_connection(value: str) -> None:
    client = shared_client(5.0, shared_pool())
    client.headers["Connection"] = value
    assert wire_direct.written(client, "GET", "http://127.0.0.1:8123/x", {}, None) is None

    async def main() -> tuple[list[Any], list[bytes], int]:
        connections = 0
        received: list[bytes] = []

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal connections
            connections += 1
            try:
                while True:  # answers on, whatever the request says: closing is the client's
                    received.append(await reader.readuntil(b"\r\n\r\n"))
                    writer.write(OK)
                    await writer.drain()
            except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"

        def close_by_default(shared: httpx.AsyncClient) -> None:
            shared.headers["Connection"] = value

        seen = await _steps([("GET", base + "/a"), ("GET", base + "/b")], close_by_default)
        server.close()
        return seen, received, connections

    seen, received, connections = asyncio.run(main())
    assert seen == [(200, b"ok"), (200, b"ok")]
    assert all(f"\r\nConnection: {value}\r\n".encode() in r for r in received)
    assert connections == 2  # each closed after its answer, as it says


def test_a_default_header_whose_name_holds_a_colon_is_refused_with_h11s_words() -> None:
    name = "X-A: b"
    client = shared_client(5.0, shared_pool())
    client.headers[name] = "1"
    assert wire_direct.written(client, "GET", "http://127.0.0.1:8123/x", {}, None) is None

    async def main() -> tuple[list[Any], list[bytes]]:
        server, base, received = await raw_server({}, OK, ())
        seen = await _steps([("GET", base + "/x")], lambda shared: shared.headers.__setitem__(name, "1"))
        server.close()
        return seen, received

    seen, received = asyncio.run(main())
    assert isinstance(seen[0], str), seen
    assert seen[0].startswith("LocalProtocolError: Illegal header name b'X-A: b' (GET http://127.0.0.1:"), (
        seen
    )
    assert received == []  # nothing sent


def test_the_kept_lines_stay_within_their_bound() -> None:
    client = shared_client(5.0, shared_pool())
    for n in range(3 * wire_direct._MAX_KEPT):
        assert wire_direct.written(client, f"M{n}", f"http://127.0.0.1:{1000 + n}/x", {}, None) is not None
        client.headers["User-Agent"] = f"agent {n}"
        assert wire_direct.written(client, "GET", "http://127.0.0.1:8123/x", {}, None) is not None
    for table in (wire_direct._HOSTS, wire_direct._DEFAULTS, wire_direct._METHODS):
        assert 0 < len(table) <= wire_direct._MAX_KEPT
