"""http/wire_direct.py writes a run client's request for the lean pool straight from the step's parts:
compared here with the way before (`fast_request.build` or httpx's `build_request`, then
`wire_request.request_head` over httpcore's fields of it), head by head, request by request (the
httpx.Request made when read), response by response (`LeanResponse` made without `__init__`), and on a
real local server byte for byte as received, answer by answer and failure by failure."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest

from arazzo_runner.http import lean_exchange, run_client, wire_direct
from arazzo_runner.http.lean_exchange import _Request, _response_class, lean_pool
from arazzo_runner.http.request import PreparedRequest, RequestView
from arazzo_runner.http.run_client import run_view
from arazzo_runner.http.transport import TransportError, send, shared_client, shared_pool
from arazzo_runner.http.wire_request import request_head
from tests.unit.http.raw_server import answer, raw_server

BASE = "http://127.0.0.1:8123"
URLS = [
    f"{BASE}/counter/k1",
    f"{BASE}/pets/a%20b/%2F%3F",
    f"{BASE}/a/./b/../c/.hidden",  # dot segments
    f"{BASE}/..",  # a path that dot segments empty: the target is `/`
    f"{BASE}/q?x=a%2Fb&y=1,2&z=%E2%9C%93&w=[1]&v=a+b&u=?&t=@:;$!'()*",
    f"{BASE}/q?",  # an empty query
    f"{BASE}/",
    "HTTP://LOCALHOST:80/x",  # scheme and host in capitals, the default port
    "http://u:p%40w@127.0.0.1/x",  # user information
    "http://[::1]:8080/x?y=1",  # an IPv6 host
    "https://bücher.example/x",  # an IDNA host
]
HEADERS = [
    [],
    [("Content-Type", "application/json"), ("X-Trace", "t1")],
    [("accept", "text/plain"), ("USER-AGENT", "mine"), ("x-a", "1"), ("X-A", "2")],  # defaults replaced
    [("X-Name", "Zoë".encode())],  # non-ASCII: sent as UTF-8 bytes by the transport
    [("Cookie", "own=1"), ("X-Empty", "")],
    [("X-Tab", "a \t b"), ("ACCEPT-ENCODING", "identity")],
]
METHODS = [("GET", None), ("POST", None), ("POST", b'{"a": 1}'), ("PUT", b""), ("patch", b"x"),
           ("PATCH", None), ("DELETE", b"y"), ("M-SEARCH", None)]  # fmt: skip


def _client() -> httpx.AsyncClient:
    return shared_client(5.0, shared_pool())


def _reference(client: httpx.AsyncClient, method: str, url: str, options: dict) -> tuple:
    """The head, body length and pool fields the way before, and its httpx.Request."""
    request = run_client._request(client, method, url, options)
    fields = _Request(request, request.method.encode("ascii"))
    head, length, keep_alive = request_head(fields)  # type: ignore[arg-type]
    assert keep_alive
    url_fields = (fields.url.scheme, fields.url.host, fields.url.port)  # the target: in the head
    return (fields.method, url_fields, head, length, fields.extensions), request


def _same_request(made: httpx.Request, reference: httpx.Request) -> None:
    assert made.method == reference.method
    assert made.url == reference.url and str(made.url) == str(reference.url)
    assert made.url._uri_reference == reference.url._uri_reference
    assert made.headers.raw == reference.headers.raw
    assert made.headers._encoding == reference.headers._encoding
    assert made.extensions == reference.extensions
    assert made.content == reference.content and made.read() == reference.read()
    assert type(made.stream) is type(reference.stream)


@pytest.mark.parametrize("headers", HEADERS, ids=range(len(HEADERS)))
def test_each_head_is_the_one_written_the_way_before(headers) -> None:
    client = _client()
    assert lean_pool(client._transport) is not None
    for url in URLS:
        for method, content in METHODS:
            for timeout in [httpx.USE_CLIENT_DEFAULT, httpx.Timeout(3.0), 2.5]:
                options = {"headers": headers, "content": content, "timeout": timeout}
                written = wire_direct.written(client, method, url, options, None)
                assert written is not None, (method, url, headers)
                fields, reference = _reference(client, method, url, options)
                url_fields = (written.url.scheme, written.url.host, written.url.port)
                assert (
                    written.method,
                    url_fields,
                    written.head,
                    written.length,
                    written.extensions,
                ) == fields
                _same_request(wire_direct.request_of(written), reference)
                _same_request(wire_direct.request_of(written), reference)  # made again: the same


def test_what_it_does_not_write_is_left_to_the_way_before() -> None:
    client = _client()
    url = URLS[0]

    def none(method: str = "GET", address: Any = url, jar: Any = None, **options: Any) -> None:
        assert wire_direct.written(client, method, address, options, jar) is None

    parsed_by_httpx = [
        f"{BASE}/a b",
        f"{BASE}/a#frag",
        f"{BASE}/é",
        f"{BASE}?q=1",
        f"{BASE}?q=/x",
        f"{BASE}#/x",
    ]
    for address in [*parsed_by_httpx, httpx.URL(url)]:
        none(address=address)  # parsed by httpx
    for name in ["Host", "content-length", "Transfer-Encoding", "Connection"]:  # set apart
        none(headers=[(name, "1")])
    none(headers=[("X-Bad", "a\r\nX-Injected: 1")])  # h11 refuses it: its words, the way before
    none(headers=[("X-Bad", " lead")])
    none(headers=[("Bad Name", "1")])
    none(headers=[("X", "é")])  # httpx's UnicodeEncodeError, the way before
    none(method="GÉT")
    none(method="GET /x")
    none(content="text")
    none(data={"a": "1"})
    jar = httpx.Cookies()
    jar.set("sid", "s1")
    none(jar=jar)  # the run's own cookies
    client.cookies.set("sid", "s1")
    none()
    client.cookies.clear()
    assert wire_direct.written(client, "GET", url, {}, httpx.Cookies()) is not None  # an empty jar
    client.headers["Connection"] = "close"  # the connection is not kept: the way before says so
    none()
    client.headers["Connection"] = "keep-alive"
    client.headers["X-Line"] = "a\nb"
    none()
    del client.headers["X-Line"]
    assert wire_direct.written(client, "GET", url, {}, None) is not None
    with_params = httpx.AsyncClient(params={"p": "1"})
    assert wire_direct.written(with_params, "GET", url, {}, None) is None


def test_a_lean_response_holds_what_httpx_response_init_sets() -> None:
    """`exchange_written` sets the fields itself: the same names as `httpx.Response.__init__` (but the
    request's, made when read) and the same values."""
    client = _client()
    reference = httpx.Response(200, stream=httpx.ByteStream(b""), request=httpx.Request("GET", URLS[0]))
    written = wire_direct.written(client, "GET", URLS[0], {}, None)

    async def one() -> Any:
        class Pool:
            async def handle_async_request(self, request: Any) -> Any:
                import httpcore

                assert request is written
                answer = httpcore.Response(200, headers=[(b"X-A", b"1")], extensions={"reason_phrase": b"OK"})
                answer.stream = httpx.ByteStream(b"")
                return answer

        return await lean_exchange.exchange_written(Pool(), written)

    response = asyncio.run(one())
    assert type(response) is _response_class()
    fields = set(vars(response)) - {"_sent", "_written"}
    assert fields == set(vars(reference)) - {"_request"}
    for name in fields - {"headers", "stream", "extensions"}:
        assert getattr(response, name) == getattr(reference, name), name
    assert response.headers.raw == [(b"X-A", b"1")] and response.headers._list == [(b"X-A", b"x-a", b"1")]
    assert response.extensions == {"reason_phrase": b"OK"} and response.reason_phrase == "OK"
    _same_request(response.request, run_client._request(client, "GET", URLS[0], {}))
    assert response._request is response.request  # made once
    response.request = reference.request
    assert response.request is reference.request


ANSWERS = {
    b"/plain": answer(b"200 OK", [b"Content-Type: application/json", b"Content-Length: 9"], b'{"n": 1}\n'),
    b"/login": answer(b"200 OK", [b"Set-Cookie: sid=s1; Path=/", b"Content-Length: 2"], b"ok"),
    b"/cut": answer(b"200 OK", [b"Content-Length: 100"], b"only ten.."),
}
STEPS = [  # method, path, headers, content
    ("GET", "/plain?x=a%2Fb&y=1,2", [("Accept", "application/json")], None),
    ("POST", "/orders", [("Content-Type", "application/json"), ("X-Name", "Zoë")], b'{"n": 1}'),
    ("POST", "/empty-post", [], None),
    ("PUT", "/a/./b/../c", [("user-agent", "mine"), ("X-A", "1"), ("x-a", "2")], b""),
    ("DELETE", "/q?", [("Cookie", "own=1")], None),
    ("GET", "/..", [], None),
    ("GET", "/bad", [("X-Bad", "a\r\nX-Injected: 1")], None),  # refused by h11's rule, in its words
    ("GET", "/cut", [], None),  # the server closes mid-body
    ("GET", "/login", [], None),  # sets a cookie: the requests after it go the way before
    ("GET", "/plain", [], None),
]


async def _server() -> tuple[asyncio.AbstractServer, str, list[bytes]]:
    return await raw_server(ANSWERS, answer(b"200 OK", [b"Content-Length: 2"], b"ok"), (b"/cut",))


def _exchanges(way: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> tuple:
    written: list[Any] = []
    real = run_client.written

    def counted(*args: Any) -> Any:
        made = real(*args) if way == "written" else None
        if made is not None:
            written.append(made)
        return made

    monkeypatch.setattr(run_client, "written", counted)
    if way == "httpx":  # httpx's own transport over the lean pool: the reference
        monkeypatch.setattr(run_client, "lean_pool", lambda transport: None)

    async def main() -> tuple:
        server, url, received = await _server()
        pool = shared_pool()
        shared = shared_client(5.0, pool)
        client = run_view(shared)
        seen: list[Any] = []
        for method, path, headers, content in STEPS:
            prepared = PreparedRequest(method, url + path, headers, content, RequestView())
            try:
                response = await send(client, prepared, timeout=5.0)
                seen.append((response.status_code, response.headers.items(), response.body, response.content))
            except TransportError as exc:
                seen.append(str(exc).replace(url, "URL"))
        with pytest.raises(httpx.HTTPError) as caught:  # a failure carries its request, made when read
            async with client.stream("GET", url + "/cut") as response:
                await response.aread()
        failure = caught.value
        seen.append(
            (
                type(failure),
                str(failure),
                failure.request.method,
                str(failure.request.url).replace(url, "URL"),
            )
        )
        seen.append(dict(client.cookies))
        await shared.aclose()
        await pool.close_pool()
        server.close()
        port = url.rsplit(":", 1)[1].encode()
        return seen, [r.replace(port, b"PORT") for r in received], url

    with caplog.at_level(logging.INFO, logger="httpx"):
        seen, received, url = asyncio.run(main())
    logged = [r.getMessage().replace(url, "URL") for r in caplog.records if r.name == "httpx"]
    caplog.clear()
    monkeypatch.undo()
    return seen, received, logged, len(written)


def test_a_real_server_receives_and_answers_the_same_either_way(monkeypatch, caplog) -> None:
    direct = _exchanges("written", monkeypatch, caplog)
    before = _exchanges("lean", monkeypatch, caplog)
    reference = _exchanges("httpx", monkeypatch, caplog)
    assert direct[:3] == before[:3] == reference[:3]  # bytes received, answers, failures, cookies, log lines
    assert direct[3] == 8 and before[3] == reference[3] == 0  # written straight: all until the cookie
    seen, received, logged, _ = direct
    assert seen[6] == "LocalProtocolError: Illegal header value b'a\\r\\nX-Injected: 1' (GET URL/bad)"
    assert len(received) == len(STEPS) - 1 + 1  # all but the refused one, and the last stream's
    assert received[0].startswith(b"GET /plain?x=a%2Fb&y=1,2 HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nAccept-")
    assert received[0].endswith(b"\r\nAccept: application/json\r\n\r\n")  # after the defaults it replaces
    assert b"\r\nContent-Length: 0\r\n" in received[2] and received[5].startswith(b"GET / HTTP/1.1\r\n")
    assert received[-2].endswith(b"\r\nCookie: sid=s1\r\n\r\n")
    assert logged[0] == 'HTTP Request: GET URL/plain?x=a%2Fb&y=1,2 "HTTP/1.1 200 OK"'
    assert seen[-2][0] is httpx.RemoteProtocolError and seen[-2][2:] == ("GET", "URL/cut")


@pytest.mark.parametrize(
    "pieces",
    [[], [b"one"], [b"ab", b"cd", b"e"], [b"x" * 6, b"y"], [b"x" * 7], [b"x" * 8], [b"abc", b"defgh"]],
)
def test_a_body_is_read_whole_or_cut_at_the_limit_as_before(pieces) -> None:
    """`transport._read_all` keeps a body of one piece as that piece (no buffer), and any other in a
    buffer: the same bytes, and past the limit (7 bytes here) the same kept prefix."""
    from arazzo_runner.http import transport

    class Raw:
        headers = httpx.Headers({"content-type": "text/plain"})
        is_stream_consumed = False

        async def _pieces(self) -> Any:
            for piece in pieces:
                yield piece

        def aiter_raw(self) -> Any:
            return self._pieces()

    async def read() -> Any:
        try:
            return await transport._read_all(Raw(), 7)  # type: ignore[arg-type]
        except transport._Oversize as over:
            return ("over", over.prefix)

    whole = b"".join(pieces)
    expected = whole if len(whole) <= 7 else ("over", whole[:7])
    got = asyncio.run(read())
    assert got == expected and (type(got) is bytes or type(got[1]) is bytes)


@pytest.mark.parametrize(
    "raw",
    [
        [],
        [(b"Content-Type", b"application/json"), (b"Content-Length", b"9")],
        [(b"X-Dup", b"1"), (b"x-dup", b"2"), (b"Set-Cookie", b"a=1"), (b"X-DUP", b" 3")],
        [(b"X-Name", b"ol\xc3\xa9"), (b"X-Other", b"1")],  # not ASCII: httpx decides how it reads
        [(b"X-Latin", b"caf\xe9")],
    ],
)
def test_a_responses_headers_are_the_engines_as_before(raw) -> None:
    """`transport._headers` fills the engine's Headers from httpx's list directly: the same table as
    `Headers(headers.multi_items())`, names, values, repeats and their order."""
    from arazzo_runner.http import transport
    from arazzo_runner.http.headers import Headers

    headers = httpx.Headers(raw)
    made, before = transport._headers(headers), Headers(headers.multi_items())
    assert made._items == before._items and list(made._items) == list(before._items)
    assert made.items() == before.items() and made.get("x-dup") == before.get("X-Dup")
