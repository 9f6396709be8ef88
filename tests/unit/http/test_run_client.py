"""The run's own HTTP client (http/run_client.py) and the network layer under a blocking run's
(http/bounded.py): every connection pool, proxies from the environment included, is bounded; what it
cannot bound is refused; each send gets the time left; the client keeps what `Client.send` does for
the run (cookies, httpx's log line, errors naming their request), sync and async alike."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from typing import Any

import httpcore
import httpx
import pytest
from httpcore._backends.sync import SyncStream

from arazzo_runner.executor.runtime import drive
from arazzo_runner.http import bounded
from arazzo_runner.http.run_client import BlockingClient, RunClient
from arazzo_runner.http.transport import new_client
from tests.servers.faults import closed_port_url
from tests.servers.scripted import ScriptedServer


def test_the_run_client_and_its_proxy_pools_are_bounded(monkeypatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    client = new_client(5.0, blocking=True)
    try:
        assert isinstance(client, BlockingClient)
        assert len(client.httpx._mounts) >= 2  # the environment's proxies: a transport each
        assert bounded.is_bounded(client.httpx)
    finally:
        client.httpx.close()
    assert client.is_closed


def test_a_client_whose_transport_cannot_be_bounded_is_refused() -> None:
    client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200)))
    with pytest.raises(bounded.Unbounded, match="MockTransport"):
        bounded.bound_client(client)
    client.close()


def test_the_async_client_wraps_httpx_own() -> None:
    client = new_client(5.0)
    assert isinstance(client, RunClient)
    assert isinstance(client.httpx, httpx.AsyncClient)
    asyncio.run(client.aclose())
    assert client.is_closed


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
    stream = bounded._BoundedStream(SyncStream(ours))  # httpcore's own stream over the socket
    try:
        with bounded.limited(0.2) as limit, pytest.raises(httpcore.WriteTimeout):
            stream.write(b"x" * 2**20, timeout=5.0)
        assert limit.fired
    finally:
        stop.set()
        reader.join(5)
        ours.close()
        theirs.close()
    assert sum(received) < 2**19


async def _get(client: Any, url: str) -> tuple[int, bytes]:
    async with client.stream("GET", url, headers=[], content=None) as response:
        return response.status_code, b"".join([c async for c in response.aiter_raw()])


async def _twice_then_refused(client: Any, url: str, refused_url: str) -> tuple[list, Any]:
    try:
        got = [await _get(client, url), await _get(client, url)]
        try:
            await _get(client, refused_url)
        except httpx.ConnectError as exc:
            return got, exc
        return got, None
    finally:
        await client.aclose()


@pytest.mark.parametrize("blocking", [True, False], ids=["blocking", "asyncio"])
def test_the_run_client_keeps_what_httpx_client_send_does(caplog, blocking) -> None:
    """Set-Cookie stored and sent back, the same log line as httpx.Client, errors naming their request."""
    refused_url = closed_port_url() + "/x"
    with ScriptedServer() as server:
        server.reply("GET", "/a", (200, {"ok": True}, {"Set-Cookie": "sid=s1; Path=/"}))
        client = new_client(5.0, blocking=blocking)
        scenario = _twice_then_refused(client, f"{server.url}/a", refused_url)
        with caplog.at_level(logging.INFO, logger="httpx"):
            got, refused = drive(scenario) if blocking else asyncio.run(scenario)
            ours = [r.getMessage() for r in caplog.records if r.name == "httpx"]
            caplog.clear()
            with httpx.Client() as plain:
                plain.get(f"{server.url}/a")
            theirs = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert got == [(200, b'{"ok": true}')] * 2
    assert server.requests[1].headers["cookie"] == "sid=s1"
    assert ours == theirs * 2
    assert refused is not None and str(refused.request.url) == refused_url
    assert client.is_closed


class _TrickleSocket:
    """Takes one byte per send, each send taking 3 s of a clock the test turns; records the timeouts."""

    def __init__(self, clock: list[float]) -> None:
        self.clock, self.timeouts, self.sent = clock, [], b""

    def settimeout(self, seconds: float | None) -> None:
        self.timeouts.append(seconds)

    def send(self, data: memoryview) -> int:
        self.clock[0] += 3.0
        self.sent += bytes(data[:1])
        return 1


def test_each_send_of_one_write_gets_what_is_left_of_the_limit_when_it_starts(monkeypatch) -> None:
    """A 10 s limit, sends of 3 s each: the sends get 10, 7, 4 and 1 s, and the fifth none (the limit
    fired), not 10 s each (an upload trickling on past the limit)."""
    clock = [100.0]
    monkeypatch.setattr(bounded, "time", type("Clock", (), {"monotonic": staticmethod(lambda: clock[0])}))
    sock = _TrickleSocket(clock)
    with bounded.limited(10.0) as limit, pytest.raises(httpcore.WriteTimeout):
        bounded.send_within(sock, b"abcde", 30.0)
    assert (sock.timeouts, sock.sent, limit.fired) == ([10.0, 7.0, 4.0, 1.0], b"abcd", True)
