"""The run's own HTTP client: httpx's, sending through its transport without the layers it does not use.

The client a run makes (`transport.new_client`) has no auth, follows no redirect and has no event hooks;
the layers `Client.send` / `AsyncClient.send` run for those cost ~45 µs of a ~250 µs request here.
`RunClient` (asyncio) and `BlockingClient` (a run that blocks its thread: an `httpx.Client` behind the
same async calls, each completing before it returns, so the engine's one transport code runs on
either) build the request with the client (its headers, cookies, timeout) and send it through the
transport the client routes the URL to (its pool, or a proxy's). They keep what the run relies on: the
request attached to any error (as httpx's `request_context` does: failures name their request),
Set-Cookie stored in the client's jar, the response closed whatever happens, httpx's log line.

A caller's client (`RunOptions.client`) is used as given, through `send`, with its hooks and auth.

`post` and `bounded_answer(client.stream(...))` (OAuth2 token requests, on any client: a caller's own
httpx client too) read the answer through the same bounded decoder as a step's body
(`bounds/decoding.py`), at most `MAX_POSTED_ANSWER` decoded bytes: httpx's own `post` reads it whole,
and a token endpoint answering a compression bomb took all it decoded to.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any

import httpx

from .fast_request import build, has_cookies
from .lean_exchange import exchange, lean_pool, lean_response, mapped_error
from .wire_direct import request_of, written

_LOG = logging.getLogger("httpx")  # httpx's own logger: the line its client logs for each request
MAX_POSTED_ANSWER = 2**20  # decoded bytes of a token endpoint's answer (a token is a few KB at most)


class AnswerTooLarge(httpx.DecodingError):
    """A posted request's answer is larger than `MAX_POSTED_ANSWER` decoded, or in a coding not undone
    within a bound here: it is not read further."""


async def bounded_answer(exchange: Any) -> httpx.Response:
    """The answer of `exchange` read within MAX_POSTED_ANSWER decoded bytes, as an httpx.Response whose
    content is the decoded body (its Content-Encoding and Content-Length dropped)."""
    from ..bounds.decoding import Undecodable, decoded

    async with exchange as raw:
        request = raw.request
        buffer = bytearray()
        try:
            async for piece in decoded(raw, MAX_POSTED_ANSWER):
                buffer += piece
                if len(buffer) > MAX_POSTED_ANSWER:
                    coding = raw.headers.get("content-encoding")
                    said = f" (decoded; Content-Encoding: {coding})" if coding else ""
                    raise AnswerTooLarge(
                        f"the answer is larger than the limit of {MAX_POSTED_ANSWER} bytes{said}: "
                        "reading stopped at the limit",
                        request=request,
                    )
        except Undecodable as exc:
            raise AnswerTooLarge(str(exc), request=request) from None
        kept = [(k, v) for k, v in raw.headers.multi_items() if k.lower() not in _RECODED]
        return httpx.Response(raw.status_code, headers=kept, content=bytes(buffer), request=request)


_RECODED = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def _request(
    client: httpx.Client | httpx.AsyncClient, method: str, url: str, options: dict, jar: Any = None
) -> Any:
    request = build(client, method, url, options)  # the same request, built for less (fast_request.py)
    if request is not None:
        return request if jar is None else _with_jar(request, jar)
    if jar is not None:  # a run's own jar beside a shared client (whose jar stays empty)
        return _with_jar(client.build_request(method, url, **options), jar)
    try:
        return client.build_request(method, url, **options)
    except UnicodeEncodeError:  # a cookie of the jar holds non-ASCII text: `_utf8_cookies`
        return _utf8_cookies(client, method, url, options)


def _with_jar(request: httpx.Request, jar: httpx.Cookies) -> httpx.Request:
    """`request` given `jar`'s Cookie header as httpx gives a client's (none when the request has one of
    its own: a step's cookie parameters), in UTF-8 when a cookie holds non-ASCII text."""
    if has_cookies(jar):
        try:
            jar.set_cookie_header(request)
        except UnicodeEncodeError:
            request.headers.encoding = "utf-8"
            jar.set_cookie_header(request)
    return request


def _utf8_cookies(client: httpx.Client | httpx.AsyncClient, method: str, url: str, options: dict) -> Any:
    """The request with its Cookie header in UTF-8. A server may set a cookie in UTF-8 (`sid=Zoë`;
    browsers send it back as it came); httpx encodes the Cookie header it adds in the encoding it finds
    the request's other headers in, ASCII, and raises UnicodeEncodeError. So the request is built
    without the jar (no await in between: nothing else uses the client meanwhile), then given the jar's
    Cookie header with the headers' encoding set to UTF-8."""
    jar = client.cookies
    client.cookies = httpx.Cookies()
    try:
        request = client.build_request(method, url, **options)
    finally:
        client._cookies = jar  # the same jar (the setter would copy it)
    request.headers.encoding = "utf-8"
    jar.set_cookie_header(request)
    return request


def _attach(exc: httpx.RequestError, request: httpx.Request) -> None:
    exc.request = request


def _received(
    client: Any, request: httpx.Request | None, response: httpx.Response, owner: Any = None
) -> None:
    """`request` (None: the response's own, made when read) set on `response`, its cookies stored, httpx's
    log line written."""
    if request is not None:
        response.request = request
    if _sets_cookies(response.headers):  # into the client's jar, or a shared client's run's own (`owner`)
        (client.cookies if owner is None else owner.cookies).extract_cookies(response)
    if _LOG.isEnabledFor(logging.INFO):  # (its arguments are worked out before `info` asks)
        request = response.request
        _LOG.info(
            'HTTP Request: %s %s "%s %d %s"',
            request.method,
            request.url,
            response.http_version,
            response.status_code,
            response.reason_phrase,
        )


def _sets_cookies(headers: httpx.Headers) -> bool:
    """`"set-cookie" in headers`, without httpx's lookup (which works out the headers' encoding and
    raises KeyError when the name is absent: ~15 k instructions a response)."""
    if type(headers) is httpx.Headers:
        return any([item[1] == b"set-cookie" for item in headers._list])  # (no generator a response)
    return "set-cookie" in headers


class RunClient:
    """The run's `httpx.AsyncClient`, with the calls the engine makes of it.

    `shared`: the client is a runtime's, under the runs it is given to (`PooledRuntime`); this run has
    its own cookie jar beside it (the shared client's stays empty: a row's or a call's cookies never
    reach another), and closing this run leaves the shared client open."""

    def __init__(self, client: httpx.AsyncClient, shared: bool = False) -> None:
        self.httpx = client
        self._shared = shared
        # shared: the run's own jar, made when a response sets a cookie or the jar is asked for (an
        # httpx.Cookies costs ~10 µs to make, most rows never need one); until then it is empty
        self._jar: httpx.Cookies | None = None
        self._closed = False

    def stream(self, method: str, url: str, **options: Any) -> _AsyncExchange:
        return _AsyncExchange(self.httpx, method, url, options, self if self._shared else None)

    async def post(self, url: str, **options: Any) -> httpx.Response:
        return await bounded_answer(self.stream("POST", url, **options))

    async def aclose(self) -> None:
        if not self._shared:
            await self.httpx.aclose()
        self._closed = True

    @property
    def is_closed(self) -> bool:
        return self._closed or self.httpx.is_closed

    @property
    def cookies(self) -> httpx.Cookies:
        if not self._shared:
            return self.httpx.cookies
        if self._jar is None:
            self._jar = httpx.Cookies()
        return self._jar


def run_view(client: httpx.AsyncClient) -> RunClient:
    """A run's client over `transport.shared_client`'s `client`: its own cookies; closing it leaves
    `client` open."""
    return RunClient(client, shared=True)


class BlockingClient:
    """The run's `httpx.Client` behind the same async calls; each completes before it returns."""

    def __init__(self, client: httpx.Client) -> None:
        self.httpx = client

    def stream(self, method: str, url: str, **options: Any) -> _BlockingExchange:
        return _BlockingExchange(self.httpx, method, url, options)

    async def post(self, url: str, **options: Any) -> httpx.Response:
        return await bounded_answer(self.stream("POST", url, **options))

    async def aclose(self) -> None:
        self.httpx.close()

    @property
    def is_closed(self) -> bool:
        return self.httpx.is_closed

    @property
    def cookies(self) -> httpx.Cookies:
        return self.httpx.cookies


class _AsyncExchange:
    """`async with client.stream(...) as response` (an httpx.Response, read with `aiter_raw` and decoded
    by `bounds/decoding.py`)."""

    __slots__ = ("_client", "_method", "_options", "_owner", "_response", "_url")

    def __init__(
        self, client: httpx.AsyncClient, method: str, url: str, options: dict[str, Any], owner: Any = None
    ) -> None:
        self._client, self._method, self._url, self._options = client, method, url, options
        self._owner = owner  # a shared client's run (`RunClient`): its own jar beside the client
        self._response: httpx.Response | None = None

    def __aenter__(self) -> Awaitable[httpx.Response]:
        # not a coroutine itself: the request written straight for the lean pool is sent by `_direct`,
        # one coroutine less on each resume of the exchange (every row's request)
        client, owner = self._client, self._owner
        jar = None if owner is None else owner._jar  # None for a run's jar not made yet: no cookie
        pool = None if client._mounts else lean_pool(client._transport)  # the one transport: the lean pool's
        sent = None if pool is None else written(client, self._method, self._url, self._options, jar)
        if sent is not None:  # its head written straight from the step's parts (http/wire_direct.py)
            return self._direct(pool, sent)
        return self._built(jar)

    async def _direct(self, pool: Any, sent: Any) -> httpx.Response:
        """`exchange_written(pool, sent)` inline, its failure carrying the request (made of `sent`)."""
        try:
            try:
                answer = await pool.handle_async_request(sent)
            except Exception as exc:  # httpcore's as httpx's (`lean_exchange.exchange_written`)
                mapped = mapped_error(exc)
                if mapped is None:
                    raise
                raise mapped from exc
        except httpx.RequestError as exc:
            _attach(exc, request_of(sent))
            raise
        response = self._response = lean_response(answer, sent)
        try:
            _received(self._client, None, response, self._owner)
        except BaseException:
            await response.aclose()
            raise
        return response

    async def _built(self, jar: Any) -> httpx.Response:
        client = self._client
        request = _request(client, self._method, self._url, self._options, jar)
        transport = client._transport_for_url(request.url)
        pool = lean_pool(transport)
        try:
            response = None if pool is None else await exchange(pool, request)  # http/lean_exchange.py
            if response is None:
                response = await transport.handle_async_request(request)
        except httpx.RequestError as exc:
            _attach(exc, request)
            raise
        self._response = response
        try:
            _received(client, request, response, self._owner)
        except BaseException:
            await response.aclose()
            raise
        return response

    def __aexit__(self, *exc_info: Any) -> Awaitable[None]:
        response = self._response
        if response is not None and not response.is_closed:  # (its `aclose` does nothing once closed)
            return response.aclose()
        return _DONE


class _Done:
    """An awaitable that is done: what `__aexit__` gives when there is nothing to close."""

    __slots__ = ()

    def __await__(self) -> Any:
        return iter(())


_DONE = _Done()


class _BlockingExchange:
    """The same over the sync client; the response is read with `aiter_raw` too (`_Response`)."""

    __slots__ = ("_client", "_method", "_options", "_response", "_url")

    def __init__(self, client: httpx.Client, method: str, url: str, options: dict[str, Any]) -> None:
        self._client, self._method, self._url, self._options = client, method, url, options
        self._response: httpx.Response | None = None

    async def __aenter__(self) -> _Response:
        client = self._client
        request = _request(client, self._method, self._url, self._options)
        try:
            response = client._transport_for_url(request.url).handle_request(request)
        except httpx.RequestError as exc:
            _attach(exc, request)
            raise
        self._response = response
        try:
            _received(client, request, response)
        except BaseException:
            response.close()
            raise
        return _Response(response)

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._response is not None:
            self._response.close()


class _Response:
    """The sync response with `aiter_raw` (the only async read the transport makes: the body as it came,
    its Content-Encoding undone by the reader, piece by piece, within its byte limit)."""

    __slots__ = ("_response", "headers", "status_code")

    def __init__(self, response: httpx.Response) -> None:
        self._response, self.headers, self.status_code = response, response.headers, response.status_code

    @property
    def request(self) -> httpx.Request:
        return self._response.request

    async def aiter_raw(self) -> Any:
        for chunk in self._response.iter_raw():
            yield chunk
