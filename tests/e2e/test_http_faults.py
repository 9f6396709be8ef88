"""Network faults: each fails its step with the cause, and the run reports failure (exit 1)."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import only_workflow, op_step, run_json, step, workflow
from tests.servers.scripted import CLOSE, RESET

LIST = op_step("list", "listPets", outputs={"body": "$response.body"})


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _failed_step(result, url: str) -> dict:
    """The run failed (exit 1) at its only step, which was sent to `url`; returns that step."""
    assert result.code == 1, result.out
    data = result.json
    assert data["status"] == "failed"
    flow = only_workflow(result)
    assert flow["status"] == "failed"
    got = step(result)
    assert got["status"] == "failed"
    assert got["attempts"] == 1
    assert got["request"] == {"method": "GET", "url": url}
    assert flow["error"] == {"stepId": "list", "message": got["error"]}
    return got


def test_connection_refused(capsys, write):
    base = f"http://127.0.0.1:{_closed_port()}"
    result = run_json(capsys, write(arazzo_doc(workflow("flow", LIST))), "--server", f"pets={base}")
    got = _failed_step(result, f"{base}/pets")
    assert got["statusCode"] is None
    assert got["error"] == f"connection refused (GET {base}/pets)"


def test_read_timeout(capsys, write, server):
    released = threading.Event()

    @server.route("GET", "/pets")
    def slow(_):
        released.wait(5)
        return 200, []

    try:
        result = run_json(
            capsys, write(arazzo_doc(workflow("flow", LIST))), "--timeout", "0.2", server=server
        )
    finally:
        released.set()
    got = _failed_step(result, f"{server.url}/pets")
    assert got["statusCode"] is None
    assert got["error"] == f"read timed out after 0.2 s (GET {server.url}/pets)"
    assert got["durationMs"] >= 190  # the time spent waiting is reported (at least the timeout)


def test_step_timeout_of_arazzo_1_1(capsys, write, server):
    released = threading.Event()

    @server.route("GET", "/pets")
    def slow(_):
        released.wait(5)
        return 200, []

    doc = arazzo_doc(workflow("flow", {**LIST, "timeout": 150}), version="1.1.0")
    try:
        result = run_json(capsys, write(doc), server=server)
    finally:
        released.set()
    got = _failed_step(result, f"{server.url}/pets")
    assert got["error"] == "step timeout of 150 ms exceeded"


def test_connection_reset_before_any_response(capsys, write, server):
    server.reply("GET", "/pets", (RESET,))
    result = run_json(capsys, write(arazzo_doc(workflow("flow", LIST))), server=server)
    got = _failed_step(result, f"{server.url}/pets")
    assert got["statusCode"] is None
    assert got["error"] == f"connection reset by the server (GET {server.url}/pets)"


def test_server_closing_without_answering(capsys, write, server):
    server.reply("GET", "/pets", (CLOSE,))
    result = run_json(capsys, write(arazzo_doc(workflow("flow", LIST))), server=server)
    got = _failed_step(result, f"{server.url}/pets")
    assert got["statusCode"] is None
    assert got["error"] == (f"the server closed the connection without answering (GET {server.url}/pets)")


def test_server_closing_mid_response(capsys, write, server):
    @server.route("GET", "/pets")
    def closes(_):
        headers = {"Content-Type": "application/json", "Content-Length": "80"}
        return 200, lambda write: write(b'{"items": ['), headers

    result = run_json(capsys, write(arazzo_doc(workflow("flow", LIST))), server=server)
    got = _failed_step(result, f"{server.url}/pets")
    assert got["error"].startswith("the server closed the connection mid-response: ")
    assert "received 11 bytes, expected 80" in got["error"]


def test_truncated_chunked_body(capsys, write, server):
    @server.route("GET", "/pets")
    def truncated(_):
        def body(write):
            write(b"5\r\n[1, 2\r\n")  # one chunk, then the connection closes without the last chunk

        return 200, body, {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}

    result = run_json(capsys, write(arazzo_doc(workflow("flow", LIST))), server=server)
    got = _failed_step(result, f"{server.url}/pets")
    assert got["error"].startswith("the server closed the connection mid-response: ")


def test_invalid_json_with_a_json_content_type(capsys, write, server):
    server.reply("GET", "/pets", (200, b'{"items": [1, 2', {"Content-Type": "application/json"}))
    result = run_json(capsys, write(arazzo_doc(workflow("flow", LIST))), server=server)
    got = _failed_step(result, f"{server.url}/pets")
    assert got["statusCode"] == 200
    assert got["error"].startswith(
        "HTTP 200: the response says application/json but its body is not valid JSON: "
    )
    assert got["outputs"] == {"body": '{"items": [1, 2'}


def test_an_event_stream_cut_before_done(capsys, write, server):
    data = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Hi"}}]}
    chunk = b"data: " + json.dumps(data).encode() + b"\n\n"

    @server.route("GET", "/pets")
    def cut(_):
        return 200, lambda write: write(chunk), {"Content-Type": "text/event-stream"}

    listing = op_step("list", "listPets", outputs={"content": "$response.body#/choices/0/message/content"})
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    got = _failed_step(result, f"{server.url}/pets")
    assert got["statusCode"] == 200
    assert got["error"] == "HTTP 200: the event stream ended before 'data: [DONE]'"
    assert got["outputs"] == {"content": "Hi"}  # what did arrive is still visible


def test_tls_to_a_plain_http_server(capsys, write, server):
    base = server.url.replace("http://", "https://")
    result = run_json(capsys, write(arazzo_doc(workflow("flow", LIST))), "--server", f"pets={base}")
    got = _failed_step(result, f"{base}/pets")
    assert got["error"].startswith("TLS error: ")


def test_a_fault_after_a_passing_step_still_fails_the_run(capsys, write, server):
    server.reply("POST", "/pets", (201, {"id": 1}))
    server.reply("GET", "/pets", (RESET,))
    create = op_step("create", "createPet", requestBody={"payload": {"name": "x"}})
    result = run_json(capsys, write(arazzo_doc(workflow("flow", create, LIST))), server=server)
    assert result.code == 1
    flow = only_workflow(result)
    assert [(s["stepId"], s["status"]) for s in flow["steps"]] == [("create", "passed"), ("list", "failed")]
    assert flow["error"]["stepId"] == "list"


@pytest.mark.parametrize("replies, code, attempts", [((RESET, (200, [])), 0, 2), ((RESET, RESET), 1, 2)])
def test_a_retry_action_handles_a_fault(capsys, write, server, replies, code, attempts):
    server.reply("GET", "/pets", *[(r,) if r == RESET else r for r in replies])
    listing = {**LIST, "onFailure": [{"name": "again", "type": "retry", "retryAfter": 0, "retryLimit": 1}]}
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == code, result.out
    got = step(result)
    assert got["attempts"] == attempts
    assert len(server.requests) == 2
    if code == 0:
        assert got["status"] == "passed"
        assert got["statusCode"] == 200
        assert "error" not in got
    else:
        assert got["error"].startswith("connection reset")
