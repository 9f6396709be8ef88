"""HTTP for a run that blocks its caller's thread (the blocking runtime, `executor/runtime.py`).

Two parts:

* `BlockingClient`: an `httpx.Client` behind the few `httpx.AsyncClient` calls the engine makes
  (`stream`, `post`, `aclose`), each of which completes before it returns: the engine's one async
  transport code (`transport.send`, the OAuth2 token request) runs on it unchanged, and its awaits never
  suspend. httpx's sync client costs ~0.25 ms less CPU per request than its async one on this stack.
* The network layer under it holds the run's time limits. On asyncio a step's `timeout` and the run's
  deadline cancel the exchange in flight (`asyncio.wait_for`); a blocking call cannot be cancelled, so
  instead every socket operation of the exchange gets at most the time left (`limited`): a read, a write
  (each send), the TLS handshake, each connection attempt. When the limit cuts one short it is marked
  `fired`, so the caller reports the limit (as asyncio's timeout would) and not a read timeout. What no
  socket timeout reaches is the host-name lookup (`getaddrinfo`), bounded by the resolver's own timeouts.

httpcore takes its network backend per connection pool; httpx builds the pools (one per transport: the
client's own and one per proxy from the environment) without a way to pass one, so the client's pools
get theirs after they are built (`bound_client`), checked by a test against the installed httpx.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

_LOG = logging.getLogger("httpx")  # httpx's own logger: the line its client would log for each request


class Unbounded(Exception):
    """The client's transports are not the httpx/httpcore ones the network layer can be put under."""


class Limit:
    """The end of the tightest time limit in force (on `time.monotonic()`); `fired`: it cut an operation."""

    __slots__ = ("end", "fired")

    def __init__(self, end: float) -> None:
        self.end, self.fired = end, False


_LIMIT: ContextVar[Limit | None] = ContextVar("arazzo_runner_exchange_limit", default=None)


@contextmanager
def limited(seconds: float) -> Iterator[Limit]:
    """Every socket operation inside the block ends within `seconds` (or an outer limit, if tighter)."""
    end = time.monotonic() + seconds
    outer = _LIMIT.get()
    limit = Limit(end if outer is None or end < outer.end else outer.end)
    token = _LIMIT.set(limit)
    try:
        yield limit
    finally:
        _LIMIT.reset(token)


def _left(timeout: float | None, expired: type[Exception]) -> tuple[float | None, Limit | None]:
    """The timeout for one operation and the limit that set it (None: its own timeout governs)."""
    limit = _LIMIT.get()
    if limit is None:
        return timeout, None
    left = limit.end - time.monotonic()
    if timeout is not None and timeout < left:
        return timeout, None
    if left <= 0:
        limit.fired = True
        raise expired("the time limit of the exchange passed")
    return left, limit


class _BoundedStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        timeout, limit = _left(timeout, httpcore.ReadTimeout)
        try:
            return self._inner.read(max_bytes, timeout)
        except httpcore.ReadTimeout:
            if limit is not None:
                limit.fired = True
            raise

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer or _LIMIT.get() is None:
            return self._inner.write(buffer, timeout)
        sock = self._inner.get_extra_info("socket")
        if not isinstance(sock, socket.socket):  # TLS in TLS (an https proxy): each send gets the same
            timeout, limit = _left(timeout, httpcore.WriteTimeout)
            try:
                return self._inner.write(buffer, timeout)
            except httpcore.WriteTimeout:
                if limit is not None:
                    limit.fired = True
                raise
        view = memoryview(buffer)  # each send gets the time left (the inner stream gives each the same)
        while view:
            left, limit = _left(timeout, httpcore.WriteTimeout)
            try:
                sock.settimeout(left)
                view = view[sock.send(view) :]
            except TimeoutError as exc:
                if limit is not None:
                    limit.fired = True
                raise httpcore.WriteTimeout(exc) from exc
            except OSError as exc:
                raise httpcore.WriteError(exc) from exc
        return None

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        timeout, limit = _left(timeout, httpcore.ConnectTimeout)
        try:
            return _BoundedStream(self._inner.start_tls(ssl_context, server_hostname, timeout))
        except httpcore.ConnectTimeout:
            if limit is not None:
                limit.fired = True
            raise

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _BoundedBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        timeout, limit = _left(timeout, httpcore.ConnectTimeout)
        try:
            stream = self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        except httpcore.ConnectTimeout:
            if limit is not None:
                limit.fired = True
            raise
        return _BoundedStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        timeout, _ = _left(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bound_client(client: httpx.Client) -> httpx.Client:
    """Put the bounded network layer under every connection pool of `client` (before any connection is
    made); `Unbounded` when a transport is not httpx's own HTTP transport over an httpcore pool."""
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if type(transport) is not httpx.HTTPTransport or not isinstance(backend, httpcore.NetworkBackend):
            raise Unbounded(f"cannot bound the exchanges of {type(transport).__name__}")
        if not isinstance(backend, _BoundedBackend):
            pool._network_backend = _BoundedBackend(backend)  # type: ignore[union-attr]
    return client


def is_bounded(client: httpx.Client) -> bool:
    """Whether every pool of `client` has the bounded network layer (for tests)."""
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    return all(isinstance(t._pool._network_backend, _BoundedBackend) for t in transports)  # type: ignore[attr-defined]


class BlockingClient:
    """An `httpx.Client` behind the async calls the engine makes of its client; each completes at once."""

    def __init__(self, client: httpx.Client) -> None:
        self.sync = client

    def stream(self, method: str, url: str, **options: Any) -> _Exchange:
        return _Exchange(self.sync, method, url, options)

    async def post(self, url: str, **options: Any) -> httpx.Response:
        return self.sync.post(url, **options)

    async def aclose(self) -> None:
        self.sync.close()

    @property
    def is_closed(self) -> bool:
        return self.sync.is_closed

    @property
    def cookies(self) -> httpx.Cookies:
        return self.sync.cookies


class _Exchange:
    """`async with client.stream(...) as response`: the request built by the client (its headers,
    cookies, timeout), sent by the transport it routes the URL to (its own pool, or a proxy's).

    What `Client.send` adds around that is for features the run's client does not have (auth flows,
    redirects followed, event hooks: `new_client` makes it without them), ~45 µs of a ~250 µs
    request here; what the run relies on is kept: the request attached to any error (as httpx's
    `request_context` does: failures name their request), Set-Cookie stored in the client's jar, the
    response closed whatever happens, httpx's log line."""

    __slots__ = ("_client", "_method", "_options", "_response", "_url")

    def __init__(self, client: httpx.Client, method: str, url: str, options: dict[str, Any]) -> None:
        self._client, self._method, self._url, self._options = client, method, url, options
        self._response: httpx.Response | None = None

    async def __aenter__(self) -> _Response:
        client = self._client
        request = client.build_request(self._method, self._url, **self._options)
        try:
            response = client._transport_for_url(request.url).handle_request(request)
        except httpx.RequestError as exc:
            exc.request = request
            raise
        self._response = response
        response.request = request
        try:
            if "set-cookie" in response.headers:
                client.cookies.extract_cookies(response)
            _LOG.info(
                'HTTP Request: %s %s "%s %d %s"',
                request.method,
                request.url,
                response.http_version,
                response.status_code,
                response.reason_phrase,
            )
        except BaseException:
            response.close()
            raise
        return _Response(response)

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._response is not None:
            self._response.close()


class _Response:
    """The sync response with `aiter_bytes` (the only async read the transport makes)."""

    __slots__ = ("_response", "headers", "status_code")

    def __init__(self, response: httpx.Response) -> None:
        self._response, self.headers, self.status_code = response, response.headers, response.status_code

    async def aiter_bytes(self) -> Any:
        for chunk in self._response.iter_bytes():
            yield chunk
