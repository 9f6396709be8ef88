"""A TCP link that delays what the client sends by `lag` seconds (what the server sends passes at once):
a slow network between the engine and its broker, to show that `subscribe` returns only once the
broker has the subscription (a transport that returned earlier would miss a message published the
moment after, by another client that talks to the broker directly).

With `by_line`, what the client sends goes on line by line (CRLF-ended pieces, as NATS writes its
commands), each `lag` after the one before: two commands the client wrote at once still reach the
broker apart, so a confirmation that only covers the first one shows."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType


class LaggingLink:
    def __init__(self, host: str, port: int, lag: float, by_line: bool = False) -> None:
        self.upstream, self.lag, self.by_line = (host, port), lag, by_line
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.host, self.port = "127.0.0.1", self.listener.getsockname()[1]
        self._sockets: list[socket.socket] = [self.listener]
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> LaggingLink:
        self._start(self._accept)
        return self

    def __exit__(self, kind: type | None, value: BaseException | None, trace: TracebackType | None) -> None:
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        for thread in self._threads:
            thread.join(timeout=30)

    def _start(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self._sockets += [client, server]
            self._start(self._pump, client, server, self.lag, self.by_line)
            self._start(self._pump, server, client, 0.0, False)

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, lag: float, by_line: bool) -> None:
        try:
            while chunk := source.recv(65536):
                pieces = chunk.split(b"\r\n") if by_line else [chunk]
                for index, piece in enumerate(pieces):
                    piece += b"\r\n" if index < len(pieces) - 1 else b""
                    if piece:
                        if lag:
                            time.sleep(lag)
                        sink.sendall(piece)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
