"""The blocking run's own HTTP/1.1 connection and pool: a plain socket (TLS by the run's context, ALPN
http/1.1), responses parsed by llhttp (`wire_read.py`, shared with the asyncio connection), under an
`httpx.HTTPTransport` in place of httpcore's sync pool (`transport.new_client(blocking=True)`).

Why: by valgrind's count one more step of a 200-step chain cost the engine 2.06 M instructions against
1.67 M for a synchronous httpx script, most of the difference httpcore's sync pool over h11 (its pure
Python parsing and state machine, the pool's walk of its connections and requests per request, a lock
and an event per request) and `bounded.py`'s wrappers around every socket call.

The run's time limits are held here directly (`bounded.time_left`): each connection attempt, the TLS
handshake, each read and each send gets at most the time left of the limit in force, and a cut marks the
limit `fired` (the caller then reports the limit, not a read timeout), as `bounded.py` does under
httpcore's pools. The failures are httpcore's, with its words (`ConnectError` and `ReadError` with the
OS error, `ConnectTimeout`, `ReadTimeout`, `WriteTimeout`, `RemoteProtocolError`), mapped by httpx as for
its own transport. The pool (`BlockingPool`) is `lean_pool.LeanPool`'s bookkeeping: an idle connection
is reused only after a whole response, checked once for a close by the server before it is handed out
(httpcore's `is_socket_readable`), closed past its keep-alive expiry; a safe request with a replayable
body that fails on a reused connection closed before any response byte is sent once more.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

import httpcore
from httpcore._utils import is_socket_readable

from .addresses import numeric_addresses
from .bounded import send_within, time_left
from .lean_pool import LeanPool, PooledBody, origin, retryable
from .wire_read import ResponseReader, offer_http11
from .wire_request import ending, framed

READ_SIZE = 64 * 1024  # bytes asked of the socket per read (httpcore's sync connection reads as much)
_NODELAY = (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as httpcore sets it on each connection


class BlockingWire(ResponseReader):
    """The connection: `connect`, then per exchange `send` (the request, up to its response head) and
    `next_chunk` until it returns b"" (the body); `reusable` after that; `abort` to close."""

    def __init__(self, key: tuple[bytes, bytes, int], sock: socket.socket) -> None:
        super().__init__(key)
        self._socket = sock

    @classmethod
    def connect(cls, key: tuple[bytes, bytes, int], ssl_context: Any, timeout: float | None) -> BlockingWire:
        """A new connection to `key` (scheme, host, port): TCP to each address of the host in turn, TLS
        over `ssl_context` with the host's name and ALPN http/1.1 for https; `ConnectError` (with the OS
        or TLS error) or `ConnectTimeout` when it cannot be made."""
        scheme, host, port = key
        name = host.decode("ascii")
        sock = _open(name, port, timeout)
        if scheme == b"https":
            offer_http11(ssl_context)
            try:
                left, limit = time_left(timeout, httpcore.ConnectTimeout)
                sock.settimeout(left)
                sock = ssl_context.wrap_socket(sock, server_hostname=name)  # the handshake, within `left`
            except TimeoutError as exc:
                sock.close()
                if limit is not None:
                    limit.fired = True
                raise httpcore.ConnectTimeout(exc) from exc
            except OSError as exc:  # ssl.SSLError too: a certificate refused, a CA bundle unreadable
                sock.close()
                raise httpcore.ConnectError(exc) from exc
            except BaseException:
                sock.close()
                raise
        return cls(key, sock)

    def send(self, request: httpcore.Request, timeouts: dict[str, Any]) -> httpcore.Response:
        """Write `request` and read its response's head; the body is read with `next_chunk`."""
        head, length = self._start(request)
        with contextlib.suppress(httpcore.WriteError):  # as httpcore: a server may close early and
            self._send_all(head, request.stream, length, timeouts.get("write"))  # still answer (a 413)
        read_timeout = timeouts.get("read")
        while not self._head_ready():
            self._read(read_timeout)
        return self._response()

    def next_chunk(self, read_timeout: float | None) -> bytes:
        """The body's next bytes as they arrived, b"" at its end."""
        while (chunk := self._ready_chunk()) is None:
            self._read(read_timeout)
        return chunk

    def _send_all(self, head: bytes, stream: Any, length: int | None, timeout: float | None) -> None:
        """The head and the body, gathered into writes of up to `READ_SIZE` bytes (a small request is
        one send)."""
        pending = head
        for part in _framed(stream, length):
            if len(pending) + len(part) > READ_SIZE:
                self._write(pending, timeout)
                pending = part
            else:
                pending += part
        if pending:
            self._write(pending, timeout)

    def _write(self, data: bytes, timeout: float | None) -> None:
        """`data` sent, each send given at most `timeout` or the time left (`bounded.send_within`)."""
        if self.lost:
            raise httpcore.WriteError(self.closed_by or ConnectionResetError("the connection was closed"))
        send_within(self._socket, data, timeout)

    def _read(self, timeout: float | None) -> None:
        """One read of the socket, at most `timeout` (or the time left), fed to the parser; a close or
        an OS error marks the connection lost for the reader to raise."""
        left, limit = time_left(timeout, httpcore.ReadTimeout)
        try:
            self._socket.settimeout(left)
            data = self._socket.recv(READ_SIZE)
        except TimeoutError as exc:
            if limit is not None:
                limit.fired = True
            raise httpcore.ReadTimeout(exc) from exc
        except OSError as exc:  # reset, a TLS failure
            self.lost, self.closed_by = True, exc
            return
        if data:
            self._feed(data)
        else:
            self.lost = self._eof = True

    def stop(self, error: BaseException) -> None:
        """End the exchange with `error` and close (the pool closing under it)."""
        if self._error is None:
            self._fail(error)

    def abort(self) -> None:
        """Close at once (a failure, a connection not to be reused). Shut down first: on Linux `close()`
        alone does not end a `recv` another thread is blocked in (the pool closed under a request in
        flight), which would then wait for its read timeout, or for ever without one."""
        self.lost = True
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        self._socket.close()

    def readable(self) -> bool:
        """Whether bytes or a close wait on the idle socket: httpcore's check before reusing it."""
        return is_socket_readable(self._socket)


def _framed(stream: Any, length: int | None) -> Any:
    """The bytes of a body from `stream` as they are sent (`wire_request.framed`, then its `ending`)."""
    sent = 0
    for part in stream:
        if part:
            sent += len(part)
            yield framed(part, sent, length)
    end = ending(sent, length)
    if end:
        yield end


def _open(name: str, port: int, timeout: float | None) -> socket.socket:
    """A TCP connection to the first address of `name` that answers, each attempt within the time left;
    when none answers, the first address's error (as `socket.create_connection`, httpcore's)."""
    addresses = _lookup(name, port, timeout)
    errors: list[OSError] = []
    for family, kind, proto, _, address in addresses:
        left, limit = time_left(timeout, httpcore.ConnectTimeout)
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(left)
            sock.connect(address)
            sock.setsockopt(*_NODELAY)
        except OSError as exc:
            sock.close()
            if isinstance(exc, TimeoutError) and limit is not None:
                limit.fired = True
                raise httpcore.ConnectTimeout(exc) from exc
            errors.append(exc)
            continue
        except BaseException:
            sock.close()
            raise
        return sock
    first = errors[0] if errors else OSError(f"no address for {name}")
    if isinstance(first, TimeoutError):
        raise httpcore.ConnectTimeout(first) from first
    raise httpcore.ConnectError(first) from first


def _lookup(name: str, port: int, timeout: float | None) -> list[Any]:
    """The addresses of `name`, the lookup within the time left: an IP literal is read in place; a host
    name is looked up on a thread of its own when a time bounds the connect, since the resolver's own
    retries can outlast any limit and the C call cannot be cut (the thread is left to finish, as asyncio
    leaves its executor's). `ConnectTimeout` (the limit marked) or `ConnectError` with the OS error."""
    addresses = numeric_addresses(name, port)
    if addresses is not None:
        return addresses
    try:
        left, limit = time_left(timeout, httpcore.ConnectTimeout)
        if left is None:
            return socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
        answer: list[Any] = []

        def look_up() -> None:
            try:
                answer.append(socket.getaddrinfo(name, port, type=socket.SOCK_STREAM))
            except OSError as exc:
                answer.append(exc)

        looking = threading.Thread(target=look_up, name="arazzo-lookup", daemon=True)
        looking.start()
        looking.join(left)
        if not answer:
            if limit is not None:
                limit.fired = True
            raise httpcore.ConnectTimeout(f"the lookup of {name} took longer than the time left")
        if isinstance(answer[0], OSError):
            raise answer[0]
        return answer[0]
    except OSError as exc:
        raise httpcore.ConnectError(exc) from exc


class BlockingPool(LeanPool):
    """httpcore's sync pool interface (`handle_request`, `close`) over `LeanPool`'s per-origin stacks of
    idle connections, of `BlockingWire`s. It holds the run's time limits itself (`holds_limits`:
    `bounded.bound_client` leaves it as it is)."""

    holds_limits = True

    def handle_request(self, request: httpcore.Request) -> httpcore.Response:
        key = origin(request.url, self._closed)
        timeouts = request.extensions.get("timeout") or {}
        wire: Any = self._take(key)  # a BlockingWire: the stacks are LeanPool's
        for attempt in (1, 2):  # the second only for a request `retryable` allows
            if wire is None:
                wire = BlockingWire.connect(key, self._ssl_context, timeouts.get("connect"))
                self._active.add(wire)
            try:
                response = wire.send(request, timeouts)
                break
            except BaseException as exc:
                self._drop(wire)
                if attempt == 2 or not isinstance(exc, Exception) or not retryable(wire, request):
                    raise
                wire = None
        response.stream = _Body(wire, self, timeouts.get("read"))
        return response

    def close(self) -> None:
        self.close_all()

    def __enter__(self) -> BlockingPool:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class _Body(PooledBody):
    """A response's body (`PooledBody`'s, read with `for`): the connection goes back to the pool at the
    body's end or when it is closed."""

    __slots__ = ()

    def __iter__(self) -> _Body:
        return self

    def __next__(self) -> bytes:
        chunk = b""
        if not self._done:
            try:
                chunk = self._wire.next_chunk(self._timeout)
            finally:
                if not chunk:  # the end, or a failure: the connection given back (or closed)
                    self._close()
        if chunk:
            return chunk
        raise StopIteration

    def close(self) -> None:
        self._close()
