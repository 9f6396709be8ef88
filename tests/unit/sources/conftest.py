"""Fixtures for source tests: files in a tmp dir and a real local HTTP server."""

from __future__ import annotations

import contextlib
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write dedented text to `tmp_path / name` (creating folders) and return the path."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return _write


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    length: bool = True  # send Content-Length; without it the body ends when the connection closes


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, Reply] = {}

    def do_GET(self) -> None:
        reply = self.routes.get(self.path, Reply(404, b"not here"))
        if reply.delay:
            time.sleep(reply.delay)
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        if reply.length:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        # The client may give up first (timeout, size limit): expected in those tests.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(reply.body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep test output quiet


@dataclass
class Server:
    url: str
    routes: dict[str, Reply]

    def add(self, path: str, text: str = "", **reply: object) -> str:
        body = textwrap.dedent(text).encode()
        self.routes[path] = Reply(body=body, **reply)  # type: ignore[arg-type]
        return self.url + path


@pytest.fixture
def http_server() -> Iterator[Server]:
    """A real HTTP/1.0 server on 127.0.0.1 in a thread; tests register replies by path."""
    routes: dict[str, Reply] = {}
    handler = type("Handler", (_Handler,), {"routes": routes})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True  # a handler still sleeping must not block shutdown
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{server.server_address[1]}", routes)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
