"""The asyncio pools' cheap check of an idle connection (`http/readable.py`), against a real socket
server: a connection the server closed while idle is seen as expired and replaced (not reused, which
would fail the next request), one it keeps open is reused; and every pool of the run's client has it."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from arazzo_runner.http.readable import is_readable_pooled
from arazzo_runner.http.transport import new_client

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"


class _Server:
    """Answers each request on a connection with `ANSWER`; with `close_idle`, closes the connection
    right after its first answer (a server-initiated close of an idle keep-alive connection)."""

    def __init__(self, close_idle: bool) -> None:
        self.close_idle = close_idle
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._connection, args=(conn,), daemon=True).start()

    def _connection(self, conn: socket.socket) -> None:
        with conn:
            buffer = b""
            while True:
                data = conn.recv(65536)
                if not data:
                    return
                buffer += data
                while b"\r\n\r\n" in buffer:
                    _, buffer = buffer.split(b"\r\n\r\n", 1)
                    conn.sendall(ANSWER)
                    if self.close_idle:
                        conn.shutdown(socket.SHUT_WR)
                        return


async def _twice(url: str) -> list[int]:
    client = new_client(10.0)
    try:
        assert is_readable_pooled(client.httpx)
        statuses = []
        for _ in range(2):
            async with client.stream("GET", url) as response:
                await response.aread()
                statuses.append(response.status_code)
            await asyncio.sleep(0.05)  # the server's close reaches the idle connection
        return statuses
    finally:
        await client.aclose()


@pytest.mark.parametrize(("close_idle", "connections"), [(True, 2), (False, 1)])
def test_an_idle_connection_the_server_closed_is_replaced_an_open_one_reused(close_idle, connections):
    server = _Server(close_idle)
    try:
        assert asyncio.run(_twice(f"http://127.0.0.1:{server.port}/x")) == [200, 200]
        assert server.connections == connections
    finally:
        server.listener.close()


def test_the_pools_behind_the_environments_proxies_have_it_too(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")

    async def pools() -> bool:
        client = new_client(10.0)
        try:
            assert client.httpx._mounts  # the proxies' own transports
            return is_readable_pooled(client.httpx)
        finally:
            await client.aclose()

    assert asyncio.run(pools())
