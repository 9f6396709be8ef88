"""A run client's exchange over the lean pool, without httpx's transport layer around it.

`RunClient` sends a step's request through the transport its client routes the URL to. When that is
httpx's own `AsyncHTTPTransport` over a `lean_pool.LeanPool` (the run's own client, the rows' shared
one), the transport's work is a copy: an `httpcore.Request` checked field by field (every header name
and value through `enforce_bytes`, ~14 calls a request), the pool's exceptions mapped through a
`contextmanager` made per request, an `httpx.Response` whose headers are normalised again one by one,
and a body read through three nested async generators (httpx's `aiter_raw` with its `ByteChunker` and
`request_context`, the transport's stream with another exception mapping, the pool's). With 200 rows in
flight the exchange was 35% of a row's CPU (cProfile, `bench/rows_network.py`'s run); 26% with this
module and the lighter request and read (`fast_request.py`, `bounds/decoding.py`).

`exchange` hands the pool the same request (method, URL parts and headers as httpx's transport passes
them, the same stream and extensions) and answers with an `httpx.Response` (`LeanResponse`: every
method of httpx's works on it) whose raw body is read straight from the pool's stream. The pool's
httpcore exceptions become httpx's as `map_httpcore_exceptions` makes them (the most specific class,
the same words, raised from the httpcore one), a body's carrying the request as `request_context`
adds it. `exchange_written` sends a request `wire_direct.py` wrote already (no httpx.Request made
until something reads it), and makes the `LeanResponse` without `httpx.Response.__init__` (the same
fields, set directly: ~15 k instructions less; `lean_response`, which the run client's exchange calls
itself, one coroutine less on each resume). Any other transport (a caller's, a proxy's,
`--replay-http`'s, one whose sending was replaced since: an instrumentation's) is sent through as before.
"""

from __future__ import annotations

import sys
from types import FunctionType
from typing import Any

import httpx

_TRANSPORT_SEND = httpx.AsyncHTTPTransport.handle_async_request
# httpx's own function: not one an instrumentation put in its place (which sees each request there)
_HTTPX_OWN = isinstance(_TRANSPORT_SEND, FunctionType) and _TRANSPORT_SEND.__module__.startswith("httpx.")
_LEAN_POOL = __package__ + ".lean_pool"  # imported by whoever made a LeanPool: not loaded otherwise
_MAPPED: dict[type, Any] = {}  # httpcore's exception class -> httpx's (None: not one of httpcore's)


def lean_pool(transport: Any) -> Any:
    """The `LeanPool` under `transport` when it is httpx's own transport's, sending as it does; else None."""
    pool = getattr(transport, "_pool", None)
    module = sys.modules.get(_LEAN_POOL)
    if module is None or type(pool) is not module.LeanPool:
        return None
    if type(transport).handle_async_request is not _TRANSPORT_SEND or not _HTTPX_OWN:  # sent another way
        return None
    return pool


class _URL:
    """httpcore.URL's fields as the pool and the connection read them."""

    __slots__ = ("host", "port", "scheme", "target")

    def __init__(self, scheme: bytes, host: bytes, port: int | None, target: bytes) -> None:
        self.scheme, self.host, self.port, self.target = scheme, host, port, target


class _Request:
    """httpcore.Request's fields as the pool and the connection read them (`lean_pool`, `wire_request`),
    from an httpx.Request whose parts httpx has checked already (bytes, or ASCII text made bytes)."""

    __slots__ = ("extensions", "headers", "method", "stream", "url")

    def __init__(self, request: httpx.Request, method: bytes) -> None:
        url = request.url
        self.method = method
        self.url = _URL(url.raw_scheme, url.raw_host, url.port, url.raw_path)
        self.headers = request.headers.raw
        self.stream = request.stream
        self.extensions = request.extensions


async def exchange(pool: Any, request: httpx.Request) -> httpx.Response | None:
    """`request` sent on `pool`, its answer's head read: an `httpx.Response` whose body is read from the
    connection; None when httpx's transport must send it (a method that is not ASCII: httpcore's
    TypeError, raised there)."""
    try:
        method = request.method.encode("ascii")
    except UnicodeEncodeError:
        return None
    return await exchange_written(pool, _Request(request, method), request)


async def exchange_written(pool: Any, sent: Any, request: httpx.Request | None = None) -> httpx.Response:
    """`sent` (httpcore's fields of a request, or a `wire_request.Written`) sent on `pool`, its answer's
    head read: an `httpx.Response` whose `request` is `request`, or for a Written the httpx.Request made
    of it when first read (`wire_direct.request_of`)."""
    try:
        answer = await pool.handle_async_request(sent)
    except Exception as exc:
        mapped = _httpx_error(exc)
        if mapped is None:
            raise
        raise mapped from exc
    return lean_response(answer, sent, request)


def lean_response(answer: Any, sent: Any, request: httpx.Request | None = None) -> httpx.Response:
    """The `LeanResponse` of the pool's `answer` to `sent` (see `exchange_written`)."""
    kind = _response_class()
    response = kind.__new__(kind)
    # what `httpx.Response.__init__` sets given a stream (tests/unit/http/test_wire_direct.py compares them)
    response.status_code = answer.status
    headers = response.headers = httpx.Headers.__new__(httpx.Headers)
    headers._list = [(name, name.lower(), value) for name, value in answer.headers]  # as Headers() does
    headers._encoding = None
    response._sent, response._written = request, (sent if request is None else None)
    response.next_request = None
    response.extensions = dict(answer.extensions)
    response.history = []
    response.is_closed = response.is_stream_consumed = False
    response.default_encoding = "utf-8"
    response.stream = _stream_class()(answer.stream)  # httpx's wrapper: a reader re-chunks (`aiter_raw(n)`)
    response._num_bytes_downloaded = 0
    return response


def _httpx_error(exc: Exception) -> httpx.RequestError | None:
    """httpx's exception for httpcore's `exc` (`map_httpcore_exceptions`: the most specific class of
    its table, `str(exc)` as its message); None when `exc` is not one of httpcore's."""
    kind = type(exc)
    if kind not in _MAPPED:
        from httpx._transports.default import _load_httpcore_exceptions

        found = None
        for source, target in _load_httpcore_exceptions().items():
            if issubclass(kind, source) and (found is None or issubclass(target, found)):
                found = target
        _MAPPED[kind] = found
    target = _MAPPED[kind]
    return None if target is None else target(str(exc))


mapped_error = _httpx_error  # (run_client's direct exchange maps them too)


def _response_class() -> Any:
    global _RESPONSE
    if _RESPONSE is None:
        _RESPONSE = _make_response_class()
    return _RESPONSE


def _stream_class() -> Any:
    global _STREAM
    if _STREAM is None:
        from httpx._transports.default import AsyncResponseStream

        _STREAM = AsyncResponseStream
    return _STREAM


_RESPONSE: Any = None
_STREAM: Any = None


def _make_response_class() -> Any:
    class LeanResponse(httpx.Response):
        """httpx.Response whose raw body (`aiter_raw()`, which `aread`, `aiter_bytes` and the engine's
        decoder read) comes from the pool's stream directly, and whose `aclose` closes it directly; its
        request (`_request`, which httpx's own methods read too) is made when first read for a request
        sent as `wire_request.Written`."""

        _sent: httpx.Request | None
        _written: Any

        @property
        def _request(self) -> httpx.Request | None:
            if self._sent is None and self._written is not None:
                from .wire_direct import request_of

                self._sent, self._written = request_of(self._written), None
            return self._sent

        @_request.setter
        def _request(self, value: httpx.Request | None) -> None:
            self._sent, self._written = value, None

        def aiter_raw(self, chunk_size: int | None = None) -> Any:
            if chunk_size is not None:  # httpx's re-chunking: its own reader
                return super().aiter_raw(chunk_size)
            return _Raw(self)

        def arrived_raw(self) -> bytes | None:
            """The raw body in one piece when all of it has arrived and nothing read it yet (the pool's
            `PooledBody.arrived`): what `aiter_raw()` gives, without its three async iterators over one
            another (~10 k instructions an answer), the response then consumed and closed as after
            them; None: read it with `aiter_raw()`."""
            if self.is_stream_consumed or self.is_closed:
                return None
            content = self.stream._httpcore_stream.arrived()  # type: ignore[union-attr]
            if content is not None:
                self.is_stream_consumed = self.is_closed = True
                self._num_bytes_downloaded = len(content)
            return content

        async def aclose(self) -> None:
            if not self.is_closed:
                self.is_closed = True
                await self.stream._httpcore_stream.aclose()  # type: ignore[union-attr]  # the pool's body: it raises nothing

    return LeanResponse


class _Raw:
    """The raw body's pieces (`httpx.Response.aiter_raw` without re-chunking): as httpx's generator, the
    response's state checked and marked at the first step; httpcore's errors as httpx's, carrying the
    request; the response closed at the end, as httpx closes it."""

    __slots__ = ("_body", "_done", "_response", "_started")

    def __init__(self, response: Any) -> None:
        self._response, self._body = response, response.stream._httpcore_stream
        self._done = self._started = False

    def __aiter__(self) -> _Raw:
        return self

    async def __anext__(self) -> bytes:
        if self._done:
            raise StopAsyncIteration
        response = self._response
        if not self._started:
            self._started = True
            if response.is_stream_consumed:
                self._done = True
                raise httpx.StreamConsumed()
            if response.is_closed:
                self._done = True
                raise httpx.StreamClosed()
            response.is_stream_consumed = True
            response._num_bytes_downloaded = 0
        try:
            chunk = await self._body.__anext__()
            while not chunk:  # httpx's chunker passes no empty piece on
                chunk = await self._body.__anext__()
        except StopAsyncIteration:
            self._done = True
            await response.aclose()
            raise
        except Exception as exc:
            mapped = _httpx_error(exc)
            if mapped is None:
                if isinstance(exc, httpx.RequestError):
                    exc.request = response._request
                raise
            mapped.request = response._request
            raise mapped from exc
        response._num_bytes_downloaded += len(chunk)
        return chunk
