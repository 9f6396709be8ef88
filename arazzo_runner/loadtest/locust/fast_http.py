"""A user's HTTP client on geventhttpclient, the client under Locust's `FastHttpUser` (it comes with
Locust): its connection pool and its C parser (llhttp), behind the calls the engine makes of a run's
client (`http/run_client.py`: `stream`, `post`, `cookies`, `aclose`).

The requests are httpx's, byte for byte: the header lines httpx writes in its order (Host first, then the
client's defaults Accept, Accept-Encoding, Connection, User-Agent unless the request sets them, then the
request's, then Content-Length as httpx sets it), the same request target; bodies are handed over as they
came and decoded by the reader as on httpx (`bounds/decoding.py`: piece by piece, within the byte limit);
failures are raised as the httpx errors httpx
would raise, with their request and cause, so `http/transport.send` describes them in the same words.
Whatever it does not take on goes to an ordinary httpx.Client of the user's, the reference: a URL httpx
would rewrite (a character to escape, a dot segment, another scheme), a proxy from the environment, a
header httpx would refuse or that the engine left to httpx, a cookie jar holding cookies, token requests.

Time limits: each socket operation gets the request's timeout (connect with the TLS handshake, the write,
each read: httpx's `Timeout(t)`); the runtime's `within` (a gevent.Timeout) bounds the whole exchange.
An exchange cut short in any way closes its connection, so no late answer is read by a later request.
"""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import ssl
from typing import Any, ClassVar

import httpx
from geventhttpclient.connectionpool import ConnectionPool
from geventhttpclient.response import HTTPConnectionClosed, HTTPSocketPoolResponse

from ...http.transport import new_client
from ...sources.tls import default_tls_context

_LOG = logging.getLogger("httpx")  # the line httpx logs for each request, when enabled
_LOG_LINE = 'HTTP Request: %s %s "HTTP/1.1 %d %s"'
READ_SIZE = 65536  # bytes per read, as httpcore reads
POOL_SIZE = 10  # connections per origin and user, as a FastHttpUser has
MAX_ORIGINS = 64  # origins with a pool of their own per user; others go through httpx
MAX_FIELDS = 256  # sets of request headers whose lines a user keeps written
_TARGET = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*")  # httpx sends it unchanged
_NAME = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")  # h11's rules for the header lines it writes
_VALUE = re.compile(rb"(?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?")
_LEFT_TO_HTTPX = frozenset({"host", "content-length", "transfer-encoding"})
_BODY_METHODS = ("POST", "PUT", "PATCH")  # httpx sends `Content-Length: 0` when they carry nothing
_NO_ANSWER = "Server disconnected without sending a response."  # httpcore's words
_CUT_SHORT = "peer closed connection without sending complete message body"  # h11's


class FastClient:
    """One Locust user's client: a pool per origin (`_Origin`), and its httpx.Client (`slow`) for the rest;
    the cookie jar is the httpx client's. `counts` (of the process): requests of each lane, told at the
    end of the test."""

    counts: ClassVar[dict[str, int]] = {"geventhttpclient": 0, "httpx": 0}

    def __init__(self, timeout: float | None, verify: Any = None) -> None:
        self.context = default_tls_context() if verify is None else verify
        self.slow = new_client(timeout, blocking=True, verify=self.context)  # http/run_client.BlockingClient
        client: httpx.Client = self.slow.httpx
        self.timeout = timeout
        # (raw name, lower-case str name: compared with the request's names, raw value)
        self.defaults = [(name, name.decode("ascii").lower(), value) for name, value in client.headers.raw]
        self.origins: dict[str, _Origin | None] = {}
        self.fields: dict[tuple[tuple[str, Any], ...], bytes | None] = {}  # header lines by request headers
        self.closed = False
        self._jar = client.cookies.jar  # the standard library's CookieJar under httpx's Cookies

    def has_cookies(self) -> bool:
        """Whether the jar holds a cookie: its dict of domains first (empty after `clear()`: nothing to
        walk, no lock to take, as at the start of every iteration), else httpx's answer."""
        return bool(getattr(self._jar, "_cookies", True)) and bool(self.slow.cookies)

    @property
    def cookies(self) -> httpx.Cookies:
        return self.slow.cookies

    @property
    def is_closed(self) -> bool:
        return self.closed

    def stream(self, method: str, url: str, *, headers: Any = (), content: Any = None, **options: Any) -> Any:
        """`async with client.stream(...) as response`, as the engine's run clients give it."""
        fast = self._fast(method, url, headers, content)
        if fast is None:
            self.counts["httpx"] += 1
            return self.slow.stream(method, url, headers=headers, content=content, **options)
        self.counts["geventhttpclient"] += 1
        origin, head = fast
        return _Exchange(self, origin, method, url, head + (content or b""), _seconds(options, self.timeout))

    async def post(self, url: str, **options: Any) -> httpx.Response:
        return await self.slow.post(url, **options)

    async def aclose(self) -> None:
        self.closed = True
        for origin in self.origins.values():
            if origin is not None:
                origin.pool.close()
        await self.slow.aclose()

    def _fast(self, method: str, url: str, headers: Any, content: Any) -> tuple[_Origin, bytes] | None:
        """The origin and the request head httpx would send, or None for a request httpx must send."""
        if (content is not None and type(content) is not bytes) or not method.isupper() or self.has_cookies():
            return None  # a body httpx encodes, a method it upper-cases, cookies of the jar to send
        parts = _split(url)
        if parts is None:
            return None
        prefix, target = parts
        origin = self.origins.get(prefix, False)
        if origin is False:
            origin = self._origin(prefix)
        if origin is None:
            return None
        key = tuple(headers)
        fields = self.fields.get(key, False)
        if fields is False:
            if len(self.fields) >= MAX_FIELDS:
                self.fields.clear()
            fields = self.fields[key] = _lines(key, self.defaults)
        if fields is None:
            return None
        empty = b"Content-Length: 0\r\n" if not content and method in _BODY_METHODS else b""
        length = b"Content-Length: %d\r\n" % len(content) if content else b""
        head = b"%s %s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n" % (
            method.encode(),
            target.encode(),
            origin.netloc,
            empty,
            fields,
            length,
        )
        return origin, head

    def _origin(self, prefix: str) -> _Origin | None:
        """The pool of `scheme://authority`, made on first use; None when httpx must send to it."""
        origin = None
        if len(self.origins) < MAX_ORIGINS:
            try:
                url = httpx.URL(prefix)
            except httpx.InvalidURL:
                url = None
            client = self.slow.httpx
            if (
                url is not None
                and url.scheme in ("http", "https")
                and not url.userinfo
                and url.raw_host
                and client._transport_for_url(url) is client._transport  # no proxy for it
            ):
                tls = url.scheme == "https"
                host = url.raw_host.decode("ascii")
                port = url.port or (443 if tls else 80)
                origin = _Origin(url.netloc, _Pool(host, port, self.context if tls else None))
        self.origins[prefix] = origin
        return origin


def _lines(headers: tuple[tuple[str, Any], ...], defaults: list[tuple[bytes, str, bytes]]) -> bytes | None:
    """The header lines httpx writes between Host and Content-Length for these request headers: the
    client's defaults the request does not set, then the request's (None: httpx must send it)."""
    given: list[tuple[bytes, str, bytes]] = []
    for name, value in headers:
        if not name.isascii() or not (value.isascii() if type(value) is str else type(value) is bytes):
            return None
        raw_name, raw_value = name.encode(), value.encode() if type(value) is str else value
        lower = name.lower()
        if lower in _LEFT_TO_HTTPX or not _NAME.fullmatch(raw_name) or not _VALUE.fullmatch(raw_value):
            return None  # httpx refuses it (with the error the step reports), or sets it itself
        given.append((raw_name, lower, raw_value))
    named = {lower for _, lower, _ in given}
    lines = [b"%s: %s\r\n" % (name, value) for name, lower, value in defaults if lower not in named]
    lines.extend(b"%s: %s\r\n" % (name, value) for name, _, value in given)
    return b"".join(lines)


class _Origin:
    __slots__ = ("netloc", "pool")

    def __init__(self, netloc: bytes, pool: _Pool) -> None:
        self.netloc, self.pool = netloc, pool


class _Pool(ConnectionPool):
    """geventhttpclient's pool of one origin, with TLS by the run's context (as httpcore does it: the
    host name for SNI and verification, ALPN `http/1.1`, the handshake within the connect timeout)."""

    def __init__(self, host: str, port: int, context: ssl.SSLContext | None) -> None:
        super().__init__(host, port, host, port, size=POOL_SIZE)
        self.context = context
        self.host = host

    def _connect_socket(self, sock: Any, address: Any) -> Any:
        sock.connect(address)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio's transports set it
        if self.context is None:
            return sock
        import gevent.ssl

        load_trust = getattr(self.context, "load_trust", None)  # sources/tls.DeferredTrustContext
        if load_trust is not None:
            load_trust()
        self.context.set_alpn_protocols(["http/1.1"])
        return gevent.ssl.SSLSocket(sock=sock, server_hostname=self.host, _context=self.context)


class _Exchange:
    """One request on the fast lane: `async with` gives its response (`_Answer`), closed on leaving."""

    __slots__ = ("answer", "client", "data", "method", "origin", "seconds", "url")

    def __init__(
        self, client: FastClient, origin: _Origin, method: str, url: str, data: bytes, seconds: float | None
    ) -> None:
        self.client, self.origin, self.method, self.url, self.data = client, origin, method, url, data
        self.seconds = seconds
        self.answer: _Answer | None = None

    async def __aenter__(self) -> _Answer:
        pool = self.origin.pool
        pool.connection_timeout = pool.network_timeout = self.seconds
        try:
            sock = pool.get_socket()
        except Exception as exc:
            kind = httpx.ConnectTimeout if isinstance(exc, TimeoutError) else httpx.ConnectError
            raise _error(kind, exc, self) from exc
        try:
            sock.settimeout(self.seconds)
            sock.sendall(self.data)
        except TimeoutError as exc:
            pool.release_socket(sock)
            raise _error(httpx.WriteTimeout, exc, self) from exc
        except OSError:
            pass  # as httpcore: the server may have answered before it closed (a 413): read it
        except BaseException:
            pool.release_socket(sock)
            raise
        try:
            response = _Response(sock, pool, block_size=READ_SIZE, method=self.method)
        except HTTPConnectionClosed as exc:
            reset = exc.__context__  # reset before the first byte: httpcore's ReadError, not a close
            if isinstance(reset, ConnectionResetError):
                raise _error(httpx.ReadError, reset, self) from reset
            raise _error(httpx.RemoteProtocolError, None, self, _NO_ANSWER) from None
        except Exception as exc:
            raise _error(_read_error(exc), exc, self) from exc
        self.answer = answer = _Answer(response, self)
        if answer.set_cookie:
            self.client.cookies.extract_cookies(answer.httpx_response())
        if _LOG.isEnabledFor(logging.INFO):
            reason = response.status_message or ""
            _LOG.info(_LOG_LINE, self.method, httpx.URL(self.url), answer.status_code, reason)
        return answer

    async def __aexit__(self, *exc_info: Any) -> None:
        if self.answer is not None:
            self.answer.response.release()  # read whole: kept alive; cut short: closed


class _Response(HTTPSocketPoolResponse):
    """A 204 or 304 with a body after it, read as httpx reads it: ended at its headers, the rest dropped
    (and the connection closed), as geventhttpclient already reads an answer to HEAD."""

    def _on_headers_complete(self) -> int | bool | None:
        skip = super()._on_headers_complete()
        if self.get_code() in (204, 304):
            self._message_ended_in_skip_body = True
        return skip


class _Answer:
    """The response as `http/transport.send` reads it: `status_code`, `headers` (httpx's decoding of them:
    names in lower case, ascii else utf-8 else latin-1) and `aiter_raw` (the body as it came: its
    Content-Encoding is undone by the reader, `bounds/decoding.decoded`)."""

    __slots__ = ("exchange", "headers", "received", "response", "set_cookie", "status_code")

    def __init__(self, response: HTTPSocketPoolResponse, exchange: _Exchange) -> None:
        self.response, self.exchange, self.received = response, exchange, 0
        self.status_code = response.status_code
        self.headers = headers = _Headers([(name.lower(), value) for name, value in response.items()])
        self.set_cookie = "set-cookie" in headers.names

    @property
    def request(self) -> httpx.Request:
        return httpx.Request(self.exchange.method, self.exchange.url)

    async def aiter_raw(self) -> Any:
        response = self.response
        while True:
            try:
                chunk = response.read(READ_SIZE)
            except Exception as exc:
                raise _error(_read_error(exc), exc, self.exchange, self._incomplete(exc)) from exc
            if not chunk:
                break
            self.received += len(chunk)
            yield chunk

    def _incomplete(self, exc: Exception) -> str | None:
        """h11's words for a body cut short by the server (the engine says "closed mid-response")."""
        if str(exc) != "Incomplete response.":
            return None
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            return f"{_CUT_SHORT} (incomplete chunked read)"
        expected = self.response.content_length
        received = self.received + len(self.response._body_buffer)
        return f"{_CUT_SHORT} (received {received} bytes, expected {expected})"

    def httpx_response(self) -> httpx.Response:
        request = httpx.Request(self.exchange.method, self.exchange.url)
        return httpx.Response(self.status_code, headers=self.headers.raw, request=request)


class _Headers:
    """The response headers with the calls `send` makes: `multi_items()` and `get()` (repeated: joined).
    geventhttpclient reads them as latin-1; httpx reads them as ascii, else utf-8, else latin-1."""

    __slots__ = ("encoding", "items", "names")

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self.encoding = "latin-1"
        names: dict[str, str] = {}  # lower-case name -> its values joined (what `get` answers)
        for name, value in items:  # plain loops, no generator: every response makes one
            if not value.isascii():
                raw = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in items]
                with contextlib.suppress(UnicodeDecodeError):  # else latin-1, as read
                    items, self.encoding = [(n.decode(), v.decode()) for n, v in raw], "utf-8"
                break
        for name, value in items:
            found = names.get(name)
            names[name] = value if found is None else f"{found}, {value}"
        self.items, self.names = items, names

    @property
    def raw(self) -> list[tuple[bytes, bytes]]:
        return [(name.encode(self.encoding), value.encode(self.encoding)) for name, value in self.items]

    def multi_items(self) -> list[tuple[str, str]]:
        return self.items

    def get(self, name: str, default: Any = None) -> Any:
        return self.names.get(name.lower(), default)


def _split(url: str) -> tuple[str, str] | None:
    """(`scheme://authority`, the request target) when httpx would send the target as written."""
    start = url.find("://")
    if start <= 0:
        return None
    end = len(url)
    for mark in "/?#":
        at = url.find(mark, start + 3)
        if 0 <= at < end:
            end = at
    rest = url[end:].split("#", 1)[0]
    if not rest.startswith("/"):
        rest = "/" + rest
    if not _TARGET.fullmatch(rest) or "/." in rest.split("?", 1)[0]:
        return None
    return url[:end], rest


def _seconds(options: dict[str, Any], default: float | None) -> float | None:
    timeout = options.get("timeout")
    return timeout.read if isinstance(timeout, httpx.Timeout) else default


def _read_error(exc: Exception) -> type[httpx.HTTPError]:
    """The httpx error for a failure while the response is read (httpcore's mapping)."""
    if isinstance(exc, TimeoutError):
        return httpx.ReadTimeout
    if isinstance(exc, OSError):
        return httpx.ReadError
    return httpx.RemoteProtocolError


def _error(
    kind: type[httpx.HTTPError], cause: BaseException | None, exchange: _Exchange, message: str | None = None
) -> httpx.HTTPError:
    """`kind` with httpx's message (the cause's text), raised from the cause, carrying its request."""
    return _attached(kind(message or str(cause)), exchange)


def _attached(error: Any, exchange: _Exchange) -> Any:
    error.request = httpx.Request(exchange.method, exchange.url)  # as httpx's errors carry their request
    return error
