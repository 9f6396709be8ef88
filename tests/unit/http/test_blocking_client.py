"""The blocking run's HTTP client (http/blocking.py): every connection pool it has, proxies from the
environment included, runs on the bounded network layer; what it cannot bound it refuses."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading

import httpcore
import httpx
import pytest
from httpcore._backends.sync import SyncStream

from arazzo_runner.http import blocking
from arazzo_runner.http.transport import new_client


def test_the_run_client_and_its_proxy_pools_are_bounded(monkeypatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    client = new_client(5.0, blocking=True)
    try:
        assert isinstance(client, blocking.BlockingClient)
        assert len(client.sync._mounts) >= 2  # the environment's proxies: a transport each
        assert blocking.is_bounded(client.sync)
    finally:
        client.sync.close()
    assert client.is_closed


def test_a_client_whose_transport_cannot_be_bounded_is_refused() -> None:
    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200)))
    with pytest.raises(blocking.Unbounded, match="MockTransport"):
        blocking.bound_client(client)
    client.close()


def test_the_async_client_is_httpx_own() -> None:
    client = new_client(5.0)
    assert isinstance(client, httpx.AsyncClient)
    asyncio.run(client.aclose())


def test_each_send_gets_the_time_left_not_a_fresh_timeout() -> None:
    """A peer that reads 1 KiB per 10 ms keeps every single send short (a small send buffer), so a
    timeout per send never fires: only the time left of the limit ends the upload of 1 MiB (~10 s)."""
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    received = []
    stop = threading.Event()

    def slow_reader() -> None:
        theirs.settimeout(1)
        with contextlib.suppress(OSError):
            while not stop.wait(0.01):
                received.append(len(theirs.recv(1024)))

    reader = threading.Thread(target=slow_reader, daemon=True)
    reader.start()
    stream = blocking._BoundedStream(SyncStream(ours))  # httpcore's own stream over the socket
    try:
        with blocking.limited(0.2) as limit, pytest.raises(httpcore.WriteTimeout):
            stream.write(b"x" * 2**20, timeout=5.0)
        assert limit.fired
    finally:
        stop.set()
        reader.join(5)
        ours.close()
        theirs.close()
    assert sum(received) < 2**19
