"""`arazzo mcp --transport http` against a hostile web page and a greedy client (issue 23, points 1, 8,
10): raw HTTP requests over real sockets to a real `arazzo mcp` process, the tools' API a real local
server that records what reached it.

- DNS rebinding: a page of `attacker.example`, whose name was made to resolve to the loopback address
  the server listens on, sends `Host: attacker.example:PORT` and its own `Origin`. On every loopback
  address however spelled (127.0.0.1, 127.0.0.2, `::1`, `[::1]`, `localhost`) it is refused (421 / 403)
  before the protocol starts, and the API behind the tools receives nothing; the address's own
  spellings and `--allowed-host` names are served.
- Sessions: at most `--max-sessions` are open; one more closes the one idle the longest, never one
  serving a request; idle ones expire after `--session-idle-timeout`.
- The bearer scheme is read case-insensitively (RFC 9110).
"""

from __future__ import annotations

import http.client
import json
import threading

import pytest

from tests.e2e.agentkit import TOKEN, serve_shop, write_shop
from tests.e2e.test_mcp import http_process
from tests.servers.scripted import ScriptedServer
from tests.untested import not_installed

pytest.importorskip("mcp", reason=not_installed("mcp", "`arazzo mcp` (the MCP server)"))

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
CALL = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "pet_details", "arguments": {"petId": 3}},
}


@pytest.fixture
def shop(tmp_path):
    with ScriptedServer() as server:
        serve_shop(server)
        yield write_shop(tmp_path), server


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def message(self) -> dict:
        """The JSON-RPC message of a JSON or event-stream answer."""
        text = self.body.decode()
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
        return json.loads(text)


def address_of(url: str) -> tuple[str, int]:
    authority = url.split("/")[2]
    host, _, port = authority.rpartition(":")
    return host.strip("[]"), int(port)


def post(
    url: str, message: dict, *, host: str | None = None, origin: str | None = None, **headers: str
) -> Answer:
    """POST `message` to the server at `url` over a raw connection, with exactly the `Host` (and
    `Origin`) given: what a browser sends for a page of that name."""
    address, port = address_of(url)
    connection = http.client.HTTPConnection(address, port, timeout=60)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        sent = {
            "Host": host or url.split("/")[2],
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **({"Origin": origin} if origin else {}),
            **{name.replace("_", "-"): value for name, value in headers.items()},
        }
        body = json.dumps(message).encode()
        sent["Content-Length"] = str(len(body))
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def session(url: str, **headers: str) -> str:
    """Initialize a session as a client would; its id."""
    opened = post(url, INITIALIZE, **headers)
    assert opened.status == 200, opened.body
    sid = opened.headers["mcp-session-id"]
    assert post(url, INITIALIZED, mcp_session_id=sid, mcp_protocol_version="2025-06-18").status == 202
    return sid


def in_session(url: str, sid: str, message: dict, **headers: str) -> Answer:
    return post(url, message, mcp_session_id=sid, mcp_protocol_version="2025-06-18", **headers)


@pytest.mark.parametrize("bind", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_a_rebound_name_is_refused_on_every_loopback_address(shop, bind):
    path, server = shop
    with http_process(path, server, "--host", bind) as (url, first):
        assert "loopback only, no token" in first
        port = address_of(url)[1]
        forged_host, forged_origin = f"attacker.example:{port}", f"http://attacker.example:{port}"
        for message in (INITIALIZE, LIST, CALL):
            refused = post(url, message, host=forged_host, origin=forged_origin)
            assert refused.status == 421, (bind, message["method"], refused.status, refused.body)
            assert b"does not answer to the host 'attacker.example:" in refused.body
        # the server's own name, but a request from another site's page
        refused = post(url, INITIALIZE, origin=forged_origin)
        assert refused.status == 403 and b"attacker.example" in refused.body
        # its own spellings are served; a tool call then reaches the API
        sid = session(url, origin=f"http://{url.split('/')[2]}")
        called = in_session(url, sid, CALL)
        assert called.status == 200 and called.message()["result"]["isError"] is False
    assert [r.path for r in server.requests] == ["/pets/3"]
    assert server.requests[0].headers["authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize(
    ("bind", "also"),
    [
        ("127.0.0.1", "localhost"),
        ("localhost", "127.0.0.1"),
        ("::1", "localhost"),
        ("::1", "[0:0:0:0:0:0:0:1]"),
    ],
)
def test_an_address_s_other_spellings_are_its_own(shop, bind, also):
    path, server = shop
    with http_process(path, server, "--host", bind) as (url, _):
        port = address_of(url)[1]
        assert post(url, INITIALIZE, host=f"{also}:{port}", origin=f"http://{also}:{port}").status == 200
        # 127.0.0.2 is not `localhost`, nor is 127.0.0.1 another loopback address
        other = "127.0.0.2" if bind != "localhost" else "127.0.0.3"
        assert post(url, INITIALIZE, host=f"{other}:{port}").status == 421
        assert post(url, INITIALIZE, host=f"{also}:{port + 1}").status == 421  # another port: another origin


def test_allowed_host_adds_a_name(shop):
    path, server = shop
    with http_process(
        path,
        server,
        "--host",
        "127.0.0.2",
        "--allowed-host",
        "mcp.internal",
        "--allowed-host",
        "proxy.lan:443",
    ) as (url, _):
        port = address_of(url)[1]
        assert (
            post(url, INITIALIZE, host=f"mcp.internal:{port}", origin=f"http://mcp.internal:{port}").status
            == 200
        )
        assert post(url, INITIALIZE, host="proxy.lan:443", origin="https://proxy.lan:443").status == 200
        assert post(url, INITIALIZE, host=f"proxy.lan:{port}").status == 421
        assert post(url, INITIALIZE, host=f"attacker.example:{port}").status == 421


def test_a_non_loopback_address_still_needs_the_token(shop):
    path, server = shop
    secret = "mcp-token-77c1e0d2"
    with http_process(path, server, "--host", "0.0.0.0", env={"ARAZZO_MCP_TOKEN": secret}) as (url, _):
        local = url.replace("0.0.0.0", "127.0.0.1")
        assert post(local, INITIALIZE).status == 401
        for scheme in ("Bearer", "bearer", "BEARER", "bEaReR"):  # RFC 9110: the scheme is case-insensitive
            opened = post(local, INITIALIZE, Authorization=f"{scheme} {secret}")
            assert opened.status == 200, (scheme, opened.body)
        for wrong in (f"Basic {secret}", f"Bearer {secret}x", secret, f"Bearer{secret}"):
            assert post(local, INITIALIZE, Authorization=wrong).status == 401, wrong
    assert server.requests == []


def test_sessions_are_bounded_the_longest_idle_closed_first(shop):
    path, server = shop
    with http_process(path, server, "--max-sessions", "3") as (url, _):
        first, second, third = session(url), session(url), session(url)
        assert in_session(url, first, LIST).status == 200  # the first is now idle the shortest
        fourth = session(url)  # closes the second: idle the longest
        assert in_session(url, second, LIST).status == 404
        for sid in (third, fourth, first):  # the third is now idle the longest
            assert in_session(url, sid, LIST).status == 200
        fifth = session(url)  # closes the third
        assert in_session(url, third, LIST).status == 404
        assert [in_session(url, sid, LIST).status for sid in (first, fourth, fifth)] == [200] * 3


def test_a_session_serving_a_request_is_never_closed_to_make_room(shop):
    """Sessions holding a GET stream open are busy: with every one busy, a new session is refused (503)."""
    path, server = shop
    with http_process(path, server, "--max-sessions", "2") as (url, _):
        busy = [session(url), session(url)]
        streams = [_open_stream(url, sid) for sid in busy]
        try:
            refused = post(url, INITIALIZE)
            assert refused.status == 503, refused.body
            assert "too many open sessions: 2, none idle" in refused.message()["error"]["message"]
            assert [in_session(url, sid, LIST).status for sid in busy] == [200, 200]
        finally:
            for stream in streams:
                stream.close()
        # once a stream is closed its session is idle again, and may be closed for a new one
        assert _eventually(lambda: post(url, INITIALIZE).status == 200)


def test_an_idle_session_expires(shop):
    path, server = shop
    with http_process(path, server, "--session-idle-timeout", "0.5") as (url, _):
        sid = session(url)
        # each look is a request, which makes the session active again: look less and less often
        waits = [0.5 * 2**n for n in range(8)]
        assert any(threading.Event().wait(w) or in_session(url, sid, LIST).status == 404 for w in waits)
        assert in_session(url, session(url), LIST).status == 200


def test_at_most_max_sessions_are_open_after_many_initializes(shop):
    path, server = shop
    with http_process(path, server, "--max-sessions", "5") as (url, _):
        opened = [session(url) for _ in range(40)]
        statuses = [in_session(url, sid, LIST).status for sid in opened]
    assert statuses == [404] * 35 + [200] * 5


def _open_stream(url: str, sid: str) -> http.client.HTTPConnection:
    """A GET event stream held open on session `sid` (the connection; close it to end the stream)."""
    address, port = address_of(url)
    connection = http.client.HTTPConnection(address, port, timeout=60)
    connection.request(
        "GET",
        "/mcp",
        headers={"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"},
    )
    response = connection.getresponse()
    assert response.status == 200
    return connection


def _eventually(check, attempts: int = 600) -> bool:
    """`check()` polled until it holds (a bound on tries, not on time: 0.1 s apart)."""
    stop = threading.Event()
    for _ in range(attempts):
        if check():
            return True
        stop.wait(0.1)
    return False
