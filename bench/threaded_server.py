"""A stdlib `ThreadingHTTPServer` for the sync-baseline benchmark (not a test server; stdlib only).

    python bench/threaded_server.py --port 8098

What real test servers mostly are: `http.server` with a thread per connection, HTTP/1.1 keep-alive,
Content-Length, TCP_NODELAY (without it the headers and the body go out as two small segments and
delayed ACKs stall each response by up to 40 ms). Routes:
    POST /counter/{key}  -> 200 {"key": key, "next": n + 1, "ok": true} for a key `k<n>`
                            (any other key: {"key": key, "next": 1, "ok": true}); a request body is read
                            and ignored
    anything else        -> 404
`ThreadedBenchServer` starts it in its own process like `server.BenchServer` does.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import BenchServer


class CounterHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one connection for a client's whole chain
    disable_nagle_algorithm = True

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if not self.path.startswith("/counter/"):
            self._send(404, b"not found", "text/plain")
            return
        key = self.path[len("/counter/") :].split("?", 1)[0]
        digits = key[1:]
        following = int(digits) + 1 if key.startswith("k") and digits.isdigit() else 1
        body = b'{"key": "%s", "next": %d, "ok": true}' % (key.encode("latin-1", "replace"), following)
        self._send(200, body, "application/json")

    def do_GET(self) -> None:
        self._send(404, b"not found", "text/plain")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # no line per request on stderr


class ThreadedBenchServer(BenchServer):
    """This server in a child process; `with` starts it, waits for the port, and stops it."""

    def __init__(self, port: int | None = None) -> None:
        super().__init__(port=port)

    def command(self) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), "--port", str(self.port)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8098)
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), CounterHandler)
    server.daemon_threads = True
    with contextlib.suppress(KeyboardInterrupt), server:
        server.serve_forever()


if __name__ == "__main__":
    main()
