"""One HTTP/1.1 client connection on an `asyncio.Protocol`, its responses parsed by llhttp (`httptools`),
for the rows' shared pool (`lean_pool.LeanPool`).

Why not httpcore's connection: a cProfile of 3,000 rows at 200 in flight against a server answering in
50 ms put httpcore, h11 and anyio at 30-35% of the engine's CPU a row (~3 ms a row; an aiohttp script
doing the same costs 0.8 ms): anyio's task-group and cancel-scope machinery around every read and write,
h11's pure-Python parsing and state machine, and a `fail_after` per socket call. Here a read is the
event loop calling `data_received` with what arrived, llhttp parsing it in C, and one future woken; a
time limit is one timer per wait.

What it keeps of httpcore's: the same exceptions, with the same words where the engine shows them
(`ConnectError` and `ReadError` carrying the OS error, `ReadTimeout`, `WriteTimeout`, `ConnectTimeout`,
`RemoteProtocolError("Server disconnected without sending a response.")`, h11's "peer closed connection
without sending complete message body (...)"), the `http_version` and `reason_phrase` extensions, raw
header pairs in order, duplicates kept (values stripped of surrounding blanks, as h11 does). A parser error
is a `RemoteProtocolError` with llhttp's reason. A response head past `MAX_HEAD` bytes (h11's 16 KiB) is
refused before more is read, and so are that many bytes past it ending no chunk-size line and no
trailer field (h11's limit: the engine's byte limit counts only body bytes); a body is buffered up to
`HIGH_WATER` bytes, then reading pauses until the caller takes it (the engine stops at
`--max-response-bytes`).

Reuse (`reusable`): only after a response read to its end, both sides keeping the connection alive, and
not a byte past the response (a body with a HEAD answer, a Content-Length short of the body: the next
request would read them as its answer). A HEAD exchange is never reused: llhttp cannot be told that its
answer has no body, so it would wait for the Content-Length's bytes. 1xx interim answers are skipped; a
101 (switching protocols) is refused. Bytes or a close arriving while idle mark the connection `lost`
(the pool never hands it out), and so do those still in the kernel when the pool takes it (`readable`:
a POST is never sent twice, so it must not go over a connection whose close the loop has not read).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import re
import socket
import ssl
import time
from typing import Any

import httpcore
import httptools
from httpcore._utils import is_socket_readable

from .wire_request import request_head, send_body, write

MAX_HEAD = 16 * 1024  # bytes of a response head (h11's max_incomplete_event_size, httpcore's limit)
HIGH_WATER = 64 * 1024  # body bytes buffered before reading pauses
NO_ANSWER = "Server disconnected without sending a response."  # httpcore's words
_CUT_SHORT = "peer closed connection without sending complete message body"  # h11's
_SWITCHED = "the server switched protocols (101): not supported"
_BLANKS = b" \t"
_ILLEGAL_IN_VALUE = re.compile(rb"[\x00\x0b\x0c\r\n]")  # h11's field_value: no NUL, no blank but SP and HTAB
_STATUS_LINE = re.compile(rb"HTTP/[0-9]\.[0-9] [0-9]{3}(?: [\t\x20-\x7e\x80-\xff]*)?")  # h11's


class Wire(asyncio.Protocol):
    """The connection: `connect`, then per exchange `send` (the request, up to its response head) and
    `next_chunk` until it returns b"" (the body); `reusable` after that; `abort` to close."""

    def __init__(self, key: tuple[bytes, bytes, int], loop: asyncio.AbstractEventLoop) -> None:
        self.key = key
        self.loop = loop
        self.transport: Any = None
        self._socket: Any = None  # for `readable`
        self.lost = False  # closed by either side, or unusable: never handed out again
        self.exchanges = 0  # responses read to their end on it
        self.expires = 0.0  # monotonic time after which it is not reused (idle in the pool)
        self.failed_unanswered = False  # the last exchange failed on a close before any response byte
        self._parser = httptools.HttpResponseParser(self)
        # what h11 reads and strict llhttp refuses: a folded field line (RFC 9112 5.2: a user agent MUST
        # read it as spaces), a bare LF ending a line (2.2: MAY); the bytes h11 refuses in a value
        # are refused in `on_header` (llhttp's leniency lets them through)
        self._parser.set_dangerous_leniencies(lenient_headers=True, lenient_optional_cr_before_lf=True)
        self._waiter: asyncio.Future[bool] | None = None
        self.write_paused = False
        self._reading_paused = False
        self._error: BaseException | None = None  # the exchange's failure, raised to the reader
        self.closed_by: BaseException | None = None  # what connection_lost was given
        self._eof = False
        self._begin(False)

    def _begin(self, in_exchange: bool) -> None:
        self._in_exchange = in_exchange
        self._head = False  # the request's method is HEAD
        self._keep_alive = True  # the request did not say `Connection: close`
        self._server_keep_alive = False  # nor the response (nor HTTP/1.0, nor a close-delimited body)
        self._received = 0  # response bytes of this exchange
        self._head_bytes = 0
        self._stalled = 0  # bytes past the head that moved no chunk, body or end (a trailer, a chunk line)
        self._moved = False
        self._head_done = False
        self._interim = False
        self._reason = b""
        self._headers: list[tuple[bytes, bytes]] = []
        self._status = 0
        self._length: int | None = None  # a Content-Length, else None
        self._chunked = False
        self._until_eof = False  # a close-delimited body
        self._body: collections.deque[bytes] = collections.deque()
        self._buffered = 0
        self._body_received = 0
        self._complete = False
        self._extra = False  # bytes past the response

    @classmethod
    async def connect(cls, key: tuple[bytes, bytes, int], ssl_context: Any, timeout: float | None) -> Wire:
        """A new connection to `key` (scheme, host, port): TCP (TCP_NODELAY, as asyncio sets it), TLS over
        `ssl_context` with the host's name and ALPN http/1.1 for https; `ConnectError` (with the OS or
        TLS error) or `ConnectTimeout` when it cannot be made."""
        loop = asyncio.get_running_loop()
        scheme, host, port = key
        name = host.decode("ascii")
        tls = ssl_context if scheme == b"https" else None
        if tls is not None:
            _alpn(tls)
        wire = cls(key, loop)
        load_trust = getattr(tls, "load_trust", None)  # sources/tls.DeferredTrustContext
        if load_trust is not None:
            try:  # here, not in asyncio's connection_made, where its failure would hang the connect
                load_trust()
            except ssl.SSLError as exc:
                raise httpcore.ConnectError(exc) from exc
        making = _open(loop, wire, name, port, tls)
        try:
            if timeout is None:
                await making
            else:
                await asyncio.wait_for(making, timeout)
        except asyncio.TimeoutError as exc:
            raise httpcore.ConnectTimeout(exc) from exc
        except OSError as exc:  # refused, unresolvable, TLS (ssl.SSLError is an OSError)
            raise httpcore.ConnectError(exc) from exc
        return wire

    # asyncio.Protocol

    def connection_made(self, transport: Any) -> None:
        self.transport = transport  # TCP_NODELAY: asyncio's socket transport sets it
        self._socket = transport.get_extra_info("socket")

    def data_received(self, data: bytes) -> None:
        if not self._in_exchange or self._complete:  # bytes nobody asked for, or past the response
            self._extra = True
            if not self._in_exchange:
                self.abort()
            return
        self._received += len(data)
        in_body = self._head_done
        if not in_body:
            self._head_bytes += len(data)
        self._moved = False
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(httpcore.RemoteProtocolError(_SWITCHED))
        except httptools.HttpParserError as exc:
            if not self._complete:
                self._fail(httpcore.RemoteProtocolError(self._first_line_error(data) or str(exc)))
        if not self._head_done and self._head_bytes > MAX_HEAD and self._error is None:
            self._fail(httpcore.RemoteProtocolError("Receive buffer too long"))
        if in_body:  # a chunk-size line or trailer fields without end: h11's limit too, not read on
            self._stalled = 0 if self._moved else self._stalled + len(data)
            if self._stalled > MAX_HEAD and self._error is None and not self._complete:
                self._fail(httpcore.RemoteProtocolError("Receive buffer too long"))
        self._wake()

    def _first_line_error(self, data: bytes) -> str | None:
        """h11's words for a status line it would not read (what `describe_error` shows with the line):
        llhttp's would be "Expected HTTP/, RTSP/ or ICE/" for an SSH banner. None past the first line."""
        if self._received != len(data) or self._headers or self._reason:
            return None
        line = data.split(b"\n", 1)[0].removesuffix(b"\r")[:1024]
        return None if _STATUS_LINE.fullmatch(line) else f"illegal status line: {line!r}"

    def eof_received(self) -> bool:
        self._eof = True
        self.lost = True
        self._wake()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.closed_by = exc
        self._wake()

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        self._wake()

    # llhttp's callbacks

    def on_message_begin(self) -> None:
        if self._complete or self._head_done:  # another message after this response
            self._extra = True
            raise _PastTheResponse  # stops llhttp: the response read so far stays as it was
        self._reason, self._headers = b"", []

    def on_status(self, status: bytes) -> None:
        self._reason += status

    def on_header(self, name: bytes, value: bytes) -> None:
        if _ILLEGAL_IN_VALUE.search(value) is not None and self._error is None:
            self._fail(httpcore.RemoteProtocolError(f"illegal header line: {name + b': ' + value!r}"))
        if not self._head_done:  # a chunked body's trailer fields are dropped, as httpcore drops them
            self._headers.append((name, value.strip(_BLANKS)))

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if 100 <= status < 200:
            self._interim = True  # skipped: its message_complete follows at once
            if status == 101:
                self._fail(httpcore.RemoteProtocolError(_SWITCHED))
            return
        self._status, self._head_done = status, True
        self._server_keep_alive = self._parser.should_keep_alive()  # reset at the message's end
        for name, value in self._headers:
            lower = name.lower()
            if lower == b"content-length" and value.isdigit():
                self._length = int(value)
            elif lower == b"transfer-encoding":
                self._chunked = b"chunked" in value.lower()
        bodiless = self._head or status in (204, 304)
        self._until_eof = not (bodiless or self._chunked or self._length is not None)
        if self._head:
            self._complete = True  # llhttp would wait for the Content-Length's bytes

    def on_chunk_header(self) -> None:
        self._moved = True

    def on_chunk_complete(self) -> None:
        self._moved = True

    def on_body(self, body: bytes) -> None:
        self._moved = True
        if self._complete:  # a body with a HEAD answer
            self._extra = True
            return
        self._body.append(body)
        self._buffered += len(body)
        self._body_received += len(body)
        if self._buffered > HIGH_WATER and not self._reading_paused and self.transport is not None:
            self._reading_paused = True
            self.transport.pause_reading()

    def on_message_complete(self) -> None:
        self._moved = True
        if self._interim:
            self._interim = False
            self._head_bytes = 0
            return
        self._complete = True

    # the exchange

    async def send(self, request: httpcore.Request, timeouts: dict[str, Any]) -> httpcore.Response:
        """Write `request` and read its response's head; the body is read with `next_chunk` (the
        response's stream is left for the caller to set)."""
        self._begin(True)
        self.failed_unanswered = False
        read_timeout = timeouts.get("read")
        self._head = request.method == b"HEAD"
        head, length, self._keep_alive = request_head(request)
        try:
            write(self, head)
            await send_body(self, request.stream, length, timeouts.get("write"))
        except httpcore.WriteError:
            pass  # as httpcore: a server may close early and still have answered (a 413): read it
        while not self._head_done:
            self._raise_if_failed()
            if self.lost:
                self._raise_lost()
            await self.wait(read_timeout, httpcore.ReadTimeout)
        self._raise_if_failed()  # a field refused in the packet that ended the head
        version = self._parser.get_http_version()
        extensions = {"http_version": b"HTTP/1.1" if version == "1.1" else b"HTTP/" + version.encode(),
                      "reason_phrase": self._reason}  # fmt: skip
        response = httpcore.Response(self._status, extensions=extensions)
        response.headers = self._headers  # bytes pairs already: not checked again one by one
        return response

    async def next_chunk(self, read_timeout: float | None) -> bytes:
        """The body's next bytes as they arrived, b"" at its end."""
        while True:
            if self._body:
                chunk = self._body.popleft() if len(self._body) == 1 else b"".join(self._body)
                self._body.clear()
                self._buffered = 0
                if self._reading_paused and not self.lost:
                    self._reading_paused = False
                    self.transport.resume_reading()
                return chunk
            if self._complete:
                return b""
            self._raise_if_failed()
            if self.lost:
                if self._until_eof and (self._eof or self.closed_by is None):  # a close ends it
                    self._complete = True
                    return b""
                self._raise_lost()
            await self.wait(read_timeout, httpcore.ReadTimeout)

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error

    def _raise_lost(self) -> None:
        cause = self.closed_by
        if cause is not None and not self._eof:  # reset, or a TLS failure
            self.failed_unanswered = self._received == 0
            raise httpcore.ReadError(cause) from cause
        if not self._head_done:
            self.failed_unanswered = self._received == 0
            raise httpcore.RemoteProtocolError(NO_ANSWER)
        if self._chunked:
            raise httpcore.RemoteProtocolError(f"{_CUT_SHORT} (incomplete chunked read)")
        raise httpcore.RemoteProtocolError(
            f"{_CUT_SHORT} (received {self._body_received} bytes, expected {self._length})"
        )

    def _fail(self, error: BaseException) -> None:
        self._error = error
        self.abort()

    def stop(self, error: BaseException) -> None:
        """End the exchange with `error`, raised to its reader, and close (the pool closing under it)."""
        if self._error is None:
            self._fail(error)
        self._wake()

    def reusable(self) -> bool:
        """Whether another request can go over it: see the module's docstring."""
        return (self._complete and not self._extra and not self.lost and not self._head
                and self._keep_alive and self._server_keep_alive)  # fmt: skip

    def finish(self) -> None:
        """The exchange is over (its body read or abandoned)."""
        if self._complete:
            self.exchanges += 1
        self._in_exchange = False
        self._body.clear()  # a body closed unread: its buffer let go, and reading on again (if paused)
        self._buffered = 0
        if self._reading_paused:  # else the next exchange would never read its answer, nor a close
            self._reading_paused = False
            if not self.lost:
                self.transport.resume_reading()

    async def wait(self, timeout: float | None, timed_out: type[Exception]) -> None:
        """Until something happens on the connection (bytes, a close, room to write), at most `timeout`
        seconds: `timed_out` after them."""
        waiter = self.loop.create_future()
        self._waiter = waiter
        timer = None if timeout is None else self.loop.call_later(timeout, _expire, waiter)
        try:
            woken = await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()
        if not woken:
            cause = TimeoutError()
            raise timed_out(cause) from cause

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(True)

    def abort(self) -> None:
        """Close at once (a failure, a cancellation, a connection not to be reused)."""
        self.lost = True
        if self.transport is not None:
            self.transport.abort()

    def readable(self) -> bool:
        """Whether bytes or a close wait on the idle socket that the event loop has not delivered yet
        (it has not run since: a busy loop): httpcore's own check before reusing a connection (one poll;
        `select` where there is no poll, as on Windows), as `readable.py` uses it."""
        return is_socket_readable(self._socket)

    def has_expired(self) -> bool:
        """Whether it can no longer be handed out (for the pool's sweep and tests)."""
        return self.lost or time.monotonic() > self.expires


async def _open(loop: asyncio.AbstractEventLoop, wire: Wire, name: str, port: int, tls: Any) -> None:
    """Connect to each address of `name` in turn; when none answers, the first address's error (asyncio's
    own loop would raise "Multiple exceptions: ..." for a name with an IPv6 and an IPv4 address, where
    the engine says "connection refused" from the OS error it finds under httpcore's)."""
    errors: list[OSError] = []
    for family, kind, proto, _, address in await loop.getaddrinfo(name, port, type=socket.SOCK_STREAM):
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, address)
        except OSError as exc:
            sock.close()
            errors.append(exc)
            continue
        except BaseException:
            sock.close()
            raise
        try:
            hostname = name if tls is not None else None
            await loop.create_connection(lambda: wire, sock=sock, ssl=tls, server_hostname=hostname)
        except BaseException:
            sock.close()
            raise
        return
    raise errors[0] if errors else OSError(f"no address for {name}")


class _PastTheResponse(Exception):
    """Raised in llhttp's callback when bytes follow the response: parsing stops there."""


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)


def _alpn(context: Any) -> None:
    """Offer http/1.1 by ALPN, as httpcore does on each new connection."""
    with contextlib.suppress(NotImplementedError):  # an OpenSSL without ALPN
        context.set_alpn_protocols(["http/1.1"])
