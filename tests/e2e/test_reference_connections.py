"""The reference server holds a bounded number of connection threads (issue 23, point 10): slow clients
(slowloris: a request line never finished) hold at most `max_connections` threads; one connection more
is answered 503 at once and closed; once they leave, requests are served again. Real sockets against
the server running in this process (so its threads can be counted)."""

from __future__ import annotations

import json
import socket
import threading
import urllib.request

from arazzo_runner.reference import ReferenceServer

LIMIT = 8


def _connect(url: str) -> socket.socket:
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    conn = socket.create_connection((host, int(port)), timeout=60)
    return conn


def _completion(url: str) -> int:
    body = json.dumps({"model": "agentaus", "messages": [{"role": "user", "content": "hi"}], "stream": False})
    request = urllib.request.Request(
        f"{url}/chat/completions",
        body.encode(),
        {"Content-Type": "application/json", "Authorization": "Bearer k"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status


def test_slow_clients_hold_at_most_max_connections_threads():
    before = threading.active_count()
    with ReferenceServer(max_connections=LIMIT) as server:
        slow = []
        try:
            for _ in range(LIMIT):
                conn = _connect(server.url)
                conn.sendall(b"POST /v1/chat/comp")  # and nothing more: a thread waits on it
                slow.append(conn)
            extra = [_connect(server.url) for _ in range(20)]
            for conn in extra:
                answer = conn.recv(4096)
                assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), answer
                assert b"Retry-After: 1" in answer and b"too many connections" in answer
                conn.close()
            # the accepting thread, and one per slow client: no thread for the refused ones
            assert threading.active_count() <= before + 1 + LIMIT
        finally:
            for conn in slow:
                conn.close()
        # the slow clients gone, their threads end and the server answers again
        statuses = []
        for _ in range(600):
            try:
                statuses.append(_completion(server.url))
                break
            except OSError:  # 503 while the threads wind down (HTTPError is an OSError)
                threading.Event().wait(0.1)
        assert statuses == [200]
