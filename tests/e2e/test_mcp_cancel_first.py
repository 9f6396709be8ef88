"""`arazzo mcp` over stdio with its room for calls full (`fast.MAX_PENDING`: 256 calls kept, stdin not
read further): a `notifications/cancelled` among the lines already read still takes effect at once,
before any of the calls filling the room ends. Driven line by line over real pipes (the client of
tests/e2e/test_mcp_stdio.py), the calls held at their first step by a local API that answers only
when the test releases it; what is asserted is the order of what happened, not how long it took."""

from __future__ import annotations

import queue
import threading

import pytest

from tests.e2e.test_mcp_stdio import Server, call
from tests.servers.scripted import ScriptedServer
from tests.untested import not_installed

pytest.importorskip("mcp", reason=not_installed("mcp", "`arazzo mcp` (the MCP server)"))

PENDING = 256  # fast.MAX_PENDING
IN_FLIGHT = 32  # limits.TOOL_CALLS_IN_FLIGHT: the calls running at once, the others waiting their turn
SAFETY = 120  # seconds a held step waits for the release at most (a test that fails must end)


class HeldApi:
    """`/first/{n}` logs its arrival, waits for `release`, logs its answer; `/second/{n}` answers."""

    def __init__(self, server: ScriptedServer) -> None:
        self.server, self.release = server, threading.Event()
        self.log: list[tuple[str, int]] = []
        self.arrived: queue.Queue = queue.Queue()
        self.lock = threading.Lock()
        server.route("GET", "/first/{n}")(self.first)
        server.route("GET", "/second/{n}")(lambda request: (200, {"n": int(request.params["n"])}))

    def first(self, request):
        n = int(request.params["n"])
        with self.lock:
            self.log.append(("arrived", n))
        self.arrived.put(n)
        self.release.wait(SAFETY)
        with self.lock:
            self.log.append(("answered", n))
        return 200, {"n": n}


def test_a_cancellation_is_read_while_the_room_for_calls_is_full(tmp_path):
    with ScriptedServer() as scripted:
        api = HeldApi(scripted)
        server = Server(tmp_path, scripted.url)
        try:
            server.start()  # the handshake: plain calls after it are kept by fast.py
            server.send(*(call(n, n) for n in range(1, PENDING + 1)))
            running = {api.arrived.get(timeout=SAFETY) for _ in range(IN_FLIGHT)}
            assert running == set(range(1, IN_FLIGHT + 1))
            server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
            server.send({"jsonrpc": "2.0", "id": "after", "method": "ping"})
            nxt = api.arrived.get(timeout=SAFETY)  # the call 1 made room for: one waiting its turn
            assert IN_FLIGHT < nxt <= PENDING
            with api.lock:
                assert all(event == "arrived" for event, _ in api.log), api.log  # no held call ended yet
            assert server.answer()["id"] == "after"  # stdin read on: the room is no longer full
            api.release.set()
            answered = [server.answer() for _ in range(PENDING - 1)]
            assert sorted(a["id"] for a in answered) == list(range(2, PENDING + 1))
            assert all(a["result"]["structuredContent"]["status"] == "passed" for a in answered)
            assert server.end() == 0
            assert server.lines.get(timeout=SAFETY) is None  # nothing for the cancelled call
            paths = [r.path for r in scripted.requests]
            assert "/first/1" in paths and "/second/1" not in paths  # its run stopped at its first step
        finally:
            api.release.set()
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait()
