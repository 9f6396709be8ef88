"""A fast local HTTP/1.1 server for the benchmarks (not a test server; stdlib only).

    python bench/server.py --port 8099 [--latency-ms 5]

Protocol-level asyncio (no framework): keep-alive, Content-Length, ~10-20 us of server CPU per request.
Routes:
    GET /items/{n}  -> 200 {"id": n, "next": n+1, "ok": true}
    GET /stats      -> 200 {"requests": count, "connections": TCP connections accepted,
                            "handler_us": mean server CPU per request in microseconds}
    anything else   -> 404
`--latency-ms` delays each response with the event loop's timer (`loop.call_later`, what `asyncio.sleep`
uses underneath) so concurrent requests overlap their waits.

`BenchServer` starts it in a separate process and waits until the port accepts connections:

    with BenchServer(latency_ms=5) as server:
        httpx.get(f"{server.url}/items/1")
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

STATS = {"requests": 0, "seconds": 0.0, "connections": 0}
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nnot found"


def _ok(body: bytes) -> bytes:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode("ascii") + body


def respond(target: bytes) -> bytes:
    if target.startswith(b"/items/"):
        raw = target[7:].split(b"?", 1)[0]
        if raw.isdigit():
            n = int(raw)
            return _ok(b'{"id": %d, "next": %d, "ok": true}' % (n, n + 1))
    elif target == b"/stats":
        count = STATS["requests"]
        mean = STATS["seconds"] / count * 1e6 if count else 0.0
        seen = {"requests": count, "connections": STATS["connections"], "handler_us": round(mean, 2)}
        return _ok(json.dumps(seen).encode())
    return NOT_FOUND


class HttpProtocol(asyncio.Protocol):
    """One connection: parses requests from the byte stream and answers each in order."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        STATS["connections"] += 1
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        started = time.perf_counter()
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                break
            head = self.buffer[:end]
            length = 0
            lowered = head.lower()
            at = lowered.find(b"\r\ncontent-length:")
            if at >= 0:
                line_end = lowered.find(b"\r\n", at + 2)
                length = int(lowered[at + 17 : line_end if line_end >= 0 else None])
            if len(self.buffer) < end + 4 + length:
                break  # the body is still arriving
            self.buffer = self.buffer[end + 4 + length :]
            parts = head.split(b" ", 2)
            reply = respond(parts[1]) if len(parts) == 3 else NOT_FOUND
            close = b"\r\nconnection: close" in lowered
            self._send(reply, close)
            STATS["requests"] += 1
        STATS["seconds"] += time.perf_counter() - started

    def _send(self, reply: bytes, close: bool) -> None:
        if self.latency > 0:
            asyncio.get_running_loop().call_later(self.latency, self._write, reply, close)
        else:
            self._write(reply, close)

    def _write(self, reply: bytes, close: bool) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.transport.write(reply)
        if close:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


TLS_FOLDER = Path(__file__).resolve().parents[1] / "tests" / "servers" / "tls"  # the test CA's certificate
TEST_CA = TLS_FOLDER / "ca.pem"


def tls_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(TLS_FOLDER / "server.pem", TLS_FOLDER / "server.key")
    return context


async def serve(host: str, port: int, latency_ms: float, tls: bool = False) -> None:
    loop = asyncio.get_running_loop()
    protocol = lambda: HttpProtocol(latency_ms / 1000)  # noqa: E731
    server = await loop.create_server(protocol, host, port, backlog=1024, ssl=tls_context() if tls else None)
    async with server:
        await server.serve_forever()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BenchServer:
    """The server in a child process; `with` starts it, waits for the port, and stops it."""

    def __init__(self, latency_ms: float = 0.0, port: int | None = None, tls: bool = False) -> None:
        self.latency_ms = latency_ms
        self.port = port or free_port()
        self.tls = tls
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        """How to start the server process (a subclass runs another server script)."""
        command = [sys.executable, str(Path(__file__).resolve()), "--port", str(self.port)]
        return command + ["--latency-ms", str(self.latency_ms)] + (["--tls"] if self.tls else [])

    def __enter__(self) -> BenchServer:
        self.process = subprocess.Popen(self.command())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"bench server exited with {self.process.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return self
            time.sleep(0.02)
        self.__exit__()
        raise RuntimeError(f"bench server did not listen on port {self.port} within 10 s")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--tls", action="store_true", help="serve https (tests/servers/tls certificate)")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.host, args.port, args.latency_ms, args.tls))


if __name__ == "__main__":
    main()
