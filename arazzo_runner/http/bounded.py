"""The time limits of a run that blocks its thread, held by the network layer under its HTTP client.

On asyncio a step's `timeout` and the run's deadline cancel the exchange in flight (`asyncio.wait_for`).
A blocking call cannot be cancelled, so instead every socket operation of the exchange gets at most the
time left (`limited`, which the blocking runtime's `within` opens): each connection attempt, the TLS
handshake, each read, each send of a body. When the limit cuts one short it is marked `fired`, so the
caller reports the limit (as asyncio's timeout would), not a read timeout. What no socket timeout
reaches is the host-name lookup (`getaddrinfo`), bounded by the resolver's own timeouts.

httpcore takes its network backend per connection pool; httpx builds the pools (one per transport: the
client's own and one per proxy from the environment) without a way to pass one, so the client's pools
get theirs after they are built (`bound_client`), checked by a test against the installed httpx. The run's
own transport is over `blocking_wire.BlockingPool`, which gives each operation the time left itself.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx


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


def time_left(timeout: float | None, expired: type[Exception]) -> tuple[float | None, Limit | None]:
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


def send_within(sock: Any, data: bytes, timeout: float | None) -> None:
    """`data` sent on `sock`, each send given at most `timeout` or the time left of the limit in force;
    httpcore's `WriteTimeout` (the limit marked when it cut the send) or `WriteError`."""
    view = memoryview(data)
    while view:
        left, limit = time_left(timeout, httpcore.WriteTimeout)
        try:
            sock.settimeout(left)
            view = view[sock.send(view) :]
        except TimeoutError as exc:
            if limit is not None:
                limit.fired = True
            raise httpcore.WriteTimeout(exc) from exc
        except OSError as exc:
            raise httpcore.WriteError(exc) from exc


class _BoundedStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        timeout, limit = time_left(timeout, httpcore.ReadTimeout)
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
            timeout, limit = time_left(timeout, httpcore.WriteTimeout)
            try:
                return self._inner.write(buffer, timeout)
            except httpcore.WriteTimeout:
                if limit is not None:
                    limit.fired = True
                raise
        return send_within(sock, buffer, timeout)  # the inner stream would give each send the same

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        timeout, limit = time_left(timeout, httpcore.ConnectTimeout)
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
        timeout, limit = time_left(timeout, httpcore.ConnectTimeout)
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
        timeout, _ = time_left(timeout, httpcore.ConnectTimeout)
        return _BoundedStream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bound_client(client: httpx.Client) -> httpx.Client:
    """Put the bounded network layer under every connection pool of `client` (before any connection is
    made); `Unbounded` when a transport is not httpx's own HTTP transport over an httpcore pool."""
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        if type(transport) is httpx.HTTPTransport and getattr(pool, "holds_limits", False):
            continue  # the run's own pool (blocking_wire.BlockingPool) gives each operation the time left
        backend = getattr(pool, "_network_backend", None)
        if type(transport) is not httpx.HTTPTransport or not isinstance(backend, httpcore.NetworkBackend):
            raise Unbounded(f"cannot bound the exchanges of {type(transport).__name__}")
        if not isinstance(backend, _BoundedBackend):
            pool._network_backend = _BoundedBackend(backend)  # type: ignore[union-attr]
    return client


def is_bounded(client: httpx.Client) -> bool:
    """Whether every pool of `client` has the bounded network layer (for tests)."""
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    return all(
        getattr(t._pool, "holds_limits", False) or isinstance(t._pool._network_backend, _BoundedBackend)  # type: ignore[attr-defined]
        for t in transports
    )
