"""The load test's fast HTTP client (geventhttpclient in each user's greenlet) sends the requests httpx
sends, byte for byte, and fails a step with the same message as httpx, for every failure a server can
cause: Locust runs the same locustfile twice against one recording server, on the fast client (the
default) and on httpx (`ARAZZO_LOAD_HTTP=httpx`), and both runs must agree on every request received
and on Locust's failure table."""

from __future__ import annotations

import gzip
import json
import socket
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.conftest import arazzo_doc
from tests.e2e.loadkit import failures_rows, finish, start, stats_rows
from tests.servers.faults import (
    Conn,
    FaultServer,
    Hit,
    answer,
    closed_port_url,
    invalid_json,
    read_raw_request,
    reply,
    reset,
    stall,
    truncated_json,
)
from tests.timeouts import long_test

TIMEOUT = 1.5  # the users' request timeout (`options`), seconds
MAX_BODY = 1000  # the users' max_body (bytes)


CASES = {  # workflow id -> (path, successCriteria condition, expected to pass)
    "gzip": ("/gzip", "$response.body#/ok == true", True),
    "status": ("/status", "$statusCode == 200", False),
    "notjson": ("/notjson", "$statusCode == 200", False),
    "big": ("/big", "$response.body#/ok == true", False),
    "silent": ("/silent", "$statusCode == 200", False),
    "cut": ("/cut", "$statusCode == 200", False),
    "stall": ("/stall", "$statusCode == 200", False),
    "reset": ("/reset", "$statusCode == 200", False),
}


def openapi() -> dict[str, Any]:
    paths: dict[str, Any] = {
        path: {"get": {"operationId": case, "responses": {"200": {"description": "ok"}}}}
        for case, (path, _, _) in CASES.items()
    }
    paths["/items"] = {
        "post": {
            "operationId": "create",
            "parameters": [
                {"name": "q", "in": "query", "schema": {"type": "string"}},
                {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
            ],
            "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
            "responses": {"201": {"description": "made"}},
        }
    }
    paths["/login"] = {"get": {"operationId": "login", "responses": {"200": {"description": "ok"}}}}
    paths["/me"] = {"get": {"operationId": "me", "responses": {"200": {"description": "ok"}}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}


def workflows() -> list[dict[str, Any]]:
    found = [
        {"workflowId": case, "steps": [{"stepId": "call", "operationId": f"api.{case}",
                                        "successCriteria": [{"condition": condition}]}]}
        for case, (_, condition, _) in CASES.items()
    ]  # fmt: skip
    create = {
        "stepId": "call",
        "operationId": "api.create",
        "parameters": [{"name": "q", "in": "query", "value": "a b/c"}, {"name": "X-Trace", "in": "header",
                       "value": "$inputs.who"}],
        "requestBody": {"contentType": "application/json", "payload": {"name": "$inputs.who", "n": 1}},
        "successCriteria": [{"condition": "$statusCode == 201"}],
    }  # fmt: skip
    who = {"type": "object", "properties": {"who": {"type": "string"}}}
    found.append({"workflowId": "post", "inputs": who, "steps": [create]})
    ok = [{"condition": "$statusCode == 200"}]
    found.append({"workflowId": "cookie", "steps": [
        {"stepId": "login", "operationId": "api.login", "successCriteria": ok},
        {"stepId": "me", "operationId": "api.me", "successCriteria": ok},
    ]})  # fmt: skip
    found.append({"workflowId": "refused", "steps": [{"stepId": "call", "operationId": "down.gzip"}]})
    return found


LOCUSTFILE = """
    from locust import constant, task

    from arazzo_runner.locust import ArazzoUser


    class Client(ArazzoUser):
        document = "flows.arazzo.yaml"
        inputs = {{"who": "ann"}}
        servers = {{"api": "{url}", "down": "{down}"}}
        options = {{"timeout": {timeout}, "max_body": {max_body}}}
        wait_time = constant(0.01)

        @task
        def every_workflow(self):  # each in turn: a chance draw could leave one out of a short run
            for workflow_id in {ids!r}:
                self.run_workflow(workflow_id)
"""


class RecordingServer(FaultServer):
    """The fault server, keeping each request as it came on the wire (request line, header lines in
    order, body)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.raw: list[bytes] = []

    def _serve(self, sock: socket.socket) -> None:
        with sock:
            sock.settimeout(5)
            data = read_raw_request(sock)
            if data is None:
                return
            sock.settimeout(None)
            line = data.split(b"\r\n", 1)[0].decode("latin-1")
            method, target, _ = line.split(" ", 2)
            hit = Hit(method, target.split("?", 1)[0], time.monotonic())
            with self._lock:
                self.raw.append(data)
                self.hits.append(hit)
                behaviour = self._next(hit.path)
            behaviour(Conn(sock, hit, self._stopping))


def silent(conn: Conn) -> None:
    """Read the request and close the connection without a byte of answer."""


def script(server: RecordingServer) -> None:
    zipped = gzip.compress(json.dumps({"ok": True}).encode())
    server.script("/gzip", answer(200, {"Content-Type": "application/json", "Content-Encoding": "gzip",
                                        "Content-Length": str(len(zipped))}, zipped))  # fmt: skip
    server.script("/status", reply({"error": "down"}, 500))
    server.script("/notjson", invalid_json())
    server.script("/big", reply({"ok": True, "pad": "x" * (2 * MAX_BODY)}))
    server.script("/silent", silent)
    server.script("/cut", truncated_json(correct_length=False))
    server.script("/stall", stall())
    server.script("/reset", reset())
    server.script("/items", reply({"made": True}, 201))
    server.script("/login", reply({"ok": True}, 200, {"Set-Cookie": "sid=s3ss10n; Path=/"}))
    server.script("/me", reply({"ok": True}))


def run_locust(folder: Path, fast: bool) -> tuple[str, dict[str, dict[str, str]], set[tuple[str, str, str]]]:
    prefix = folder / ("fast" if fast else "httpx")
    env = {} if fast else {"ARAZZO_LOAD_HTTP": "httpx"}
    argv = [sys.executable, "-m", "locust", "-f", folder / "locustfile.py", "--headless", "-u", 2, "-r", 2,
            "-t", "4s", "--stop-timeout", 5, "--csv", prefix, "--only-summary"]  # fmt: skip
    code, out, err = finish(start(argv, env, drop=("ARAZZO_LOAD_HTTP",)))
    assert code == 1, out + err  # failed requests: Locust's exit code 1
    failures = {(row["Method"], row["Name"], row["Error"]) for row in failures_rows(prefix)}
    return err, stats_rows(prefix), {row for row in failures if not load_timeout(row)}


def load_timeout(row: tuple[str, str, str]) -> bool:
    """A read timeout on a request the server answers at once: the machine was busy (seen on CI, with
    another lane's rows for the same request failing as the case wants). The case's own failure must
    still be in the table: the checks below name each."""
    _, name, error = row
    return "read timed out" in error and name not in ("stall.call", "workflow stall")


@long_test
def test_the_fast_client_sends_what_httpx_sends_and_fails_as_httpx_fails(tmp_path: Path) -> None:
    (tmp_path / "api.openapi.yaml").write_text(yaml.safe_dump(openapi(), sort_keys=False))
    sources = [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"},
               {"name": "down", "url": "./api.openapi.yaml", "type": "openapi"}]  # fmt: skip
    document = arazzo_doc(*workflows(), sources=sources)
    (tmp_path / "flows.arazzo.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    with RecordingServer() as server:
        script(server)
        locustfile = LOCUSTFILE.format(
            url=server.url,
            down=closed_port_url(),
            timeout=TIMEOUT,
            max_body=MAX_BODY,
            ids=[w["workflowId"] for w in workflows()],
        )
        (tmp_path / "locustfile.py").write_text(textwrap.dedent(locustfile))
        runs = {}
        for fast in (False, True):
            with server._lock:
                server.raw.clear()
            err, rows, failures = run_locust(tmp_path, fast)
            with server._lock:
                received = set(server.raw)
            runs[fast] = (err, rows, failures, received)
    (slow_err, slow_rows, slow_failures, slow_received), (err, rows, failures, received) = (
        runs[False],
        runs[True],
    )
    assert "HTTP requests sent on geventhttpclient" not in slow_err
    lanes = [line for line in err.splitlines() if "HTTP requests sent on geventhttpclient" in line]
    assert len(lanes) == 1, err
    fast_count, httpx_count = (int(part.rsplit(" ", 1)[1]) for part in lanes[0].split(", "))
    assert fast_count > 0 and httpx_count > 0  # /me carries the cookie of /login: through httpx
    expected = {"workflow " + w["workflowId"] for w in workflows()}
    assert expected <= set(rows) and expected <= set(slow_rows)
    # the same requests, byte for byte (the request line, every header line in its order, the body)
    assert received == slow_received
    paths = {data.split(b" ", 2)[1].split(b"?")[0] for data in received}
    assert paths == {case[0].encode() for case in CASES.values()} | {b"/items", b"/login", b"/me"}
    post = next(data for data in received if data.startswith(b"POST "))
    assert post.startswith(b"POST /items?q=a%20b%2Fc HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\nX-Trace: ann\r\n" in post and post.endswith(b'\r\n\r\n{"name":"ann","n":1}')
    me = next(data for data in received if data.startswith(b"GET /me "))
    assert b"\r\nCookie: sid=s3ss10n\r\n" in me
    # the same failures, in the same words
    assert failures == slow_failures
    errors = {name: error for _, name, error in failures}
    assert set(errors) == {f"{case}.call" for case, (_, _, passes) in CASES.items() if not passes} | {
        "refused.call"} | {f"workflow {case}" for case, (_, _, passes) in CASES.items() if not passes} | {
        "workflow refused"}  # fmt: skip
    assert "HTTP 500" in errors["status.call"] or "$statusCode == 200" in errors["status.call"]
    assert "is not valid JSON" in errors["notjson.call"]
    assert f"larger than the limit of {MAX_BODY} bytes" in errors["big.call"]
    assert "closed the connection without answering" in errors["silent.call"]
    assert "closed the connection mid-response" in errors["cut.call"]
    assert f"read timed out after {TIMEOUT:g} s" in errors["stall.call"]
    assert "connection reset by the server" in errors["reset.call"]
    assert "connection refused" in errors["refused.call"]
    assert int(rows["gzip.call"]["Failure Count"]) == 0 < int(rows["gzip.call"]["Request Count"])
    assert int(rows["post.call"]["Failure Count"]) == 0 and int(rows["cookie.me"]["Failure Count"]) == 0
