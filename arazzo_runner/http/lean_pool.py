"""The connection pool under the clients of many runs (`runtime.PooledRuntime`: the rows of `arazzo run
--inputs-file`, an MCP server's tool calls): HTTP/1.1 keep-alive connections kept per origin, taken and
given back in constant time, however many are in flight.

httpcore's own pool, each time a request starts or a response ends, walks every request waiting and
every connection it holds (`_assign_requests_to_connections`), asks each connection whether it expired,
and makes an `AsyncEvent` and an `AsyncShieldCancellation` per request, each of which detects the async
library with `import sniffio`. At 200 requests in flight that walk is most of a request's CPU (a plain
`httpx.AsyncClient` script: ~6.7 ms a request here, bench/rows_network.py), and it closes idle
connections past `max_keepalive_connections` (20 by default), so most rows would connect again anyway.

Here a request takes the last idle connection of its origin that is still usable (not expired, not
closed by the server: a flag its protocol sets, and one poll of its socket for a close the event
loop has not read yet, as httpcore makes), else opens a new one; when its response
ends or is closed a connection that can carry another request goes back (at most `max_idle` kept, the
oldest closed first), any other is closed. Connections are `wire.Wire` (asyncio and llhttp: httpcore's
own, over h11 and anyio, were a third of a row's CPU), raising httpcore's exceptions, so requests and
failures are those of any httpx client. The number of connections is bounded by the requests in flight
(the caller's `--concurrency` or `max_in_flight`), as with a client per run; there is no pool timeout
since no request waits for a connection.

One retry: a request that fails on a reused connection which the server closed (or reset) before any
byte of the response came (an idle connection it dropped while this one was being written; the close
had not reached the event loop yet) is sent once more on a new connection, when its method is safe
(GET, HEAD, OPTIONS, TRACE: RFC 9110 lets a client repeat them) and its body can be sent again (bytes).
Any other request shows the failure as httpcore would: a POST is never sent twice, since the server may
have read it before closing.
"""

from __future__ import annotations

import ssl
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import httpcore

if TYPE_CHECKING:  # asyncio's, imported with the asyncio pool only: the blocking pool shares the rest
    from .wire import Wire

MAX_IDLE = 512  # keep-alive connections kept open between requests, all origins together
KEEPALIVE_EXPIRY = 5.0  # seconds an idle connection is kept (httpx's default)


class LeanPool:
    """httpcore's pool interface (`handle_async_request`, `aclose`) over per-origin stacks of idle
    connections; put under an `httpx.AsyncHTTPTransport` by `lean_transport`."""

    def __init__(self, ssl_context: ssl.SSLContext | None, max_idle: int = MAX_IDLE) -> None:
        if ssl_context is None:
            from ..sources.tls import default_tls_context

            ssl_context = default_tls_context()
        self._ssl_context = ssl_context
        self._max_idle = max_idle
        # origin -> idle connections, the most recently used last; origins in the order last used
        self._idle: OrderedDict[tuple[bytes, bytes, int], list[Wire]] = OrderedDict()
        self._idle_count = 0
        self._closed = False
        self._active: set[Wire] = set()  # connections in an exchange, closed by `aclose` too
        self._next_sweep = time.monotonic() + KEEPALIVE_EXPIRY

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        key = origin(request.url, self._closed)
        timeouts = request.extensions.get("timeout") or {}
        wire = self._take(key)
        if wire is None:
            wire = await self._connect(key, timeouts)
        try:
            response = await wire.send(request, timeouts)
        except Exception:
            self._drop(wire)
            if not retryable(wire, request):
                raise
            wire = await self._connect(key, timeouts)
            try:
                response = await wire.send(request, timeouts)
            except BaseException:
                self._drop(wire)
                raise
        except BaseException:  # cancelled (the step's own time limit): nothing left open
            self._drop(wire)
            raise
        response.stream = PooledBody(wire, self, timeouts.get("read"))
        return response

    async def _connect(self, key: tuple[bytes, bytes, int], timeouts: dict[str, Any]) -> Wire:
        from .wire import Wire

        wire = await Wire.connect(key, self._ssl_context, timeouts.get("connect"))
        if self._closed:  # while it connected
            wire.abort()
            raise RuntimeError("the connection pool is closed")
        self._active.add(wire)
        return wire

    def _drop(self, wire: Wire) -> None:
        self._active.discard(wire)
        wire.abort()

    def _take(self, origin: tuple[bytes, bytes, int]) -> Wire | None:
        idle = self._idle.get(origin)
        found = None
        if idle:
            now = time.monotonic()
            while idle and found is None:
                wire = idle.pop()
                self._idle_count -= 1
                if not wire.lost and now <= wire.expires and not wire.readable():
                    found = wire
                    self._active.add(wire)
                else:
                    wire.abort()  # expired, or the server closed it
            if not idle and self._idle.get(origin) is idle:
                del self._idle[origin]  # no empty stacks: eviction takes the first origin's oldest
        return found

    def _give_back(self, wire: Wire) -> None:
        self._active.discard(wire)
        wire.finish()
        if self._closed or not wire.reusable():
            wire.abort()
            return
        now = time.monotonic()
        wire.expires = now + KEEPALIVE_EXPIRY
        key = wire.key
        idle = self._idle.get(key)
        if idle is None:
            idle = self._idle[key] = []
        else:
            self._idle.move_to_end(key)
        idle.append(wire)
        self._idle_count += 1
        if self._idle_count > self._max_idle:
            self._evict()
        if now >= self._next_sweep:
            self._sweep(now)

    def _evict(self) -> None:
        """Past `max_idle`: the least recently used origin's oldest connections, closed."""
        while self._idle_count > self._max_idle:
            oldest_origin, oldest = next(iter(self._idle.items()))
            oldest.pop(0).abort()
            self._idle_count -= 1
            if not oldest:
                del self._idle[oldest_origin]

    def _sweep(self, now: float) -> None:
        """Every expiry period, the idle connections of every origin that expired or that the server
        closed, closed: an origin no longer asked would keep them open (CLOSE_WAIT) as long as the
        process, an MCP server or a worker, lives."""
        self._next_sweep = now + KEEPALIVE_EXPIRY
        for origin in list(self._idle):
            idle = self._idle[origin]
            kept = [wire for wire in idle if not wire.lost and now <= wire.expires]
            if len(kept) == len(idle):
                continue
            for wire in idle:
                if wire.lost or now > wire.expires:
                    wire.abort()
            self._idle_count -= len(idle) - len(kept)
            if kept:
                self._idle[origin] = kept
            else:
                del self._idle[origin]

    @property
    def connections(self) -> list[Wire]:
        """The idle connections (for tests)."""
        return [wire for idle in self._idle.values() for wire in idle]

    async def aclose(self) -> None:
        self.close_all()

    def close_all(self) -> None:
        """Every connection closed, idle or in an exchange; no request taken after."""
        self._closed = True
        idle, self._idle, self._idle_count = self._idle, OrderedDict(), 0
        for wires in idle.values():
            for wire in wires:
                wire.abort()
        active, self._active = self._active, set()
        for wire in active:  # as httpcore's pool: a request in flight fails, its connection closed
            wire.stop(httpcore.ReadError("the connection pool was closed"))

    async def __aenter__(self) -> LeanPool:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


_SAFE = frozenset({b"GET", b"HEAD", b"OPTIONS", b"TRACE"})


def origin(url: httpcore.URL, closed: bool) -> tuple[bytes, bytes, int]:
    """The pool's key of `url`: (scheme, host, port); `UnsupportedProtocol` as httpcore's pool raises
    it, RuntimeError when the pool is `closed`."""
    scheme = url.scheme
    if scheme not in (b"http", b"https"):
        raise httpcore.UnsupportedProtocol(f"Request URL has an unsupported protocol '{scheme.decode()}://'.")
    if closed:
        raise RuntimeError("the connection pool is closed")
    return scheme, url.host, url.port or (443 if scheme == b"https" else 80)


def retryable(wire: Any, request: httpcore.Request) -> bool:
    """Whether `request` may be sent again on a new connection: see the module's docstring."""
    if not (wire.exchanges and wire.failed_unanswered and request.method in _SAFE):
        return False
    from httpx import ByteStream

    return isinstance(request.stream, ByteStream)


class PooledBody:
    """A response's body, read from its connection; the connection goes back to the pool at the body's
    end or when it is closed (closed itself when the body was not read to its end)."""

    __slots__ = ("_done", "_pool", "_timeout", "_wire")

    def __init__(self, wire: Any, pool: LeanPool, timeout: float | None) -> None:  # a Wire or BlockingWire
        self._wire, self._pool, self._timeout, self._done = wire, pool, timeout, False

    def __aiter__(self) -> PooledBody:
        return self

    async def __anext__(self) -> bytes:
        if self._done:
            raise StopAsyncIteration
        try:
            chunk = await self._wire.next_chunk(self._timeout)
        except BaseException:
            self._close()
            raise
        if not chunk:
            self._close()
            raise StopAsyncIteration
        return chunk

    async def aclose(self) -> None:
        self._close()

    def arrived(self) -> bytes | None:
        """The whole body when all of it is in the connection's buffer and none was taken (most answers:
        it came with its head), the connection then given back: what `__anext__` gives as one piece
        before its end; None when more is to be read."""
        wire = self._wire
        if self._done or not wire._complete:
            return None
        chunk: bytes = wire._ready_chunk()  # (the body complete: its bytes, b"" for none; never raises)
        self._close()
        return chunk

    def _close(self) -> None:
        if not self._done:
            self._done = True
            self._pool._give_back(self._wire)


def lean_transport(ssl_context: ssl.SSLContext | None, transport_class: Any = None) -> Any:
    """An `httpx.AsyncHTTPTransport` (or `transport_class`, a subclass) whose pool is a `LeanPool`:
    httpx's request and response types and its mapping of httpcore's errors, this pool's choice of
    connection."""
    import httpx

    verify: ssl.SSLContext | bool = True if ssl_context is None else ssl_context  # None: httpcore's default
    transport = (transport_class or httpx.AsyncHTTPTransport)(verify=verify)
    transport._pool = LeanPool(ssl_context)
    return transport
