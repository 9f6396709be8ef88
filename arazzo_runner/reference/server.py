"""The reference server's HTTP layer: `http.server.ThreadingHTTPServer`, HTTP/1.1, no framework.

`POST /v1/chat/completions` (also `/chat/completions`). A missing or empty bearer token -> 401; an
invalid body -> 400; `stream` true or absent -> `text/event-stream` sent with chunked transfer encoding,
one flushed HTTP chunk per event; `stream: false` -> `application/json`. Errors use the contract's shape
`{"status", "message", "data"}`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from ..records import Record
from .arguments import DEFAULT_DATE
from .completion import completion_object, stream_chunks
from .model import decide
from .sse import encode_stream
from .validation import ERROR_MESSAGE, error_body, validate_request

PATHS = ("/v1/chat/completions", "/chat/completions")
MAX_BODY = 10 * 1024 * 1024


class _Settings(Record):
    date: str
    clock: Callable[[], int]
    verbose: bool
    stream_default: bool = True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The listen backlog: the standard library's 5 resets connections as soon as a burst outruns the
    # accepting thread (20 clients at once already did). The kernel caps it at `net.core.somaxconn`.
    request_queue_size = 1024
    settings: _Settings


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: avoid the 40 ms delayed-ACK stall
    server: _HTTPServer
    timeout = 30  # idle keep-alive connections are closed after this many seconds

    def do_POST(self) -> None:
        body = self._read_body()
        if body is None:
            return
        if urlsplit(self.path).path.rstrip("/") not in PATHS:
            self._send_json(404, error_body(404, "Not found", {"path": [f"no such endpoint: {self.path}"]}))
            return
        if not self._authorized():
            data = {"Authorization": ['must be "Bearer <api key>"']}
            self._send_json(401, error_body(401, "Missing or invalid bearer token", data))
            return
        self._complete(body)

    def do_GET(self) -> None:
        self._send_json(405, error_body(405, "Method not allowed", {"method": ["use POST"]}))

    def _complete(self, raw: bytes) -> None:
        try:
            request = json.loads(raw)
        except ValueError as exc:
            self._send_json(400, error_body(400, ERROR_MESSAGE, {"body": [f"is not valid JSON: {exc}"]}))
            return
        problems = validate_request(request)
        if problems:
            self._send_json(400, error_body(400, ERROR_MESSAGE, problems))
            return
        try:
            reply = decide(request, date=self.server.settings.date)
            created = self.server.settings.clock()
            # Rendered before anything is sent, so a bug still gets a proper 500 answer.
            chunks = list(stream_chunks(reply, created))
            completion = completion_object(reply, created)
        except Exception as exc:
            self._send_json(500, error_body(500, f"Internal error: {exc!r}", {}))
            return
        if request.get("stream", self.server.settings.stream_default) is True:
            self._send_stream(encode_stream(chunks))
        elif reply.stream_error is not None:
            self._send_json(500, error_body(500, reply.stream_error, {}))
        else:
            self._send_json(200, completion)

    def _authorized(self) -> bool:
        scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
        return scheme.lower() == "bearer" and bool(token.strip())

    def _read_body(self) -> bytes | None:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            return self._refuse(400, "Bad Content-Length")
        if length > MAX_BODY:
            return self._refuse(413, "Request body too large")
        return self.rfile.read(length)

    def _read_chunked(self) -> bytes | None:
        parts: list[bytes] = []
        total = 0
        while True:
            try:
                size = int(self.rfile.readline(64).split(b";")[0].strip() or b"0", 16)
            except ValueError:
                return self._refuse(400, "Bad chunked request body")
            total += size
            if total > MAX_BODY:
                return self._refuse(413, "Request body too large")
            if size == 0:
                while self.rfile.readline(1024).strip():  # trailers
                    pass
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline(8)  # the CRLF after the chunk

    def _refuse(self, status: int, message: str) -> None:
        """Answers an unreadable body; the connection is closed since its framing is unknown."""
        self.close_connection = True
        self._send_json(status, error_body(status, message, {}))

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, events: Iterable[bytes]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for event in events:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away mid-stream

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.settings.verbose:
            super().log_message(format, *args)


class ReferenceServer:
    """The reference chat-completions server, run in a background thread.

    `url` is the base URL including `/v1` (e.g. `http://127.0.0.1:54321/v1`). `port=0` picks a free port.
    `date` is the date the scripted model puts in `date` arguments (default: env `ARAZZO_REFERENCE_DATE`,
    else 2026-09-16); `clock` returns the `created` timestamp (default: the current Unix time).
    `stream_default=False` answers requests that do not set `stream` with JSON instead of the API's
    default event stream: a testing knob for clients (like the seed workflow) that never set it.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        date: str | None = None,
        clock: Callable[[], int] | None = None,
        verbose: bool = False,
        stream_default: bool = True,
    ) -> None:
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.settings = _Settings(
            date=date or os.environ.get("ARAZZO_REFERENCE_DATE") or DEFAULT_DATE,
            clock=clock or (lambda: int(time.time())),
            verbose=verbose,
            stream_default=stream_default,
        )
        self._thread: threading.Thread | None = None

    @property
    def streams_by_default(self) -> bool:
        return self._httpd.settings.stream_default

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        host = host if isinstance(host, str) else host.decode()
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/v1"

    def start(self) -> ReferenceServer:
        if self._thread is None:
            serve = self._httpd.serve_forever
            self._thread = threading.Thread(target=serve, name="reference-server", daemon=True)
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (the command line's foreground mode)."""
        try:
            self._httpd.serve_forever()
        finally:
            self._httpd.server_close()

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ReferenceServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
