"""http/fast_request.py builds the run's requests as `client.build_request` does, for less: the same
method, URL, headers (their order too), cookies, body and extensions, compared here request by request
with httpx's own way, and on a real server byte for byte as received."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from arazzo_runner.executor.runtime import drive
from arazzo_runner.http import fast_request, run_client
from arazzo_runner.http.request import PreparedRequest, RequestView
from arazzo_runner.http.run_client import run_view
from arazzo_runner.http.transport import new_client, send, shared_client
from tests.servers.scripted import ScriptedServer

BASE = "http://127.0.0.1:8123"
URLS = [
    f"{BASE}/counter/k1",
    f"{BASE}/pets/a%20b/%2F%3F",  # path parameters escaped by the engine
    f"{BASE}/a/./b/../c/.hidden",  # dot segments
    f"{BASE}/q?x=a%2Fb&y=1,2&z=%E2%9C%93&w=[1]&v=a+b&u=?&t=@:;$!'()*",  # reserved characters
    f"{BASE}/q?",  # an empty query
    f"{BASE}/q?a=%zz&b=%",  # percent signs not escaping anything
    f"{BASE}/",
    "HTTP://LOCALHOST:80/x",  # scheme and host in capitals, the default port
    "http://u:p%40w@127.0.0.1/x",  # user information
    "http://[::1]:8080/x?y=1",  # an IPv6 host
    "https://bücher.example/x",  # an IDNA host
    # parsed by httpx (not taken as they are): these characters are escaped, or are a fragment
    f"{BASE}/a b",
    f"{BASE}/a#frag",
    f"{BASE}/é?q=ü",
    f"{BASE}/a{{b}}|`",
    f"{BASE}?q=1",  # no path
]
HEADERS = [
    [],
    [("Content-Type", "application/json"), ("X-Trace", "t1")],
    [("accept", "text/plain"), ("USER-AGENT", "mine"), ("x-a", "1"), ("X-A", "2")],  # defaults replaced
    [("X-Name", "Zoë".encode())],  # non-ASCII: sent as UTF-8 bytes by the transport
    [("Host", "other.example"), ("Content-Length", "0")],
    [("Cookie", "own=1")],  # the step's own cookie parameters: the jar's are then not added
]


def _same(fast: httpx.Request, reference: httpx.Request) -> None:
    assert fast.method == reference.method
    assert fast.url == reference.url and str(fast.url) == str(reference.url)
    assert fast.url._uri_reference == reference.url._uri_reference
    assert fast.headers.raw == reference.headers.raw  # names as given, values and order
    assert fast.headers._encoding == reference.headers._encoding
    assert fast.extensions == reference.extensions
    assert fast.content == reference.content
    assert type(fast.stream) is type(reference.stream)


def _client(cookies: bool = False) -> httpx.Client:
    client = new_client(5.0, blocking=True).httpx
    if cookies:
        client.cookies.set("sid", "s1", domain="127.0.0.1", path="/")
        client.cookies.set("pref", "dark")
    return client


@pytest.mark.parametrize("cookies", [False, True], ids=["no-cookies", "cookies"])
@pytest.mark.parametrize("headers", HEADERS, ids=range(len(HEADERS)))
def test_each_request_is_the_one_build_request_makes(headers, cookies) -> None:
    client = _client(cookies)
    fast_count = 0
    for url in URLS:
        for method, content in [("GET", None), ("POST", None), ("POST", b'{"a": 1}'), ("PUT", b""),
                                ("PATCH", b"x"), ("PATCH", None), ("DELETE", b"y")]:  # fmt: skip
            for timeout in [httpx.USE_CLIENT_DEFAULT, httpx.Timeout(3.0), 2.5]:
                options = {"headers": headers, "content": content, "timeout": timeout}
                reference = client.build_request(method, url, **options)
                fast = fast_request.build(client, method, url, options)
                if fast is not None:
                    fast_count += 1
                    _same(fast, reference)
                _same(run_client._request(client, method, url, options), reference)
    assert fast_count >= 11 * 6 * 3  # every URL before the ones httpx must parse itself
    client.close()


def test_what_the_fast_way_does_not_build_is_left_to_httpx() -> None:
    client = _client()
    for url in URLS[-5:]:
        assert fast_request.build(client, "GET", url, {}) is None
    assert fast_request.build(client, "GET", httpx.URL(URLS[0]), {}) is None  # not a str
    assert fast_request.build(client, "POST", URLS[0], {"data": {"a": "1"}}) is None  # a form
    assert fast_request.build(client, "POST", URLS[0], {"content": "text"}) is None
    assert fast_request.build(client, "GET", URLS[0], {"headers": [("X", "é")]}) is None
    with pytest.raises(UnicodeEncodeError):  # httpx's own error, as before
        run_client._request(client, "GET", URLS[0], {"headers": [("X", "é")]})
    with pytest.raises(httpx.InvalidURL):
        run_client._request(client, "GET", f"{BASE}/a\nb", {})
    with_params = httpx.Client(params={"p": "1"})
    assert fast_request.build(with_params, "GET", URLS[0], {}) is None  # its query replaces the URL's
    with_params.close()
    client.cookies.set("sid", "Zoë", domain="127.0.0.1", path="/")  # non-ASCII: `_utf8_cookies`
    assert fast_request.build(client, "GET", URLS[0], {}) is None
    assert run_client._request(client, "GET", URLS[0], {}).headers["cookie"] == "sid=Zoë"
    client.close()


def _prepared(method: str, url: str, headers: list, content: bytes | None) -> PreparedRequest:
    return PreparedRequest(method, url, headers, content, RequestView())


REQUESTS = [
    ("GET", "/login", [], None),  # answered with Set-Cookie: sent back by each request after it
    (
        "GET",
        "/pets/a%20b/%2F%3F?x=a%2Fb&y=1,2&z=%E2%9C%93&w=[1]&v=a+b",
        [("Accept", "application/json")],
        None,
    ),
    ("POST", "/orders?dry=true", [("Content-Type", "application/json"), ("X-Name", "Zoë")], b'{"n": 1}'),
    ("POST", "/empty", [], None),
    ("PUT", "/a/./b/../c", [("user-agent", "mine"), ("X-A", "1"), ("x-a", "2")], b""),
    ("DELETE", "/q?", [("Cookie", "own=1")], None),
    ("GET", "/a b#frag", [], None),  # parsed by httpx
]


async def _exchanges(client: object, url: str) -> None:
    for method, path, headers, content in REQUESTS:
        await send(client, _prepared(method, url + path, headers, content), timeout=5.0)  # type: ignore[arg-type]


def _received(kind: str, monkeypatch: pytest.MonkeyPatch, fast: bool) -> list[tuple]:
    built: list[object] = []
    real = fast_request.build

    def counted(*args: object) -> object:
        request = real(*args) if fast else None  # type: ignore[arg-type]
        built.append(request)
        return request

    monkeypatch.setattr(run_client, "build", counted)
    real_written = run_client.written

    def written(*args: object) -> object:  # a request written straight for the lean pool (wire_direct.py)
        request = real_written(*args) if fast else None  # type: ignore[arg-type]
        if request is not None:
            built.append(request)
        return request

    monkeypatch.setattr(run_client, "written", written)
    with ScriptedServer() as server:
        server.reply("GET", "/login", (200, {"ok": True}, {"Set-Cookie": "sid=s1; Path=/"}))
        if kind == "blocking":
            client = new_client(5.0, blocking=True)
            drive(_exchanges(client, server.url))
            drive(client.aclose())
        elif kind == "asyncio":

            async def scenario() -> None:
                client = new_client(5.0)
                await _exchanges(client, server.url)
                await client.aclose()

            asyncio.run(scenario())
        else:  # a run's view of a client shared by many runs, with its own cookie jar

            async def shared() -> None:
                pool = shared_client(5.0, None)
                client = run_view(pool)
                await _exchanges(client, server.url)
                await client.aclose()
                await pool.aclose()

            asyncio.run(shared())
    if fast:  # each request but the one httpx parses was built the fast way
        assert sum(request is not None for request in built) == len(REQUESTS) - 1
    port = server.url.rsplit(":", 1)[1]
    return [
        (r.method, r.path, r.raw_query, [(k, v.replace(port, "PORT")) for k, v in r.raw_headers], r.body)
        for r in server.requests
    ]


@pytest.mark.parametrize("kind", ["blocking", "asyncio", "shared"])
def test_a_real_server_receives_the_same_requests_either_way(kind, monkeypatch) -> None:
    fast = _received(kind, monkeypatch, fast=True)
    reference = _received(kind, monkeypatch, fast=False)
    assert fast == reference
    assert len(fast) == len(REQUESTS)
    sent = {(method, path): headers for method, path, _, headers, _ in fast}
    assert ("Cookie", "sid=s1") in sent[("POST", "/orders")]  # the jar's cookie, set by /login
    assert ("Cookie", "own=1") in sent[("DELETE", "/q")]
    assert ("Content-Length", "0") in sent[("POST", "/empty")]
    assert fast[1][2] == "x=a%2Fb&y=1,2&z=%E2%9C%93&w=[1]&v=a+b"
