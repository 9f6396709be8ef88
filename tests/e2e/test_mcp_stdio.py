"""`arazzo mcp`'s own stdio transport (`agents/mcp/stdio.py`), driven line by line over real pipes: the
SDK's framing and answers (a line that is not JSON-RPC answered as the SDK answers it: not at all),
a line over the limit refused as it arrives (the server's memory does not grow with it), concurrent
calls answered by id, a cancelled call's run stopped (its API receives nothing after the
cancellation), calls sharing one connection but not their cookies, the end of stdin ending the
server with 0, a terminal on stdin and stdout; and the SDK's transport where the loop cannot watch stdin
(a regular file). The official client's tests are tests/e2e/test_mcp.py."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.e2e.helpers import ROOT
from tests.servers.scripted import ScriptedServer
from tests.untested import not_installed

pytest.importorskip("mcp", reason=not_installed("mcp", "`arazzo mcp` (the MCP server)"))

LIMIT = 4 * 1024 * 1024  # stdio.MAX_LINE
OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "Slow", "version": "1"},
    "paths": {
        "/first/{n}": {"get": {"operationId": "first", "responses": {"200": {"description": "ok"}}}},
        "/second/{n}": {"get": {"operationId": "second", "responses": {"200": {"description": "ok"}}}},
    },
}
ARAZZO = {
    "arazzo": "1.0.1",
    "info": {"title": "Two steps", "version": "1"},
    "sourceDescriptions": [{"name": "api", "url": "./api.openapi.json", "type": "openapi"}],
    "workflows": [
        {
            "workflowId": "two_steps",
            "inputs": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            "steps": [
                {
                    "stepId": step,
                    "operationId": step,
                    "parameters": [{"name": "n", "in": "path", "value": "$inputs.n"}],
                    "successCriteria": [{"condition": "$statusCode == 200"}],
                    "outputs": {"n": "$response.body#/n"},
                }
                for step in ("first", "second")
            ],
            "outputs": {"n": "$steps.second.outputs.n"},
        }
    ],
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(request_id, n):
    params = {"name": "two_steps", "arguments": {"n": n}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


class Api:
    """The workflow's API: `/first/{n}` waits while `held` has n (until released), answers 500 for a
    negative n; both echo n."""

    def __init__(self, server: ScriptedServer) -> None:
        self.server, self.held, self.arrived = server, {}, queue.Queue()
        server.route("GET", "/first/{n}")(self.first)
        server.route("GET", "/second/{n}")(lambda request: (200, {"n": int(request.params["n"])}))
        self.connections = 0
        accept = server._httpd.process_request

        def counted(*args):
            self.connections += 1
            return accept(*args)

        server._httpd.process_request = counted

    def first(self, request):
        n = int(request.params["n"])
        if n < 0:  # a workflow that fails at its first step
            return 500, {"error": f"no item {n}"}
        self.arrived.put(n)
        if n in self.held:
            self.held[n].wait(60)
        return 200, {"n": n}, {"Set-Cookie": f"call={n}; Path=/"}

    def paths(self):
        return [r.path for r in self.server.requests]


class Server:
    """`arazzo mcp` as a real process on pipes; what it writes, line by line, parsed."""

    def __init__(
        self,
        tmp_path: Path,
        url: str,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=None,
        stderr=subprocess.PIPE,
    ) -> None:
        (tmp_path / "api.openapi.json").write_text(json.dumps(OPENAPI))
        (tmp_path / "two.arazzo.json").write_text(json.dumps(ARAZZO))
        argv = [sys.executable, "-m", "arazzo_runner.cli", "mcp", str(tmp_path / "two.arazzo.json")]
        env = {k: v for k, v in os.environ.items() if k.startswith(("ARAZZO_", "PATH", "HOME"))} | (env or {})
        self.proc = subprocess.Popen(
            [*argv, "--server", f"api={url}"],
            cwd=ROOT,
            env=env,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
        )
        self.lines: queue.Queue = queue.Queue()
        if self.proc.stdout is not None:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            # stderr on the same pipe (`stderr=STDOUT`): its start line stands as {"started": True}
            self.lines.put({"started": True} if line.startswith(b"arazzo mcp:") else json.loads(line))
        self.lines.put(None)

    def send(self, *messages, raw: bytes = b"") -> None:
        self.proc.stdin.write(raw + b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        self.proc.stdin.flush()

    def answer(self):
        found = self.lines.get(timeout=60)
        assert found is not None, self.proc.stderr.read().decode() if self.proc.stderr else ""
        return found

    def start(self) -> None:
        self.send(INITIALIZE)
        assert self.answer()["id"] == 0
        self.send(INITIALIZED)

    def end(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(60)
        self.stderr = self.proc.stderr.read().decode() if self.proc.stderr else ""
        return code

    def peak_rss_kib(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))


@pytest.fixture(name="api")
def api_fixture():
    with ScriptedServer() as server:
        yield Api(server)


@pytest.fixture(name="server")
def server_fixture(tmp_path, api):
    found = Server(tmp_path, api.server.url)
    yield found
    if found.proc.poll() is None:
        found.proc.kill()
        found.proc.wait()


def test_a_line_that_is_not_json_rpc_is_answered_as_the_sdk_answers_it(server):
    server.start()
    server.send(raw=b'not json\n{"jsonrpc": "2.0", "id": 5}\n\n\r\n')
    server.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert server.answer() == {"jsonrpc": "2.0", "id": 1, "result": {}}  # the others: nothing
    assert server.end() == 0


def test_line_ends_are_the_sdks_and_a_message_may_arrive_in_pieces(server):
    server.start()
    ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode()
    server.send(raw=b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\r\n' + ping[:10])
    assert server.answer()["id"] == 1
    server.send(raw=ping[10:] + b"\r")
    assert server.answer()["id"] == 2
    assert server.end() == 0


def test_a_line_over_the_limit_is_refused_as_it_arrives(server):
    server.start()
    before = server.peak_rss_kib()
    head = json.dumps(call(7, "")).encode()
    server.send(raw=head[: head.index(b'""') + 1])  # the line as far as the argument's opening quote
    chunk = b"x" * (1024 * 1024)
    for _ in range(48):  # 48 MiB, twelve times the limit
        server.send(raw=chunk)
    server.send(raw=b'"}}}\n')
    refused = server.answer()
    assert refused["id"] == 7 and refused["error"]["code"] == -32600
    assert f"longer than {LIMIT} bytes" in refused["error"]["message"]
    server.send(raw=b"y" * (LIMIT + 10) + b"\n")  # no id to read: answered under the id null
    assert server.answer()["id"] is None
    server.send(call(8, 3))
    assert server.answer()["result"]["structuredContent"] == {"status": "passed", "outputs": {"n": 3}}
    grown = server.peak_rss_kib() - before
    assert grown < 20 * 1024, f"the server grew by {grown} KiB reading a 48 MiB line"
    assert server.end() == 0


def test_concurrent_calls_are_answered_by_id(server, api):
    server.start()
    api.held[1] = threading.Event()
    server.send(call("one", 1), call(2, 2), call("three", 3), {"jsonrpc": "2.0", "id": 4, "method": "ping"})
    answers = {}
    for _ in range(3):  # all but the held one, which cannot end before the others
        found = server.answer()
        answers[found["id"]] = found
    api.held[1].set()
    found = server.answer()
    answers[found["id"]] = found
    assert sorted(map(str, answers)) == ["2", "4", "one", "three"]
    assert found["id"] == "one"
    for request_id, n in (("one", 1), (2, 2), ("three", 3)):
        assert answers[request_id]["result"]["structuredContent"]["outputs"] == {"n": n}
    assert server.end() == 0


def test_a_cancelled_call_stops_its_run(server, api):
    server.start()
    api.held[5] = threading.Event()
    server.send(call(1, 5))
    assert api.arrived.get(timeout=60) == 5  # the first step is waiting for its answer
    cancelled = {"requestId": 1, "reason": "the user left"}
    server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancelled})
    server.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert server.answer()["id"] == 2
    api.held[5].set()  # the first step's answer arrives after the cancellation
    server.send(call(3, 6))  # a call after it runs, and its answer comes after any the cancelled one had
    assert server.answer()["id"] == 3
    assert server.end() == 0
    assert server.lines.get(timeout=60) is None  # nothing for the cancelled call
    assert api.paths() == ["/first/5", "/first/6", "/second/6"]  # no second step for the cancelled one


def test_calls_reuse_the_connections_and_keep_their_cookies_to_themselves(server, api):
    server.start()
    for n in range(5):
        server.send(call(n, n))
        assert server.answer()["result"]["structuredContent"]["outputs"] == {"n": n}
    assert server.end() == 0
    cookies = [(r.path, r.headers.get("cookie")) for r in api.server.requests]
    assert cookies == [
        (p, c) for n in range(5) for p, c in ((f"/first/{n}", None), (f"/second/{n}", f"call={n}"))
    ]
    assert api.connections == 1  # ten requests, one connection: the pool outlives each call's run


def test_calls_go_through_the_proxy_of_the_environment_as_any_run_does(tmp_path, api):
    # the API's host does not resolve: the requests reach it only through the proxy (the scripted server)
    proxied = Server(tmp_path, "http://api.example.invalid", env={"HTTP_PROXY": api.server.url})
    try:
        proxied.start()
        for n in range(2):
            proxied.send(call(n, n))
            assert proxied.answer()["result"]["structuredContent"]["outputs"] == {"n": n}
        assert proxied.end() == 0
    finally:
        if proxied.proc.poll() is None:
            proxied.proc.kill()
    assert api.paths() == ["/first/0", "/second/0", "/first/1", "/second/1"]
    assert {r.headers.get("host") for r in api.server.requests} == {"api.example.invalid"}


def test_the_end_of_stdin_ends_the_server_with_0(server):
    server.start()
    assert server.end() == 0
    assert "Traceback" not in server.stderr


def test_stdin_from_a_file_is_served_by_the_sdks_transport(tmp_path, api):
    requests = tmp_path / "requests.jsonl"
    requests.write_text(json.dumps(INITIALIZE) + "\n")  # answered before the end of the file is read
    with open(requests, "rb") as stdin:
        found = Server(tmp_path, api.server.url, stdin=stdin)
        assert found.proc.wait(60) == 0
    assert found.answer()["result"]["serverInfo"]["name"] == "arazzo-engine"
    assert "Traceback" not in found.proc.stderr.read().decode()


def test_every_request_of_a_file_on_stdin_is_answered_before_the_server_ends(tmp_path, api):
    # a file is a batch: its end is read at once, while every call is still running; each is answered
    numbers = range(1, 11)
    for n in numbers:
        api.held[n] = threading.Event()

    def release_when_all_arrived() -> None:  # every first step waits until all ten are in flight
        with contextlib.suppress(queue.Empty):
            for _ in numbers:
                api.arrived.get(timeout=60)
        for n in numbers:
            api.held[n].set()

    threading.Thread(target=release_when_all_arrived, daemon=True).start()
    cancelled = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 11}}
    lines = [INITIALIZE, INITIALIZED, *(call(n, n) for n in numbers), call(11, 0), cancelled]
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps(line) + "\n" for line in lines))
    try:
        with open(requests, "rb") as stdin:
            found = Server(tmp_path, api.server.url, stdin=stdin)
            assert found.proc.wait(60) == 0
    finally:
        for n in numbers:
            api.held[n].set()
    answers = {}
    while (line := found.lines.get(timeout=60)) is not None:
        answers[line["id"]] = line
    assert answers.pop(0)["result"]["serverInfo"]["name"] == "arazzo-engine"
    answers.pop(11, None)  # cancelled by the file itself: answered only if it ended first
    assert {i: a["result"]["structuredContent"] for i, a in answers.items()} == {
        n: {"status": "passed", "outputs": {"n": n}} for n in numbers
    }
    assert "Traceback" not in found.proc.stderr.read().decode()


def test_a_file_on_stdin_and_a_reader_that_leaves_end_the_server_without_a_traceback(tmp_path, api):
    # the batch's answers come after the end of the file: one may meet a reader that left
    reading, writing = os.pipe()
    api.held[1] = threading.Event()
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps(m) + "\n" for m in (INITIALIZE, INITIALIZED, call(1, 1))))
    with open(requests, "rb") as stdin:
        server = Server(tmp_path, api.server.url, stdin=stdin, stdout=writing)
    os.close(writing)
    try:
        assert json.loads(os.read(reading, 65536))["id"] == 0
        assert api.arrived.get(timeout=60) == 1  # the call is running
        os.close(reading)  # the reader gone: the call's answer meets a closed pipe
        api.held[1].set()
        assert server.proc.wait(60) == 0
        stderr = server.proc.stderr.read().decode()
        assert "Traceback" not in stderr, stderr
    finally:
        api.held[1].set()
        if server.proc.poll() is None:
            server.proc.kill()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="a pseudo-terminal")
def test_a_terminal_on_stdin_and_stdout_is_read_on_the_loop_too(tmp_path, api):
    import pty
    import select
    import tty

    leader, follower = pty.openpty()
    tty.setraw(follower)  # no echo, no line editing: the bytes as sent
    server = Server(tmp_path, api.server.url, stdin=follower, stdout=follower)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    os.write(leader, b"".join(json.dumps(m).encode() + b"\n" for m in (INITIALIZE, INITIALIZED, ping)))
    received = b""
    while received.count(b"\n") < 2 and select.select([leader], [], [], 60)[0]:
        received += os.read(leader, 65536)
    assert [json.loads(line)["id"] for line in received.splitlines()] == [0, 2]
    # the terminal's file description (the server's stdin and stdout, and here this test's `follower`;
    # a shell's stderr too) stays blocking while the server serves: the loop watches one of its own
    assert os.get_blocking(follower) is True
    os.close(follower)
    os.close(leader)  # the terminal hangs up: the end of stdin
    assert server.proc.wait(60) == 0


def test_one_pipe_for_stdout_and_stderr_stays_blocking_for_stderr(tmp_path, api):
    """A client that gives one pipe for both (`2>&1`): the server's stderr is the same file description
    as its stdout; the loop watches one of its own, so stderr's stays blocking while the server serves."""
    server = Server(tmp_path, api.server.url, stderr=subprocess.STDOUT)
    try:
        assert server.answer() == {"started": True}  # the start line, on stderr, came first
        server.start()
        server.send(call(1, 4))
        assert server.answer()["result"]["structuredContent"]["outputs"] == {"n": 4}
        flags = next(
            int(line.split()[1], 8)
            for line in Path(f"/proc/{server.proc.pid}/fdinfo/2").read_text().splitlines()
            if line.startswith("flags:")
        )
        assert not flags & os.O_NONBLOCK
        assert server.end() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


def test_one_socket_on_stdin_and_stdout_is_served_through_many_calls(tmp_path, api):
    # as inetd, systemd's socket activation or socat's EXEC give it: both fds one bidirectional socket
    import socket

    ours, theirs = socket.socketpair()
    server = Server(tmp_path, api.server.url, stdin=theirs.fileno(), stdout=theirs.fileno())
    theirs.close()
    try:
        ours.sendall(b"".join(json.dumps(m).encode() + b"\n" for m in (INITIALIZE, INITIALIZED)))
        reader = ours.makefile("rb")
        assert json.loads(reader.readline())["id"] == 0
        for n in range(3):  # each request arrives while the server's stdout is open for writing
            ours.sendall(json.dumps(call(n + 1, n)).encode() + b"\n")
            answer = json.loads(reader.readline())
            assert answer["result"]["structuredContent"]["outputs"] == {"n": n}
        ours.shutdown(socket.SHUT_WR)  # the end of stdin
        assert server.proc.wait(60) == 0
    finally:
        ours.close()
        if server.proc.poll() is None:
            server.proc.kill()


def test_a_client_that_stops_reading_ends_the_server_without_a_traceback(tmp_path, api):
    reading, writing = os.pipe()
    server = Server(tmp_path, api.server.url, stdout=writing)
    os.close(writing)
    try:
        server.send(INITIALIZE)
        assert json.loads(os.read(reading, 65536))["id"] == 0
        os.close(reading)  # the client gone from stdout: the next answer meets a closed pipe (EPIPE)
        with contextlib.suppress(BrokenPipeError):  # the server may have ended already
            server.send(INITIALIZED, call(1, 1), call(2, 2))
        assert server.proc.wait(60) == 0
        stderr = server.proc.stderr.read().decode()
        assert "Traceback" not in stderr, stderr
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
