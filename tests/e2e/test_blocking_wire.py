"""A blocking run's client over its own pool (`http/blocking_wire.py`) holds the run's time limits
(`http/bounded.py`): every connect, TLS handshake, read and send gets at most the time left of the limit
in force, and the limit that cut one is marked `fired` (the run then reports its limit, not a read
timeout). Servers are real sockets served by threads; the client's own timeout (30 s) is far longer than
the limit, so only the limit can have ended each exchange: nothing here bounds wall-clock time."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpcore
import httpx
import pytest

from arazzo_runner.executor.runtime import drive
from arazzo_runner.http import bounded
from arazzo_runner.http.blocking_wire import BlockingPool, BlockingWire
from arazzo_runner.http.lean_pool import origin
from arazzo_runner.http.transport import new_client

OWN_TIMEOUT = 30.0  # the client's: a hang guard, never reached


@contextlib.contextmanager
def _listening(serve: Callable[[socket.socket], None]) -> Iterator[int]:
    """A local port whose connections are handed, one by one, to `serve` in a thread."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def accept() -> None:
        with listener:
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    serve(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        thread.join(60)


def _silent(conn: socket.socket) -> None:
    """Reads what comes and answers nothing, until the client leaves."""
    with contextlib.suppress(OSError):
        while conn.recv(65536):
            pass


def _client() -> httpx.Client:
    client = new_client(OWN_TIMEOUT, blocking=True).httpx
    assert isinstance(client._transport._pool, BlockingPool)
    return client


@pytest.mark.parametrize(
    ("scheme", "expected"),
    [("http", httpx.ReadTimeout), ("https", httpx.ConnectTimeout)],  # a read; the TLS handshake
    ids=["read", "tls-handshake"],
)
def test_the_time_left_cuts_a_read_and_a_tls_handshake_and_the_limit_fired(scheme, expected) -> None:
    with _listening(_silent) as port:
        client = _client()
        try:
            with bounded.limited(0.3) as limit, pytest.raises(httpx.TimeoutException) as failed:
                client.get(f"{scheme}://127.0.0.1:{port}/slow")
        finally:
            client.close()
    assert type(failed.value) is expected
    assert limit.fired


def test_a_limit_already_passed_sends_nothing_and_has_fired() -> None:
    connections: list[socket.socket] = []
    with _listening(connections.append) as port:
        client = _client()
        try:
            with bounded.limited(0.0) as limit, pytest.raises(httpx.ConnectTimeout):
                client.get(f"http://127.0.0.1:{port}/never")
        finally:
            client.close()
    assert limit.fired
    assert connections == []


def test_each_send_gets_the_time_left_not_a_fresh_timeout() -> None:
    """A server reading 1 KiB every 10 ms keeps each single send short (small socket buffers), so a
    timeout per send would never fire: only the time left of the limit ends the upload of 4 MiB (~40 s
    at that pace)."""
    received = [0]
    done = threading.Event()

    def slow_reader(conn: socket.socket) -> None:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        conn.settimeout(5)
        with contextlib.suppress(OSError):
            while not done.wait(0.01):
                data = conn.recv(1024)
                if not data:
                    return
                received[0] += len(data)

    with _listening(slow_reader) as port:
        client = _client()
        try:
            with bounded.limited(0.3) as limit, pytest.raises(httpx.WriteTimeout):
                client.post(f"http://127.0.0.1:{port}/up", content=b"x" * 2**22)
        finally:
            done.set()
            client.close()
    assert limit.fired
    assert received[0] < 2**21


def test_without_a_limit_the_clients_own_timeout_governs_and_nothing_fired() -> None:
    """The read timeout of the request (httpx's) ends the wait; a limit further off is not marked."""
    with _listening(_silent) as port:
        client = new_client(0.2, blocking=True).httpx
        try:
            with bounded.limited(OWN_TIMEOUT) as limit, pytest.raises(httpx.ReadTimeout):
                client.get(f"http://127.0.0.1:{port}/slow")
        finally:
            client.close()
    assert not limit.fired


def test_a_blocking_runs_client_sends_over_its_pool_and_the_environments_proxy(monkeypatch) -> None:
    """Its own origins over `BlockingPool`; an origin the environment routes through a proxy goes there
    (httpx's proxy transport, over httpcore's pool bounded by `bounded.py`), NO_PROXY ones directly."""
    proxied: list[bytes] = []

    def proxy(conn: socket.socket) -> None:
        proxied.append(conn.recv(65536).split(b"\r\n", 1)[0])
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\nvia proxy")

    def direct(conn: socket.socket) -> None:
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

    async def fetch(client: object, url: str) -> str:
        async with client.stream("GET", url) as answer:  # type: ignore[attr-defined]
            return b"".join([part async for part in answer.aiter_raw()]).decode()

    with _listening(proxy) as proxy_port, _listening(direct) as port:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy_port}")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        client = new_client(5.0, blocking=True)
        try:
            own = isinstance(client.httpx._transport._pool, BlockingPool)
            texts = [
                drive(fetch(client, url))
                for url in ("http://api.example.test/items", f"http://127.0.0.1:{port}/d")
            ]
            assert bounded.is_bounded(client.httpx)
        finally:
            drive(client.aclose())
    assert (proxied, texts, own) == (
        [b"GET http://api.example.test/items HTTP/1.1"],
        ["via proxy", "ok"],
        True,
    )


@contextlib.contextmanager
def _unanswering_listener() -> Iterator[int]:
    """A port whose listen queue is full (backlog 0, one connection waiting, never accepted): the kernel
    drops a new connection's SYN, so a connect there waits until its timeout ends it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers: list[socket.socket] = []
    try:
        for _ in range(8):  # until one connect is left waiting: the queue is full
            filler = socket.socket()
            filler.settimeout(0.2)
            try:
                filler.connect(("127.0.0.1", port))
            except TimeoutError:
                filler.close()
                break
            fillers.append(filler)
        yield port
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


def test_a_connect_cut_by_the_limit_is_a_connect_timeout_and_the_limit_fired() -> None:
    with _unanswering_listener() as port:
        client = _client()
        try:
            with bounded.limited(0.3) as limit, pytest.raises(httpx.TimeoutException) as failed:
                client.get(f"http://127.0.0.1:{port}/never")
        finally:
            client.close()
    assert type(failed.value) is httpx.ConnectTimeout
    assert limit.fired


def test_a_connect_past_the_clients_own_timeout_is_a_connect_timeout() -> None:
    with _unanswering_listener() as port:
        client = new_client(0.3, blocking=True).httpx
        try:
            with pytest.raises(httpx.TransportError) as failed:
                client.get(f"http://127.0.0.1:{port}/never")
        finally:
            client.close()
    assert type(failed.value) is httpx.ConnectTimeout


def _answering_ok(conn: socket.socket) -> None:
    """Answers each request of the connection with `ok`, until the client leaves."""
    with contextlib.suppress(OSError):
        while conn.recv(65536):
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")


def test_within_a_limit_the_connect_and_each_read_get_the_time_left_not_the_clients_timeout() -> None:
    """The socket's timeout, as the connect and the last read left it: the time left of a 5 s limit, not
    the client's own 30 s (which would let a silent server hold the run past its limit)."""
    with _listening(_answering_ok) as port:
        key = (b"http", b"127.0.0.1", port)
        with bounded.limited(5.0):
            wire = BlockingWire.connect(key, None, OWN_TIMEOUT)
        after_connect = wire._socket.gettimeout()
        wire.abort()
        client = _client()
        try:
            with bounded.limited(5.0):
                assert client.get(f"http://127.0.0.1:{port}/a").text == "ok"
            (wire,) = client._transport._pool.connections
            after_read = wire._socket.gettimeout()
        finally:
            client.close()
    assert 0 < after_connect <= 5.0
    assert 0 < after_read <= 5.0


def _closed_by_client(conn: socket.socket, answer: bytes, closed: list[bool]) -> None:
    """Reads the request, sends `answer` and nothing more; records whether the client then closed."""
    conn.recv(65536)
    conn.sendall(answer)
    conn.settimeout(60)  # a hang guard: the client closes at its read timeout
    try:
        closed.append(conn.recv(65536) == b"")
    except OSError:
        closed.append(False)


@pytest.mark.parametrize(
    "answer",
    [b"", b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"],
    ids=["no-head", "body-stalled"],
)
def test_a_connection_whose_exchange_timed_out_is_closed(answer: bytes) -> None:
    """The answer stops (before its head, or in its body): the read timeout ends the request, and its
    connection is closed at once (the server sees the close), none left open or counted in flight."""
    closed: list[bool] = []
    with _listening(lambda conn: _closed_by_client(conn, answer, closed)) as port:
        client = new_client(0.3, blocking=True).httpx
        pool = client._transport._pool
        try:
            with pytest.raises(httpx.ReadTimeout):
                client.get(f"http://127.0.0.1:{port}/a").read()
            in_flight = len(pool._active)
        finally:
            client.close()
    assert (closed, in_flight) == ([True], 0)


def test_a_response_given_up_before_its_end_does_not_leave_its_connection_for_the_next() -> None:
    """The first answer's body is cut off by the client (a stream closed after its first bytes): the rest,
    sent later, must not be read as the next request's answer. The first connection sends the rest with
    the next answer if asked again over it; a new connection answers cleanly."""
    rest = b"def" + b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged"
    connections = [0]

    def serve(conn: socket.socket) -> None:
        connections[0] += 1
        if connections[0] > 1:
            _answering_ok(conn)
            return
        with contextlib.suppress(OSError):
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabc")
            conn.settimeout(60)  # a hang guard: the client closes, or asks again over it
            if conn.recv(65536):
                conn.sendall(rest)

    with _listening(serve) as port:
        client = _client()
        try:
            with client.stream("GET", f"http://127.0.0.1:{port}/a") as answer:
                first = next(answer.iter_raw())
            second = client.get(f"http://127.0.0.1:{port}/b").text
        finally:
            client.close()
    assert (first, second, connections[0]) == (b"abc", "ok", 2)


def test_the_pools_key_takes_each_schemes_default_port_and_a_closed_pool_takes_no_request() -> None:
    assert origin(httpcore.URL("https://example.test/a"), False) == (b"https", b"example.test", 443)
    assert origin(httpcore.URL("http://example.test/a"), False) == (b"http", b"example.test", 80)
    pool = BlockingPool(None)
    pool.close()
    with pytest.raises(RuntimeError, match="the connection pool is closed"):
        pool.handle_request(httpcore.Request("GET", "http://127.0.0.1:9/"))


def test_an_answer_sent_before_the_body_was_read_is_read_though_the_upload_failed() -> None:
    """The server answers 413 after the request's head and closes, the body unread: the send fails (a
    reset, a broken pipe), and the answer is read as httpcore reads it, not the send's error shown."""

    def refuse(conn: socket.socket) -> None:
        conn.recv(65536)
        conn.sendall(
            b"HTTP/1.1 413 Content Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo big!"
        )

    with _listening(refuse) as port:
        client = _client()
        try:
            answer = client.post(f"http://127.0.0.1:{port}/up", content=b"x" * 2**25)  # past the buffers
        finally:
            client.close()
    assert (answer.status_code, answer.text) == (413, "too big!")


def test_closing_the_pool_from_another_thread_ends_a_request_waiting_without_a_timeout() -> None:
    """A request blocked reading an answer that never comes, with no timeout at all, fails as httpcore's
    pool fails it ("the connection pool was closed") once another thread closes the pool: the socket is
    shut down, not only closed (on Linux a close alone leaves the other thread's `recv` waiting)."""
    arrived = threading.Event()

    def silent(conn: socket.socket) -> None:
        conn.recv(65536)
        arrived.set()
        _silent(conn)

    with _listening(silent) as port:
        client = new_client(None, blocking=True).httpx
        pool = client._transport._pool
        assert isinstance(pool, BlockingPool)
        failures: list[BaseException] = []

        def request() -> None:
            try:
                client.get(f"http://127.0.0.1:{port}/never")
            except BaseException as exc:
                failures.append(exc)

        thread = threading.Thread(target=request, daemon=True)
        thread.start()
        assert arrived.wait(OWN_TIMEOUT)
        pool.close()
        thread.join(OWN_TIMEOUT)  # a hang guard: the close ends the wait at once
        assert not thread.is_alive(), "the request still waits after its pool was closed"
        client.close()
    assert [type(exc) for exc in failures] == [httpx.ReadError]
    assert "the connection pool was closed" in str(failures[0])


@pytest.fixture
def slow_names(monkeypatch) -> Iterator[threading.Event]:
    """Host names ending in `.slow` resolve to 127.0.0.1 only once the returned event is set (a resolver
    that does not answer); every other name resolves as it would."""
    release = threading.Event()
    resolve = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("flags", 0) & socket.AI_NUMERICHOST:  # no lookup: an IP literal read, a name refused
            return resolve(host, port, *args, **kwargs)
        if isinstance(host, str) and host.endswith(".slow"):
            release.wait(60)
            host = "127.0.0.1"
        if host == "unknown.test":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return resolve(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    try:
        yield release
    finally:
        release.set()


@pytest.mark.parametrize("host", ["api.slow", "1api.slow"], ids=["name", "name-starting-with-a-digit"])
def test_a_host_name_whose_lookup_outlasts_the_limit_is_a_connect_timeout_and_the_limit_fired(
    slow_names, host: str
) -> None:
    """`1api.slow` starts like an IPv4 literal but is a name: it is looked up on the lookup's own thread,
    within the time left, not in place (where the resolver could outlast the limit)."""
    client = _client()
    try:
        with bounded.limited(0.3) as limit, pytest.raises(httpx.TimeoutException) as failed:
            client.get(f"http://{host}:1/never")
    finally:
        client.close()
    assert type(failed.value) is httpx.ConnectTimeout
    assert f"the lookup of {host} took longer than the time left" in str(failed.value)
    assert limit.fired


def test_a_host_name_is_looked_up_within_a_limit_and_a_failed_lookup_is_a_connect_error(slow_names) -> None:
    slow_names.set()  # the resolver answers at once
    with _listening(_answering_ok) as port:
        client = _client()
        try:
            with bounded.limited(30) as limit:
                assert client.get(f"http://api.slow:{port}/").text == "ok"
                with pytest.raises(httpx.ConnectError, match="Name or service not known"):
                    client.get("http://unknown.test/")
        finally:
            client.close()
    assert not limit.fired
