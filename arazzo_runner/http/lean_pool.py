"""The connection pool under the clients of many runs (`runtime.PooledRuntime`: the rows of `arazzo run
--inputs-file`, an MCP server's tool calls): HTTP/1.1 keep-alive connections kept per origin, taken and
given back in constant time, however many are in flight.

httpcore's own pool, each time a request starts or a response ends, walks every request waiting and
every connection it holds (`_assign_requests_to_connections`), asks each connection whether it expired,
and makes an `AsyncEvent` and an `AsyncShieldCancellation` per request, each of which detects the async
library with `import sniffio`. At 200 requests in flight that walk is most of a request's CPU (a plain
`httpx.AsyncClient` script: ~6.7 ms a request here, bench/rows_network.py), and it closes idle
connections past `max_keepalive_connections` (20 by default), so most rows would connect again anyway.

Here a request takes the last idle connection of its origin that is still usable (not expired, its
socket not readable: the server did not close it), else opens a new one; when its response is closed a
connection that can carry another request goes back (at most `max_idle` kept, the oldest closed first),
any other is closed. Connections are httpcore's own (`AsyncHTTPConnection`: connecting, TLS, HTTP/1.1),
so requests and failures are those of any httpx client; only the choice of connection differs. The number
of connections is bounded by the requests in flight (the caller's `--concurrency` or `max_in_flight`),
as with a client per run; there is no pool timeout since no request waits for a connection.
"""

from __future__ import annotations

import ssl
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

import httpcore

from .readable import _Backend

MAX_IDLE = 512  # keep-alive connections kept open between requests, all origins together
KEEPALIVE_EXPIRY = 5.0  # seconds an idle connection is kept (httpx's default)


class LeanPool:
    """httpcore's pool interface (`handle_async_request`, `aclose`) over per-origin stacks of idle
    connections; put under an `httpx.AsyncHTTPTransport` by `lean_transport`."""

    def __init__(self, ssl_context: ssl.SSLContext | None, max_idle: int = MAX_IDLE) -> None:
        self._ssl_context = ssl_context
        self._max_idle = max_idle
        self._backend = _Backend(httpcore.AnyIOBackend())
        # origin -> idle connections, the most recently used last; origins in the order last used
        self._idle: OrderedDict[Any, list[httpcore.AsyncHTTPConnection]] = OrderedDict()
        self._idle_count = 0
        self._closed = False
        self._next_sweep = time.monotonic() + KEEPALIVE_EXPIRY

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        scheme = request.url.scheme
        if scheme not in (b"http", b"https"):
            raise httpcore.UnsupportedProtocol(
                f"Request URL has an unsupported protocol '{scheme.decode()}://'."
            )
        if self._closed:
            raise RuntimeError("the connection pool is closed")
        origin = request.url.origin
        connection = await self._take(_key(origin))
        if connection is None:
            connection = httpcore.AsyncHTTPConnection(
                origin,
                ssl_context=self._ssl_context,
                keepalive_expiry=KEEPALIVE_EXPIRY,
                network_backend=self._backend,
            )
        try:
            response = await connection.handle_async_request(request)
        except BaseException:
            await connection.aclose()  # httpcore closed it already when the exchange broke off
            raise
        stream = _Returning(response.stream, connection, self)
        return httpcore.Response(response.status, headers=response.headers, content=stream,
                                 extensions=response.extensions)  # fmt: skip

    async def _take(self, origin: Any) -> httpcore.AsyncHTTPConnection | None:
        idle = self._idle.get(origin)
        found = None
        while idle and found is None:
            connection = idle.pop()
            self._idle_count -= 1
            if connection.is_idle() and not connection.has_expired():
                found = connection
            else:
                await connection.aclose()  # expired, or the server closed it
        if idle is not None and not idle and self._idle.get(origin) is idle:
            del self._idle[origin]  # no empty stacks: eviction takes the first origin's oldest
        return found

    async def _give_back(self, connection: httpcore.AsyncHTTPConnection) -> None:
        if self._closed or not connection.is_idle() or _unread(connection):
            await connection.aclose()
            return
        key = _key(connection._origin)
        idle = self._idle.get(key)
        if idle is None:
            idle = self._idle[key] = []
        self._idle.move_to_end(key)
        idle.append(connection)
        self._idle_count += 1
        # Closed after the pool's state is settled (an `await` lets other requests in between).
        closing = self._evicted() + self._expired()
        for stale in closing:
            await stale.aclose()

    def _evicted(self) -> list[httpcore.AsyncHTTPConnection]:
        """Past `max_idle`: the least recently used origin's oldest connections, taken out."""
        out = []
        while self._idle_count > self._max_idle:
            oldest_origin, oldest = next(iter(self._idle.items()))
            out.append(oldest.pop(0))
            self._idle_count -= 1
            if not oldest:
                del self._idle[oldest_origin]
        return out

    def _expired(self) -> list[httpcore.AsyncHTTPConnection]:
        """Every expiry period, the idle connections of every origin that expired or that the server
        closed, taken out: an origin no longer asked would keep them open (CLOSE_WAIT) as long as the
        process, an MCP server or a worker, lives."""
        now = time.monotonic()
        if now < self._next_sweep:
            return []
        self._next_sweep = now + KEEPALIVE_EXPIRY
        out = []
        for origin in list(self._idle):
            idle = self._idle[origin]
            kept: list[httpcore.AsyncHTTPConnection] = []
            gone: list[httpcore.AsyncHTTPConnection] = []
            for connection in idle:
                (kept if connection.is_idle() and not connection.has_expired() else gone).append(connection)
            if gone:
                out.extend(gone)
                self._idle_count -= len(gone)
                if kept:
                    self._idle[origin] = kept
                else:
                    del self._idle[origin]
        return out

    @property
    def connections(self) -> list[httpcore.AsyncHTTPConnection]:
        """The idle connections (for tests)."""
        return [connection for idle in self._idle.values() for connection in idle]

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle, self._idle_count = self._idle, OrderedDict(), 0
        for connections in idle.values():
            for connection in connections:
                await connection.aclose()

    async def __aenter__(self) -> LeanPool:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


def _unread(connection: httpcore.AsyncHTTPConnection) -> bool:
    """Whether the server sent more than the response (a body with a HEAD answer, a 204 or 304, or a
    Content-Length short of the body): h11 holds those bytes, and would read them as the start of the
    next response on this connection, which would be another run's (a row's leftover, its answer)."""
    http11 = getattr(connection, "_connection", None)
    state = getattr(http11, "_h11_state", None)
    if state is None:
        return False
    data, closed = state.trailing_data
    return bool(data) or closed


def _key(origin: httpcore.Origin) -> tuple[bytes, bytes, int]:
    return origin.scheme, origin.host, origin.port


class _Returning:
    """A response's body stream that gives its connection back to the pool when it is closed."""

    __slots__ = ("_closed", "_connection", "_pool", "_stream")

    def __init__(self, stream: Any, connection: httpcore.AsyncHTTPConnection, pool: LeanPool) -> None:
        self._stream, self._connection, self._pool, self._closed = stream, connection, pool, False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for part in self._stream:
                yield part
        except BaseException:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                await self._stream.aclose()
            finally:
                await self._pool._give_back(self._connection)


def lean_transport(ssl_context: ssl.SSLContext | None, transport_class: Any = None) -> Any:
    """An `httpx.AsyncHTTPTransport` (or `transport_class`, a subclass) whose pool is a `LeanPool`:
    httpx's request and response types and its mapping of httpcore's errors, this pool's choice of
    connection."""
    import httpx

    verify: ssl.SSLContext | bool = True if ssl_context is None else ssl_context  # None: httpcore's default
    transport = (transport_class or httpx.AsyncHTTPTransport)(verify=verify)
    transport._pool = LeanPool(ssl_context)
    return transport
