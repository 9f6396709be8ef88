"""A server that closes the connection while it is being set up (a plain-HTTP port given a TLS hello, as
an `https://` URL to it sends) fails the step with words saying so: the failure carries no words of its
own (asyncio's bare ConnectionResetError, anyio's EndOfStream under httpx's transport), and the step's
error was `cannot connect:  (GET ...)`, the fallback meant for it never taken (found by mutation round
52's test of an https URL after an http one)."""

from __future__ import annotations

import socket
import threading

from tests.e2e.conftest import arazzo_doc
from tests.e2e.faultkit import list_step
from tests.e2e.helpers import run_json, workflow


def test_a_server_closing_the_connection_as_it_is_set_up_is_named(capsys, write, tmp_path):
    """Rows (`--inputs-file`) send over the asyncio connection, where the failure has no words of its
    own; a single run's blocking connection says `TLS error: ... EOF` (ssl's own words), as before."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    firsts: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                sock, _ = listener.accept()
            except OSError:
                return  # closed: the test is over
            with sock:
                firsts.append(sock.recv(1 << 16))  # the TLS hello, then closed unanswered

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        doc = arazzo_doc(workflow("flow", list_step()))
        rows = tmp_path / "rows.jsonl"
        rows.write_text("{}\n")
        result = run_json(
            capsys, write(doc), "--server", f"pets=https://127.0.0.1:{port}", "--inputs-file", rows
        )
    finally:
        listener.close()
        thread.join(5)
    assert result.code == 1
    step = result.json["rows"][0]["result"]["workflows"][0]["steps"][0]
    assert step["error"] == (
        f"cannot connect: the server closed the connection while it was being set up (GET https://127.0.0.1:{port}/pets)"
    )
    assert firsts and all(first[:2] == b"\x16\x03" for first in firsts)  # a TLS record each: the hello
