"""A counting reverse proxy: every engine talks to the mock through it, so each run's requests are known.

The engines' own reports cannot tell "refused before sending" from "failed after sending" the same way
for all of them; the requests that reached the mock can. The proxy forwards each request unchanged
(method, path and query, headers but the hop-by-hop ones, body) to the upstream mock, returns its
answer, and records (method, target, status) in arrival order. Threads, HTTP/1.1 keep-alive,
Content-Length and chunked request bodies; bodies are capped at `MAX_BODY` bytes.
"""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple

MAX_BODY = 64 * 2**20
_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Seen(NamedTuple):
    method: str
    target: str
    status: int  # 502: the upstream did not answer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: CountingProxy

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts, size = [], 0
            while True:
                length = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if length == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                size += length
                if size > MAX_BODY:
                    raise ValueError("request body too large")
                parts.append(self.rfile.read(length))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError("request body too large")
        return self.rfile.read(length) if length else b""

    def _forward(self) -> None:
        status, reason, headers, payload = 502, "Bad Gateway", [("Content-Type", "text/plain")], b""
        try:
            body = self._body()
            upstream = http.client.HTTPConnection(
                self.server.upstream_host, self.server.upstream_port, timeout=60
            )
            try:
                upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for key, value in self.headers.items():  # in order, repeated names kept
                    if key.lower() not in _HOP | {"content-length"}:
                        upstream.putheader(key, value)
                if "Host" not in self.headers:
                    upstream.putheader("Host", f"{self.server.upstream_host}:{self.server.upstream_port}")
                if body or self.command in ("POST", "PUT", "PATCH"):
                    upstream.putheader("Content-Length", str(len(body)))  # one, whatever framing came in
                upstream.endheaders(body or None)
                answer = upstream.getresponse()
                payload = answer.read(MAX_BODY + 1)[:MAX_BODY]
                status, reason = answer.status, answer.reason
                headers = [
                    (k, v) for k, v in answer.getheaders() if k.lower() not in _HOP | {"content-length"}
                ]
            finally:
                upstream.close()
        except Exception as exc:
            payload = f"counting proxy: upstream failed: {exc}".encode()
        self.server.record(Seen(self.command, self.path, status))
        self.send_response_only(status, reason)  # the upstream's own Date and Server follow
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_TRACE = _forward


class CountingProxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream_port: int, upstream_host: str = "127.0.0.1") -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream_host, self.upstream_port = upstream_host, upstream_port
        self._seen: list[Seen] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def record(self, seen: Seen) -> None:
        with self._lock:
            self._seen.append(seen)

    def mark(self) -> int:
        """A position in the record: `since(mark)` is what arrived after it."""
        with self._lock:
            return len(self._seen)

    def since(self, mark: int) -> list[Seen]:
        with self._lock:
            return list(self._seen[mark:])

    def start(self) -> CountingProxy:
        self._thread = threading.Thread(target=self.serve_forever, name="counting-proxy", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
