"""The reference server's HTTP layer: `http.server.ThreadingHTTPServer`, HTTP/1.1, no framework.

`POST /v1/chat/completions` (also `/chat/completions`), and in the OpenAI flavour `GET /v1/models` and
`GET /v1/models/{id}`; the responses flavour answers `POST /v1/responses`, the anthropic flavour
`POST /v1/messages` (`Flavor.paths`). A missing or empty credential (a bearer token; for anthropic
`x-api-key` or a bearer token), or with `api_key` another one -> 401. What a
request is answered with, and in which error shape, is the flavour's (`flavors.py`); this layer reads
bodies (bounded), checks the token and writes the outcome: JSON with a `Content-Length`, or
`text/event-stream` sent with chunked transfer encoding, one flushed HTTP chunk per event (`data:` lines
then `[DONE]` for chat completions, named `event:`/`data:` pairs for the Responses and Messages APIs).
"""

from __future__ import annotations

import hmac
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from ..records import Record
from .arguments import DEFAULT_DATE
from .flavors import CHAT_PATHS, Flavor, Outcome, make_flavor
from .sse import encode_named, encode_stream

PATHS = CHAT_PATHS
MAX_BODY = 10 * 1024 * 1024
MAX_CONNECTIONS = 256  # connections served at once, one thread each; one more is answered 503 and closed
_BUSY_BODY = b'{"error": {"message": "too many connections; retry shortly"}}'
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
    b"Connection: close\r\nContent-Length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY
)


class _Settings(Record):
    date: str
    clock: Callable[[], int]
    verbose: bool
    flavor: Flavor
    api_key: str | None = None


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The listen backlog: the standard library's 5 resets connections as soon as a burst outruns the
    # accepting thread (20 clients at once already did). The kernel caps it at `net.core.somaxconn`.
    request_queue_size = 1024
    settings: _Settings
    slots: threading.BoundedSemaphore  # one per connection being served (`max_connections`)

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the connection while fewer than `max_connections` are served; else, from the
        accepting thread, a 503 written without waiting (a fresh socket's buffer holds it) and the
        connection closed: idle or slow clients (slowloris) hold at most that many threads."""
        if not self.slots.acquire(blocking=False):
            try:
                request.setblocking(False)
                request.send(_BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread was started: its slot is free again
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that closes a keep-alive connection with unread bytes (the official `openai` client
        # stops reading a stream at `[DONE]`, before the closing chunk) resets it: no traceback for that.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: avoid the 40 ms delayed-ACK stall
    server: _HTTPServer
    timeout = 30  # idle keep-alive connections are closed after this many seconds

    def do_POST(self) -> None:
        body = self._read_body()
        if body is None:
            return
        flavor = self.server.settings.flavor
        if urlsplit(self.path).path.rstrip("/") not in flavor.paths:
            self._send(flavor.not_found("POST", self.path))
            return
        failure = self._auth_failure()
        if failure is not None:
            self._send(failure)
            return
        self._complete(body)

    def do_GET(self) -> None:
        settings = self.server.settings
        path = urlsplit(self.path).path
        self._send(settings.flavor.get(path, self._auth_failure(), settings.clock()))

    def _complete(self, raw: bytes) -> None:
        settings = self.server.settings
        from ..bounds import json_text

        try:
            request = json_text.loads(raw)  # the rule for JSON from outside: 128 levels, U+FFFD
        except json_text.TooDeep:  # `[[[[...`
            self._send(settings.flavor.invalid_json("nested too deeply"))
            return
        except ValueError as exc:
            self._send(settings.flavor.invalid_json(str(exc)))
            return
        try:
            outcome = settings.flavor.complete(request, date=settings.date, created=settings.clock())
        except Exception as exc:
            outcome = settings.flavor.failure(500, f"Internal error: {exc!r}")
        self._send(outcome)

    def _auth_failure(self) -> Outcome | None:
        """None when the credential (the flavour's: a bearer token, Anthropic's `x-api-key`) is
        accepted: any non-empty one, or with `api_key` that one."""
        token, _ = self.server.settings.flavor.token(self.headers)
        if not token:
            return self.server.settings.flavor.unauthorized(token_given=False)
        expected = self.server.settings.api_key
        if expected is not None and not hmac.compare_digest(token.encode(), expected.encode()):
            return self.server.settings.flavor.unauthorized(token_given=True)
        return None

    def _send(self, outcome: Outcome) -> None:
        if outcome.events is not None:
            self._send_stream(encode_named(outcome.events))
        elif outcome.chunks is not None:
            self._send_stream(encode_stream(outcome.chunks))
        else:
            self._send_json(outcome.status, outcome.body)

    def _read_body(self) -> bytes | None:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self._refuse(400, "Bad Content-Length")
            return None
        if length > MAX_BODY:
            self._refuse(413, "Request body too large")
            return None
        return self.rfile.read(length)

    def _read_chunked(self) -> bytes | None:
        parts: list[bytes] = []
        total = 0
        while True:
            try:
                size = int(self.rfile.readline(64).split(b";")[0].strip() or b"0", 16)
            except ValueError:
                self._refuse(400, "Bad chunked request body")
                return None
            total += size
            if total > MAX_BODY:
                self._refuse(413, "Request body too large")
                return None
            if size == 0:
                while self.rfile.readline(1024).strip():  # trailers
                    pass
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline(8)  # the CRLF after the chunk

    def _refuse(self, status: int, message: str) -> None:
        """Answers an unreadable body; the connection is closed since its framing is unknown."""
        self.close_connection = True
        self._send(self.server.settings.flavor.failure(status, message))

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
    `flavor` is the wire: `"seed"` (the default: the contract of the OpenAPI description and the API
    notes), `"openai"` (OpenAI chat completions, for the official clients), `"responses"` (OpenAI's
    Responses API) or `"anthropic"` (Anthropic's Messages API); see `flavors.py`.
    `stream_default` says what a request without `stream` gets (default: the flavour's, true for seed
    and false for openai): `stream_default=False` is a testing knob for seed clients (like the seed
    workflow) that never set it. `api_key`: accept only this bearer token (default: any non-empty one).
    `max_connections`: connections served at once, a thread each (default `MAX_CONNECTIONS`); one more
    is answered 503 (`Retry-After: 1`) and closed.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        date: str | None = None,
        clock: Callable[[], int] | None = None,
        verbose: bool = False,
        stream_default: bool | None = None,
        flavor: str = "seed",
        api_key: str | None = None,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        settings = _Settings(
            date=date or os.environ.get("ARAZZO_REFERENCE_DATE") or DEFAULT_DATE,
            clock=clock or (lambda: int(time.time())),
            verbose=verbose,
            flavor=make_flavor(flavor, stream_default),  # before binding: a bad name leaks no socket
            api_key=api_key,
        )
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.settings = settings
        self._httpd.slots = threading.BoundedSemaphore(max_connections)
        self._thread: threading.Thread | None = None

    @property
    def flavor(self) -> str:
        return self._httpd.settings.flavor.name

    @property
    def streams_by_default(self) -> bool:
        return self._httpd.settings.flavor.stream_default

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
