"""A TCP link that delays what the client sends by `lag` seconds (what the server sends passes at once):
a slow network between the engine and its broker, to show that `subscribe` returns only once the
broker has the subscription (a transport that returned earlier would miss a message published the
moment after, by another client that talks to the broker directly)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType


class LaggingLink:
    def __init__(self, host: str, port: int, lag: float) -> None:
        self.upstream, self.lag = (host, port), lag
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
            self._start(self._pump, client, server, self.lag)
            self._start(self._pump, server, client, 0.0)

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, lag: float) -> None:
        try:
            while chunk := source.recv(65536):
                if lag:
                    time.sleep(lag)
                sink.sendall(chunk)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
