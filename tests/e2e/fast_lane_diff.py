"""The load test's fast lane (`loadtest/locust/fast_http.FastClient`, geventhttpclient) against httpx (the
same user's `FastClient.slow`), request for request: both send the same request through the engine's
`http/transport.send` to one local recording server, which must receive the same bytes, and the engine
must read the same response (status, headers, body, notes) or report the same failure.

Run in a child process (`python -m tests.e2e.fast_lane_diff`): importing the fast lane imports Locust,
which patches the process with gevent (so the server's greenlets and the clients share gevent's hub).
It prints one JSON object: each check's name -> null (it held) or what went wrong
(`test_load_fast_lane_diff.py` asserts each).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import socket
import struct
import sys
import traceback
from collections.abc import Callable
from typing import Any

import gevent
from gevent.server import StreamServer
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import arazzo_runner.loadtest.locust  # noqa: F401 (imports Locust: gevent patches the process)
from arazzo_runner.executor.runtime import drive
from arazzo_runner.http.request import PreparedRequest, RequestView
from arazzo_runner.http.transport import TransportError, send
from arazzo_runner.loadtest.locust.fast_http import FastClient
from tests.servers.faults import read_raw_request

TIMEOUT = 0.4  # the request timeout (seconds): a stalled server costs this much wall time, no CPU
MAX_BODY = 1000  # bytes kept of a body; a larger one is cut (`oversize`)
Behaviour = Callable[[socket.socket], None]
# what each parser says of a malformed response is its own (h11's words, llhttp's): the rest must agree
_MALFORMED = re.compile(r"^(the server sent a malformed response): .* (\([A-Z]+ [^ ]+\))$")


class Recorder:
    """A local server: records each request as it came on the wire, answers with `behaviour`."""

    def __init__(self) -> None:
        self.requests: list[bytes] = []
        self.behaviour: Behaviour = answer(200, [], b"")
        self.server = StreamServer(("127.0.0.1", 0), self._handle)
        self.server.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def _handle(self, sock: socket.socket, _: Any) -> None:
        with sock:
            sock.settimeout(5)
            data = read_raw_request(sock)
            if data is None:
                return
            self.requests.append(data)
            self.behaviour(sock)


def answer(
    status: int, headers: list[tuple[bytes, bytes]], body: bytes, length: int | None = None
) -> Behaviour:
    """A response with these headers (and Content-Length: `length`, else the body's), then close."""

    def behave(sock: socket.socket) -> None:
        lines = [b"HTTP/1.1 %d Whatever" % status, b"Connection: close"]
        lines += [name + b": " + value for name, value in headers]
        lines.append(b"Content-Length: %d" % (len(body) if length is None else length))
        sock.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + body)

    return behave


def chunked(body: bytes) -> Behaviour:
    def behave(sock: socket.socket) -> None:
        parts = [
            b"%x\r\n%s\r\n" % (len(body[at : at + 7]), body[at : at + 7]) for at in range(0, len(body), 7)
        ]
        head = b"HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
        sock.sendall(head + b"".join(parts) + b"0\r\n\r\n")

    return behave


def reset(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def stall(sock: socket.socket) -> None:
    gevent.sleep(TIMEOUT * 2)


def not_http(sock: socket.socket) -> None:
    sock.sendall(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")


# -- one exchange on each lane ----------------------------------------------------------------------


def exchange(client: Any, method: str, url: str, headers: list[tuple[str, str]], body: bytes | None) -> Any:
    """What the engine reads of the exchange: the response's parts, or the failure's message."""
    request = PreparedRequest(method, url, headers, body, RequestView())
    try:
        got = drive(send(client, request, timeout=TIMEOUT, max_body=MAX_BODY))
    except TransportError as exc:
        return ["failed", _MALFORMED.sub(r"\1: (its own words) \2", str(exc))]
    read = [got.status_code, sorted(got.headers.items()), repr(got.body), got.content, got.content_type]
    return [*read, got.notes, got.error, got.oversize]


class Lanes:
    """A fast lane client and another user's httpx client, kept across exchanges (each starts with no
    cookies, as each iteration of a user does)."""

    def __init__(self) -> None:
        self.fast, self.other = FastClient(TIMEOUT), FastClient(TIMEOUT)

    def close(self) -> None:
        drive(self.fast.aclose())
        drive(self.other.aclose())


LANES: list[Lanes] = []


def both(server: Recorder, method: str, url: str, headers: list[tuple[str, str]], body: bytes | None,
         behaviour: Behaviour) -> tuple[bool, list[Any]]:  # fmt: skip
    """Whether the fast lane sent it, and its differences from httpx (none: the same request sent, the
    same response read or failure reported)."""
    if not LANES:
        LANES.append(Lanes())
    lanes = LANES[0]
    lanes.fast.cookies.clear()
    lanes.other.cookies.clear()
    server.behaviour, server.requests = behaviour, []
    before = FastClient.counts["geventhttpclient"]
    fast_read = exchange(lanes.fast, method, url, headers, body)
    took = FastClient.counts["geventhttpclient"] > before
    fast_sent = server.requests
    server.requests = []
    slow_read = exchange(lanes.other.slow, method, url, headers, body)
    slow_sent = server.requests
    differences = []
    if fast_sent != slow_sent:
        differences.append({"fast lane sent": fast_sent, "httpx sent": slow_sent})
    if fast_read != slow_read:
        differences.append({"fast lane read": fast_read, "httpx read": slow_read})
    return took, differences


def same(server: Recorder, method: str, path: str, headers: list[tuple[str, str]], body: bytes | None,
         behaviour: Behaviour, fast: bool = True) -> None:  # fmt: skip
    took, differences = both(server, method, server.url + path, headers, body, behaviour)
    assert not differences, repr(differences)
    assert took == fast, f"{method} {path}: sent on the fast lane: {took}, expected {fast}"


# -- the checks ---------------------------------------------------------------------------------------


def check_defaults_a_step_sets_are_sent_once(server: Recorder) -> None:
    headers = [("Accept", "application/json"), ("User-Agent", "shop/1"), ("Accept-Encoding", "identity"),
               ("Connection", "keep-alive")]  # fmt: skip
    same(server, "GET", "/x", headers, None, answer(200, [], b"{}"))
    server.behaviour, server.requests = answer(200, [], b"{}"), []
    fast = FastClient(TIMEOUT)
    try:
        exchange(fast, "GET", server.url + "/x", headers, None)
    finally:
        drive(fast.aclose())
    head = server.requests[0].split(b"\r\n\r\n")[0].lower().split(b"\r\n")
    for name, _ in headers:
        assert sum(line.startswith(name.lower().encode() + b":") for line in head) == 1, head


def check_patch_without_body(server: Recorder) -> None:
    same(server, "PATCH", "/p", [], None, answer(204, [], b""))
    same(server, "PUT", "/p", [], b"", answer(204, [], b""))


def check_dot_segments(server: Recorder) -> None:
    same(server, "GET", "/a/./b/../c", [], None, answer(200, [], b"ok"), fast=False)


def check_utf8_response_header(server: Recorder) -> None:
    same(server, "GET", "/h", [], None, answer(200, [(b"X-Name", "Zoë".encode())], b""))
    same(server, "GET", "/h", [], None, answer(200, [(b"X-Name", "Zoë".encode("latin-1"))], b""))


def check_a_body_after_a_bodiless_answer(server: Recorder) -> None:
    """A 204 or 304 with a body after it (no server should send one): both read the answer without it."""
    for status in (204, 304):
        same(server, "GET", "/n", [], None, answer(status, [], b'{"ok": true}'))
    same(server, "HEAD", "/n", [], None, answer(200, [], b'{"ok": true}'))


def check_connection_refused(server: Recorder) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}"  # nobody listens there once it is closed
    took, differences = both(server, "POST", url + "/r", [("X-Id", "1")], b"{}", stall)
    assert not differences and took, repr(differences)


def check_connect_timeout(server: Recorder) -> None:
    """A listener whose queue is full drops the SYNs: connecting times out (not refused)."""
    with socket.socket() as full:
        full.bind(("127.0.0.1", 0))
        full.listen(0)
        url = f"http://127.0.0.1:{full.getsockname()[1]}"
        waiting = []
        for _ in range(3):  # fill the accept queue, never accepted
            sock = socket.socket()
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect(full.getsockname())
            waiting.append(sock)
        gevent.sleep(0.05)
        fast = FastClient(TIMEOUT)
        try:
            took, differences = both(server, "GET", url + "/t", [], None, stall)
            read = exchange(fast, "GET", url + "/t", [], None)
        finally:
            drive(fast.aclose())
            for sock in waiting:
                sock.close()
    assert not differences, repr(differences)
    assert took
    assert read[0] == "failed" and "timed out" in read[1] and "connect" in read[1].lower(), read


_METHOD = st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
_TOKEN = st.text("abcxyzABC019-_.~", min_size=1, max_size=6)
_SEGMENT = st.one_of(
    _TOKEN,
    _TOKEN,
    st.sampled_from(["%20", "%C3%A9", "a:b", "@", "x;y", "a!$&'()*+,="]),  # sent as written, on the fast lane
    st.sampled_from([".", "..", "a b", "é", "%", "a|b"]),  # httpx rewrites them: sent through httpx
)
_PATH = st.lists(_SEGMENT, max_size=4).map(lambda parts: "/" + "/".join(parts))
_QUERY = st.one_of(
    st.just(""), st.builds(lambda k, v: f"?{k}={v}", _TOKEN, st.sampled_from(["1", "a b", "é", "x/y"]))
)
_NAME = st.sampled_from(["Accept", "accept", "User-Agent", "Accept-Encoding", "Connection", "X-Trace", "X-Id",
                         "Content-Type", "Authorization"])  # fmt: skip
_VALUE = st.one_of(
    _TOKEN, st.sampled_from(["gzip, deflate", "text/plain; q=0.5", "Zoë", "close", "keep-alive"])
)
_HEADERS = st.lists(st.tuples(_NAME, _VALUE), max_size=4)
_BODY = st.one_of(st.none(), st.binary(max_size=40))
_STATUS = st.sampled_from([200, 201, 204, 301, 304, 404, 500])
_RESPONSE_HEADERS = st.lists(
    st.tuples(st.sampled_from([b"Content-Type", b"X-Name", b"Set-Cookie", b"X-Dup"]),
              st.sampled_from([b"application/json", b"text/plain", "Zo\u00eb".encode(), b"a=1; Path=/",
                               "Zo\u00eb".encode("latin-1"), b"text/event-stream"])),
    max_size=3,
)  # fmt: skip
_JSON = st.sampled_from([b'{"ok": true}', b"[1, 2]", b"{bad", b"", b"x" * 1500, '{"n": "\u00e9"}'.encode()])


@st.composite
def _behaviours(draw: Any) -> tuple[str, Behaviour]:
    kind = draw(st.sampled_from(["answer", "answer", "answer", "gzip", "chunked", "cut", "reset", "stall",
                                 "not http"]))  # fmt: skip
    status, headers, body = draw(_STATUS), draw(_RESPONSE_HEADERS), draw(_JSON)
    if kind == "answer":
        return f"answer {status} {headers} {body[:20]!r}", answer(status, headers, body)
    if kind == "gzip":
        packed = gzip.compress(body)
        return f"gzip {body[:20]!r}", answer(200, [(b"Content-Encoding", b"gzip"), *headers], packed)
    if kind == "chunked":
        return f"chunked {body[:20]!r}", chunked(body)
    if kind == "cut":
        return f"cut {body[:20]!r}", answer(200, headers, body, len(body) + 10)
    return kind, {"reset": reset, "stall": stall, "not http": not_http}[kind]


def check_property(server: Recorder) -> None:
    """Random requests and answers: the same on both lanes, and most of them on the fast lane."""
    fast_ones: list[bool] = []

    @settings(max_examples=60, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(_METHOD, _PATH, _QUERY, _HEADERS, _BODY, _behaviours())
    @example("PATCH", "/p", "", [], None, ("answer", answer(204, [], b"")))
    @example("GET", "/a/./b/../c", "", [], None, ("answer", answer(200, [], b"ok")))
    @example(
        "GET",
        "/h",
        "",
        [("Accept", "text/plain")],
        None,
        ("utf-8", answer(200, [(b"X-Name", "Zoë".encode())], b"")),
    )
    def prop(method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes | None,
             behaviour: tuple[str, Behaviour]) -> None:  # fmt: skip
        took, differences = both(server, method, server.url + path + query, headers, body, behaviour[1])
        assert not differences, f"{method} {path}{query} {headers} {body!r} / {behaviour[0]}: {differences!r}"
        fast_ones.append(took)

    prop()
    # A real share on the fast lane (0 if it stopped being taken). Which requests are drawn follows
    # Hypothesis's engine even derandomized (the same test drew 28 of 63 on one tree, 17 of 63 on the
    # next, each refused one for its URL alone: dot segments, characters httpx escapes), so not a third.
    assert sum(fast_ones) * 4 > len(fast_ones), f"only {sum(fast_ones)} of {len(fast_ones)} on the fast lane"


CHECKS = {name[len("check_") :]: check for name, check in globals().items() if name.startswith("check_")}


def main(names: list[str]) -> None:
    server = Recorder()
    results: dict[str, str | None] = {}
    for name in names or list(CHECKS):
        try:
            CHECKS[name](server)
        except Exception:
            results[name] = traceback.format_exc(limit=-3)
        else:
            results[name] = None
    server.server.stop()
    for lanes in LANES:
        lanes.close()
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])
