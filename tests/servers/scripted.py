"""A real local HTTP server for end-to-end tests: routes scripted per test, every request recorded.

with ScriptedServer() as server:
    @server.route("GET", "/pets/{id}")
    def pet(request):
        return 200, {"id": int(request.params["id"])}
    ... run a workflow against server.url ...
    assert server.requests[0].query == {"limit": ["5"]}

A reply whose status is `RESET` aborts the connection with a TCP reset instead of answering; `CLOSE`
closes it cleanly without answering. `ScriptedServer(tls=True)` serves https with the certificate in
tests/servers/tls/ (issued by the test CA `TEST_CA` for localhost and 127.0.0.1, valid until 2126);
`client_certs=True` also demands a client certificate issued by that CA (mutualTLS: `CLIENT_CERT`,
`CLIENT_KEY`, and `CLIENT_KEY_ENCRYPTED` whose passphrase is `CLIENT_KEY_PASSWORD`).
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

TLS_FOLDER = Path(__file__).with_name("tls")
TEST_CA = TLS_FOLDER / "ca.pem"  # the CA that issued the https server's certificate
CLIENT_CERT, CLIENT_KEY = TLS_FOLDER / "client.pem", TLS_FOLDER / "client.key"  # CN arazzo-runner test client
CLIENT_KEY_ENCRYPTED, CLIENT_KEY_PASSWORD = TLS_FOLDER / "client-encrypted.key", "key-pass-123"


@dataclass
class Recorded:
    method: str
    path: str  # raw (still percent-encoded) path
    query: dict[str, list[str]]
    raw_query: str
    headers: dict[str, str]  # lowercased names
    body: bytes
    params: dict[str, str] = field(default_factory=dict)
    raw_headers: list[tuple[str, str]] = field(default_factory=list)  # as received, repeats kept
    client_cn: str | None = None  # the common name of the client certificate presented, over TLS

    def json(self) -> Any:
        return json.loads(self.body)


RESET = "reset"  # as a reply's status: abort the connection (TCP RST) without answering
CLOSE = "close"  # as a reply's status: close the connection (FIN) without answering

Reply = tuple  # (status, body) or (status, body, headers); body: dict/list -> JSON, str/bytes as is
Handler = Callable[[Recorded], Reply]


class ScriptedServer:
    def __init__(self, tls: bool = False, client_certs: bool = False) -> None:
        self.requests: list[Recorded] = []
        self._routes: list[tuple[str, re.Pattern, Handler]] = []
        self._lock = threading.Lock()
        self._scheme = "https" if tls else "http"
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler_class())
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(TLS_FOLDER / "server.pem", TLS_FOLDER / "server.key")
            if client_certs:
                context.verify_mode = ssl.CERT_REQUIRED
                context.load_verify_locations(TEST_CA)
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"{self._scheme}://{host}:{port}"

    def route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        pattern = re.compile("^" + re.sub(r"\{([^}]+)\}", r"(?P<\1>[^/]+)", template) + "$")

        def register(handler: Handler) -> Handler:
            self._routes.append((method.upper(), pattern, handler))
            return handler

        return register

    def reply(self, method: str, template: str, *replies: Reply) -> None:
        """Answer successive requests with `replies` in order (the last one repeats)."""
        queue = list(replies)

        def handler(_: Recorded) -> Reply:
            return queue.pop(0) if len(queue) > 1 else queue[0]

        self.route(method, template)(handler)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _dispatch(self, request: Recorded) -> Reply:
        with self._lock:
            self.requests.append(request)
        path = unquote(request.path)
        for method, pattern, handler in self._routes:
            match = pattern.match(request.path) or pattern.match(path)
            if method == request.method and match:
                request.params = {k: unquote(v) for k, v in match.groupdict().items()}
                return handler(request)
        return 404, {"error": f"no route for {request.method} {request.path}"}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # separate header/body writes would stall 40 ms on delayed ACKs

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                request = Recorded(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query, keep_blank_values=True),
                    raw_query=parts.query,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    raw_headers=list(self.headers.items()),
                    client_cn=_client_cn(self.connection),
                )
                reply = server._dispatch(request)
                if reply[0] == RESET:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()  # the descriptor closes (RST) once rfile/wfile are closed
                    self.close_connection = True
                    return
                if reply[0] == CLOSE:
                    self.close_connection = True
                    return
                self._send(*reply)

            def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
                headers = dict(headers or {})
                if callable(body):  # a streaming writer: body(write) sends chunks itself
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Connection", "close")
                    self.end_headers()
                    body(self._write_flush)
                    self.close_connection = True
                    return
                if isinstance(body, (dict, list)) or (body is None and status != 204):
                    payload = json.dumps(body if body is not None else {}).encode()
                    headers.setdefault("Content-Type", "application/json")
                elif isinstance(body, str):
                    payload = body.encode()
                    headers.setdefault("Content-Type", "text/plain; charset=utf-8")
                else:
                    payload = body or b""
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _write_flush(self, data: bytes, delay: float = 0.0) -> None:
                if delay:
                    time.sleep(delay)
                self.wfile.write(data)
                self.wfile.flush()

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

            def __getattr__(self, name: str) -> Any:
                """Any other method too (an OpenAPI 3.2 `additionalOperations` one, any token): routed
                like the others, where `BaseHTTPRequestHandler` would answer 501."""
                if name.startswith("do_"):
                    return self._handle
                raise AttributeError(name)

        return _Handler


def _client_cn(connection: Any) -> str | None:
    peer = connection.getpeercert() if isinstance(connection, ssl.SSLSocket) else None
    names = dict(pair for rdn in (peer or {}).get("subject", ()) for pair in rdn)
    return names.get("commonName")


class _QuietServer(ThreadingHTTPServer):
    request_queue_size = 128  # many concurrent clients: the default backlog of 5 drops SYNs (1 s stalls)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a test's timeout, a closed stream) is expected, not an error."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)
