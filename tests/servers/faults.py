"""A local fault-injecting HTTP server: real sockets, one scripted behaviour per request.

    with FaultServer() as server:
        server.script("/flaky", storm(503, retry_after="0"), storm(503), reply({"ok": True}))
        ... run a workflow against server.url ...
        assert len(server.hits) == 3

Each request gets its own connection (every response says `Connection: close`), so a behaviour owns
the socket: it may answer, reset, stall, cut the body short or drip it. `script` queues behaviours per
path; the last one repeats. Every request is recorded as a `Hit` (arrival time, bytes sent, when the
client went away). `closed_port_url()` is the refused-connection fault: nobody listens there.

`FAULTS` names every distinct fault this module can inject (the count reported in docs/reliability.md).
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

FAULTS = (
    "connection refused (closed port)",
    "accept, read the request, then reset (RST, SO_LINGER 0)",
    "reset mid-body (headers and part of the body, then RST)",
    "stall before the status line",
    "stall mid-body (Content-Length not reached, connection kept open)",
    "truncated JSON with a matching Content-Length",
    "truncated JSON with a larger Content-Length, then close",
    "invalid JSON under application/json (an HTML error page)",
    "malformed status line (not HTTP)",
    "event stream cut before data: [DONE]",
    "event stream of keep-alive comments that never ends",
    "5xx storm without Retry-After",
    "5xx storm with Retry-After in seconds",
    "5xx storm with Retry-After as an HTTP date",
    "slow drip (one byte per interval)",
    "oversized body streamed without end of interest (multi-MB)",
)


@dataclass
class Hit:
    method: str
    path: str
    at: float  # time.monotonic() when the request had arrived
    sent: int = 0  # body bytes written before the behaviour ended
    gone_at: float | None = None  # when the client closed or reset the connection, if it did


@dataclass
class Conn:
    """One accepted connection, handed to a behaviour."""

    sock: socket.socket
    hit: Hit
    stopping: threading.Event

    def send(self, data: bytes) -> bool:
        """Write `data`; False (and the hit marked) once the client has gone away."""
        try:
            self.sock.sendall(data)
        except OSError:
            self.gone()
            return False
        return True

    def body(self, data: bytes) -> bool:
        sent = self.send(data)
        if sent:
            self.hit.sent += len(data)
        return sent

    def gone(self) -> None:
        if self.hit.gone_at is None:
            self.hit.gone_at = time.monotonic()

    def wait(self, seconds: float | None = None) -> None:
        """Hold the connection open, silent, until the client leaves, the server stops or `seconds` pass."""
        end = None if seconds is None else time.monotonic() + seconds
        while not self.stopping.is_set() and (end is None or time.monotonic() < end):
            if self.client_left(0.02):
                return
        if self.stopping.is_set():  # a client that left as the server was told to stop has still left
            self.client_left(0)

    def client_left(self, timeout: float) -> bool:
        readable, _, _ = select.select([self.sock], [], [], timeout)
        if not readable:
            return False
        try:
            left = self.sock.recv(4096) == b""
        except OSError:
            left = True
        if left:
            self.gone()
        return left

    def reset(self) -> None:
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


Behaviour = Callable[[Conn], None]


def head(status: int, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


_REASONS = {200: "OK", 404: "Not Found", 429: "Too Many Requests", 500: "Server Error", 503: "Unavailable"}

# -- behaviours -------------------------------------------------------------------------------------


def answer(status: int, headers: dict[str, str], data: bytes) -> Behaviour:
    """Send the status line, `headers` and `data` as they are (a Content-Length may lie), then close."""

    def behave(conn: Conn) -> None:
        if conn.send(head(status, headers)):
            conn.body(data)

    return behave


def reply(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Behaviour:
    """A well-formed answer; dict/list bodies as JSON."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    kind = "application/json" if isinstance(body, (dict, list)) else "text/plain"
    return answer(status, {"Content-Type": kind, "Content-Length": str(len(data)), **(headers or {})}, data)


def storm(status: int = 503, retry_after: str | None = None) -> Behaviour:
    """One reply of a 5xx storm, with or without a Retry-After header."""
    return reply({"error": "unavailable"}, status, {"Retry-After": retry_after} if retry_after else None)


def reset() -> Behaviour:
    """Accept and read the request, then abort the connection (TCP RST) without answering."""
    return lambda conn: conn.reset()


def reset_mid_body(prefix: bytes = b'{"items": [1, 2', length: int = 64) -> Behaviour:
    def behave(conn: Conn) -> None:
        headers = {"Content-Type": "application/json", "Content-Length": str(length)}
        if conn.send(head(200, headers)) and conn.body(prefix):
            time.sleep(0.02)  # let the client read what was sent before the RST discards it
            conn.reset()

    return behave


def stall() -> Behaviour:
    """Accept and read the request, then say nothing until the client gives up."""
    return lambda conn: conn.wait()


def stall_mid_body(prefix: bytes = b'{"items": [1, 2', length: int = 64) -> Behaviour:
    def behave(conn: Conn) -> None:
        headers = {"Content-Type": "application/json", "Content-Length": str(length)}
        if conn.send(head(200, headers)) and conn.body(prefix):
            conn.wait()

    return behave


def truncated_json(correct_length: bool) -> Behaviour:
    """A JSON body cut short: its Content-Length matches the short body, or promises more, then close."""
    data = b'{"items": [{"id": 1}, {"id": 2'
    length = len(data) if correct_length else len(data) + 40
    return answer(200, {"Content-Type": "application/json", "Content-Length": str(length)}, data)


def invalid_json() -> Behaviour:
    """A proxy's HTML error page labelled application/json (complete, but not JSON)."""
    data = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    headers = {"Content-Type": "application/json; charset=utf-8", "Content-Length": str(len(data))}
    return answer(200, headers, data)


def not_http() -> Behaviour:
    """Something that is not HTTP answers (another protocol on the port): an illegal status line."""
    banner = b"SSH-2.0-OpenSSH_9.6\r\nInvalid SSH identification string.\r\n\r\n"

    def behave(conn: Conn) -> None:
        conn.send(banner)

    return behave


def sse_cut(events: int = 2) -> Behaviour:
    """A chat-completion event stream that ends (clean close) before `data: [DONE]`."""

    def behave(conn: Conn) -> None:
        if not conn.send(head(200, {"Content-Type": "text/event-stream"})):
            return
        for index in range(events):
            delta = {"index": 0, "delta": {"content": f"part{index} "}}
            chunk = {"object": "chat.completion.chunk", "choices": [delta]}
            if not conn.body(b"data: " + json.dumps(chunk).encode() + b"\n\n"):
                return

    return behave


def sse_keepalive(interval: float = 0.05) -> Behaviour:
    """An event stream that sends a comment every `interval` and never ends: no read ever times out."""

    def behave(conn: Conn) -> None:
        if not conn.send(head(200, {"Content-Type": "text/event-stream"})):
            return
        while not conn.stopping.is_set() and conn.body(b": keep-alive\n\n"):
            if conn.client_left(interval):
                return

    return behave


def drip(data: bytes = b'{"ok": true}', interval: float = 0.1) -> Behaviour:
    """A correct response whose body arrives one byte per `interval`."""

    def behave(conn: Conn) -> None:
        headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
        if not conn.send(head(200, headers)):
            return
        for index in range(len(data)):
            if conn.client_left(interval) or not conn.body(data[index : index + 1]):
                return

    return behave


def big(total: int, content_type: str = "application/octet-stream", chunk: int = 2**16) -> Behaviour:
    """A `total`-byte body streamed in chunks (with its Content-Length); stops when the client leaves."""
    block = b"x" * chunk

    def behave(conn: Conn) -> None:
        if not conn.send(head(200, {"Content-Type": content_type, "Content-Length": str(total)})):
            return
        left = total
        while left > 0 and conn.body(block[: min(chunk, left)]):
            left -= min(chunk, left)

    return behave


def closed_port_url() -> str:
    """An http URL on a local port nobody listens on: connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


# -- the server -------------------------------------------------------------------------------------


@dataclass
class FaultServer:
    hits: list[Hit] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._scripts: dict[str, list[Behaviour]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._listener.settimeout(0.02)
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept_loop, daemon=True)

    def script(self, path: str, *behaviours: Behaviour) -> None:
        """Answer successive requests for `path` with `behaviours` in order; the last one repeats."""
        self._scripts[path] = list(behaviours)

    def hits_for(self, path: str) -> list[Hit]:
        return [hit for hit in self.hits if hit.path == path]

    def __enter__(self) -> FaultServer:
        self._acceptor.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._acceptor.join(2)
        for thread in self._threads:
            thread.join(2)
        self._listener.close()

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, sock: socket.socket) -> None:
        with sock:
            sock.settimeout(5)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            request = _read_request(sock)
            if request is None:
                return
            sock.settimeout(None)
            method, path = request
            hit = Hit(method, path, time.monotonic())
            with self._lock:
                self.hits.append(hit)
                behaviour = self._next(path)
            behaviour(Conn(sock, hit, self._stopping))

    def _next(self, path: str) -> Behaviour:
        queue = self._scripts.get(path)
        if not queue:
            return reply({"error": f"no script for {path}"}, 404)
        return queue.pop(0) if len(queue) > 1 else queue[0]


def _read_request(sock: socket.socket) -> tuple[str, str] | None:
    """(method, path without query) of the request on `sock`, its body read and dropped."""
    data = read_raw_request(sock)
    if data is None:
        return None
    method, target, _ = data.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
    return method, target.split("?", 1)[0]


def read_raw_request(sock: socket.socket) -> bytes | None:
    """The request on `sock` as it came on the wire: its head and its body (by Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = sock.recv(65536)
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    header, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in header.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return header + b"\r\n\r\n" + rest
