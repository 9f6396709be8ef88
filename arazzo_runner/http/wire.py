"""One HTTP/1.1 client connection on an `asyncio.Protocol`, its responses parsed by llhttp (`httptools`),
for the rows' shared pool (`lean_pool.LeanPool`).

Why not httpcore's connection: a cProfile of 3,000 rows at 200 in flight against a server answering in
50 ms put httpcore, h11 and anyio at 30-35% of the engine's CPU a row (~3 ms a row; an aiohttp script
doing the same costs 0.8 ms): anyio's task-group and cancel-scope machinery around every read and write,
h11's pure-Python parsing and state machine, and a `fail_after` per socket call. Here a read is the
event loop calling `data_received` with what arrived, llhttp parsing it in C, and one future woken; a
time limit is one timer per wait.

What it keeps of httpcore's, and how a response is read and when the connection is reused: `wire_read.py`
(shared with the blocking connection). Here: `ConnectError` carrying the OS or TLS error,
`ConnectTimeout`, `ReadTimeout`, `WriteTimeout`; a body is buffered up to `HIGH_WATER` bytes, then reading
pauses until the caller takes it (the engine stops at `--max-response-bytes`). Bytes or a close arriving
while idle mark the connection `lost` (the pool never hands it out), and so do those still in the kernel
when the pool takes it (`readable`: a POST is never sent twice, so it must not go over a connection whose
close the loop has not read).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import sys
import threading
from typing import Any

import httpcore
from httpcore._utils import is_socket_readable
from httpx import ByteStream

from .addresses import numeric_addresses
from .wire_read import MAX_HEAD, NO_ANSWER, ResponseReader, offer_http11
from .wire_request import drain, send_body, write, write_bytes

__all__ = ["HIGH_WATER", "MAX_HEAD", "NO_ANSWER", "Wire"]

HIGH_WATER = 64 * 1024  # body bytes buffered before reading pauses
READ_SIZE = 256 * 1024  # bytes one read may take: asyncio's own for `data_received` (`max_size`)
_READS = threading.local()  # each thread's read buffer (`_read_buffer`): one event loop a thread


class Wire(ResponseReader, asyncio.BufferedProtocol):
    """The connection: `connect`, then per exchange `send` (the request, up to its response head) and
    `next_chunk` until it returns b"" (the body); `reusable` after that; `abort` to close."""

    def __init__(self, key: tuple[bytes, bytes, int], loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(key)
        self.loop = loop
        self.transport: Any = None
        self._socket: Any = None  # for `readable`
        self._waiter: asyncio.Future[bool] | None = None
        self.write_paused = False
        self._reading_paused = False

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
            offer_http11(tls)
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
            elif sys.version_info >= (3, 11):  # no task of its own for the connect (wait_for makes one)
                async with asyncio.timeout(timeout):
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

    def get_buffer(self, sizehint: int) -> memoryview:
        """Where the transport reads into: the thread's one buffer, whose bytes `buffer_updated` copies
        out before anything else can read. Why not `data_received`: asyncio's transport gives it a
        `recv(256 KiB)`, which glibc serves from a fresh mapping each time (mmap, a page fault, an
        mremap to shrink it, and a munmap when the bytes are freed: ~3 system calls a response)."""
        return _read_buffer()

    def buffer_updated(self, nbytes: int) -> None:
        view = _read_buffer()
        data = bytes(view[:nbytes])
        view[:nbytes] = _READS.zeros[:nbytes]  # no response's bytes (a token, a cookie) kept past the read
        self.data_received(data)

    def data_received(self, data: bytes) -> None:
        if not self._in_exchange or self._complete:  # bytes nobody asked for, or past the response
            self._extra = True
            if not self._in_exchange:
                self.abort()
            return
        self._feed(data)
        if self._buffered > HIGH_WATER and not self._reading_paused and self.transport is not None:
            self._reading_paused = True
            self.transport.pause_reading()
        self._wake()

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

    # the exchange

    async def send(self, request: httpcore.Request, timeouts: dict[str, Any]) -> httpcore.Response:
        """Write `request` and read its response's head; the body is read with `next_chunk` (the
        response's stream is left for the caller to set)."""
        head, length = self._start(request)
        try:
            write(self, head)
            stream = request.stream
            if type(stream) is ByteStream:  # bytes (every step's body): written here, `send_body`'s way
                write_bytes(self, stream, length)
                if self.write_paused:
                    await drain(self, timeouts.get("write"))
            else:
                await send_body(self, stream, length, timeouts.get("write"))
        except httpcore.WriteError:
            pass  # as httpcore: a server may close early and still have answered (a 413): read it
        if not self._head_ready():  # `wait` written out: one coroutine less on each resume
            read_timeout = timeouts.get("read")
            loop = self.loop
            while not self._head_ready():
                waiter = self._waiter = loop.create_future()
                timer = None if read_timeout is None else loop.call_later(read_timeout, _expire, waiter)
                try:
                    woken = await waiter
                finally:
                    self._waiter = None
                    if timer is not None:
                        timer.cancel()
                if not woken:
                    cause = TimeoutError()
                    raise httpcore.ReadTimeout(cause) from cause
        return self._response()

    async def next_chunk(self, read_timeout: float | None) -> bytes:
        """The body's next bytes as they arrived, b"" at its end."""
        while (chunk := self._ready_chunk()) is None:
            await self.wait(read_timeout, httpcore.ReadTimeout)
        if self._reading_paused and not self.lost:
            self._reading_paused = False
            self.transport.resume_reading()
        return chunk

    def stop(self, error: BaseException) -> None:
        """End the exchange with `error`, raised to its reader, and close (the pool closing under it)."""
        if self._error is None:
            self._fail(error)
        self._wake()

    def finish(self) -> None:
        super().finish()
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


async def _open(loop: asyncio.AbstractEventLoop, wire: Wire, name: str, port: int, tls: Any) -> None:
    """Connect to each address of `name` in turn; when none answers, the first address's error (asyncio's
    own loop would raise "Multiple exceptions: ..." for a name with an IPv6 and an IPv4 address, where
    the engine says "connection refused" from the OS error it finds under httpcore's)."""
    errors: list[OSError] = []
    addresses = numeric_addresses(name, port)
    if addresses is None:  # a name: the resolver may block, so it runs in the loop's executor (a thread)
        addresses = await loop.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    for family, kind, proto, _, address in addresses:
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


def _read_buffer() -> memoryview:
    """This thread's read buffer, made on its first read (an event loop runs in one thread, and a read
    is copied out of the buffer before the loop does anything else)."""
    try:
        view: memoryview = _READS.view
    except AttributeError:
        view = _READS.view = memoryview(bytearray(READ_SIZE))
        _READS.zeros = memoryview(bytes(READ_SIZE))  # what a read is wiped with once copied out
    return view


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)
