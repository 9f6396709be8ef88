"""The asyncio connection pools' check of an idle connection, made cheap.

httpcore's pool, each time a request starts or a response ends, asks every HTTP/1.1 connection whether it
has expired; for an idle one that is whether its socket is readable (a server-initiated close). Through
anyio that question builds the stream's whole typed-attribute table first: ~40 µs a connection a time,
which with ten connections in flight (`--parallel 10`, an `x-forEach` loop, an MCP server's calls) was
~1 ms of CPU a request (bench/graph.py). Here each stream finds its socket once, when it is made, and
answers with the same readability check httpcore makes (`is_socket_readable`); every other question
goes to the stream as before. `readable_pools(client)` puts this under an `AsyncClient`'s httpcore pools
(those of the environment's proxies: its own transport is over `lean_pool`) before it makes a
connection (as `bounded.py` does for the blocking client's time limits).
"""

from __future__ import annotations

from typing import Any

import httpcore
import httpx
from httpcore._utils import is_socket_readable


class _Stream(httpcore.AsyncNetworkStream):
    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self._socket = inner.get_extra_info("socket")  # the raw socket, under TLS too

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        return _Stream(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable" and self._socket is not None:
            return is_socket_readable(self._socket)
        return self._inner.get_extra_info(info)


class _Backend(httpcore.AsyncNetworkBackend):
    def __init__(self, inner: httpcore.AsyncNetworkBackend) -> None:
        self._inner = inner

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.AsyncNetworkStream:
        return _Stream(await self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.AsyncNetworkStream:
        return _Stream(await self._inner.connect_unix_socket(path, timeout, socket_options))

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def readable_pools(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """Put the cheap readability check under every httpcore pool of `client` (its own transport and
    those of the environment's proxies); a transport that is not httpx's own is left as it is."""
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    for transport in transports:
        readable_transport(transport)
    return client


def readable_transport(transport: Any) -> Any:
    """The same for one transport (`AsyncHTTPTransport`), returned."""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    ours = isinstance(transport, httpx.AsyncHTTPTransport)
    if ours and isinstance(backend, httpcore.AsyncNetworkBackend) and not isinstance(backend, _Backend):
        pool._network_backend = _Backend(backend)  # type: ignore[union-attr]
    return transport


def is_readable_pooled(client: httpx.AsyncClient) -> bool:
    """Whether every pool of `client` has it (for tests)."""
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    pools = [t._pool for t in transports]  # type: ignore[attr-defined]
    # the lean pool's connections are the event loop's own: a close sets a flag, nothing to check
    return all(
        isinstance(getattr(p, "_network_backend", None), _Backend)
        for p in pools
        if hasattr(p, "_network_backend")
    )
