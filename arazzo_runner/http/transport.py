"""Sending requests: one pooled httpx.AsyncClient per run, bodies read incrementally, faults named."""

from __future__ import annotations

import functools
import io
import json
import ssl
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..bounds import json_stream, json_text
from ..bounds.decoding import Undecodable, accept_encoding, arrived, decoded, is_encoded
from ..bounds.limits import DEFAULT_MAX_BODY
from ..masking.secrets import clip
from ..records import Record, field
from .body import base_type, is_json, is_xml
from .charset import codec_of, text_of
from .failure_words import describe_error
from .headers import Headers

if TYPE_CHECKING:
    import httpx

    from .request import PreparedRequest


class TransportError(Exception):
    """The exchange failed below HTTP semantics: refused, reset, timed out, TLS, unreadable body."""


class Response(Record):
    status_code: int
    headers: Headers
    body: Any  # parsed JSON, merged SSE, str for text/XML, bytes otherwise, None when empty
    content: bytes
    content_type: str | None
    elapsed_ms: float
    notes: list[str] = field(default_factory=list)  # warnings about the response
    error: str | None = None  # a body that arrived but is unusable: the step fails whatever its criteria
    oversize: str | None = None  # why the body was not kept (above `max_body`): `content` is its start
    json: bool = False  # `content` was parsed as JSON into `body` (valid JSON: not to be parsed again)

    def __init__(
        self,
        status_code: int,
        headers: Headers,
        body: Any,
        content: bytes,
        content_type: str | None,
        elapsed_ms: float,
        notes: list[str] | None = None,
        error: str | None = None,
        oversize: str | None = None,
        json: bool = False,
    ) -> None:
        self.status_code, self.headers, self.body, self.content = status_code, headers, body, content
        self.content_type, self.elapsed_ms = content_type, elapsed_ms
        self.notes = [] if notes is None else notes
        self.error, self.oversize, self.json = error, oversize, json


def new_client(timeout: float | None, *, blocking: bool = False, replay: Any = None, **options: Any) -> Any:
    """The run's pooled client (http/run_client.py): an httpx.AsyncClient over `lean_pool`, or with
    `blocking` an httpx.Client behind the same calls over `blocking_wire`, whose pools hold the run's time
    limits (the environment's proxies' by http/bounded.py; `bounded.Unbounded` when they cannot be).
    Runs share one verifying TLS context whose CA bundle is read at the first TLS handshake (~14 ms):
    once per process, and never for plain-http runs (sources/tls.py). `replay` (`--replay-http`, an
    `HttpReplay`): a client whose transport answers from it and sends nothing (http/har_replay.py),
    whatever `options` say."""
    import httpx

    if replay is not None:
        return _replay_client(timeout, blocking, replay)
    from ..sources.tls import default_tls_context

    options.setdefault("verify", default_tls_context())
    kind = httpx.Client if blocking else httpx.AsyncClient
    client = kind(timeout=httpx.Timeout(timeout), follow_redirects=False, **options)
    client.headers["Accept-Encoding"] = accept_encoding()  # only the codings undone within a bound
    if type(getattr(client, "_cookies", None)) is httpx.Cookies:  # the private slot, as httpx 0.2x has it
        client._cookies = _cookie_jar_class()(client._cookies)
    from .run_client import BlockingClient, RunClient

    verify = options["verify"]
    own = isinstance(verify, ssl.SSLContext) and set(options) == {"verify"}  # no http2, no limits
    if own and type(client._transport) is (httpx.HTTPTransport if blocking else httpx.AsyncHTTPTransport):
        # The default transport over the engine's own pool: the rows' (http/lean_pool.py, http/wire.py;
        # `--parallel`, `x-forEach` loops and `arun` make many requests at once too), or for a blocking
        # run http/blocking_wire.py's. The environment's proxies keep their own transports
        # (`client._mounts`); the pool replaced never connected.
        from .blocking_wire import BlockingPool
        from .lean_pool import LeanPool

        client._transport._pool = (BlockingPool if blocking else LeanPool)(verify)
    if not blocking:
        from .readable import readable_pools

        return RunClient(readable_pools(client))
    from .bounded import bound_client

    try:
        return BlockingClient(bound_client(client))
    except Exception:
        client.close()
        raise


def _replay_client(timeout: float | None, blocking: bool, replay: Any) -> Any:
    import httpx

    from .har_replay import replay_transport
    from .run_client import BlockingClient, RunClient

    kind = httpx.Client if blocking else httpx.AsyncClient
    client = kind(timeout=httpx.Timeout(timeout), follow_redirects=False, transport=replay_transport(replay),
                  trust_env=False)  # fmt: skip
    client.headers["Accept-Encoding"] = accept_encoding()
    if type(getattr(client, "_cookies", None)) is httpx.Cookies:
        client._cookies = _cookie_jar_class()(client._cookies)
    return BlockingClient(client) if blocking else RunClient(client)


def shared_pool() -> Any:
    """A connection pool (httpx's transport over `lean_pool.LeanPool`) for the clients of many runs
    (`runtime.PooledRuntime`): a client closing leaves it open for the next run, `close_pool()` closes
    it. Its TLS context is the one every run's own client verifies with."""
    from ..sources.tls import default_tls_context
    from .lean_pool import lean_transport

    return lean_transport(default_tls_context(), _shared_pool_class())


def shared_client(timeout: float | None, pool: Any) -> Any:
    """The httpx client of many runs over `pool` (`shared_pool`), each run given a `RunClient` of its own
    with its own cookie jar (`run_client.run_view`): building an httpx client per run cost ~110 µs of
    CPU, a third of a row of `arazzo run --inputs-file` against a fast API."""
    import httpx

    client = httpx.AsyncClient(timeout=httpx.Timeout(timeout), follow_redirects=False, transport=pool)
    client.headers["Accept-Encoding"] = accept_encoding()  # only the codings undone within a bound
    return client


@functools.lru_cache(maxsize=1)
def _shared_pool_class() -> Any:
    import httpx

    class SharedPool(httpx.AsyncHTTPTransport):
        async def aclose(self) -> None:  # a run's client closing: the pool stays for the next runs
            pass

        async def close_pool(self) -> None:
            await super().aclose()

    return SharedPool


@functools.lru_cache(maxsize=1)
def _cookie_jar_class() -> Any:
    """httpx.Cookies that skips the cookie jar for responses without Set-Cookie.

    httpx hands every response to its cookie jar, building urllib request/response adapters (~6 µs a
    step) even when there is nothing to store; the result is the same, the work is not."""
    import httpx

    class SetCookieOnly(httpx.Cookies):
        def extract_cookies(self, response: httpx.Response) -> None:
            if "set-cookie" in response.headers:
                super().extract_cookies(response)

    return SetCookieOnly


async def send(
    client: httpx.AsyncClient,
    request: PreparedRequest,
    *,
    timeout: float | None,
    max_body: int = DEFAULT_MAX_BODY,
    uses: Callable[[], Any] | None = None,
) -> Response:
    """`uses`: what the step reads of a big JSON body, asked only for one (`parse_body`)."""
    started = time.perf_counter()
    oversize: str | None = None
    parsed_json = False
    try:
        async with client.stream(
            request.method,
            request.url,
            headers=[(name, value if value.isascii() else value.encode()) for name, value in request.headers],
            content=request.content,
            timeout=_timeout(timeout),
        ) as raw:
            headers = _headers(raw.headers)
            content_type = headers.get("content-type")
            if is_event_stream(content_type):
                body, content, error = await _read_events(raw, max_body)
            else:
                content = await _read_all(raw, max_body)
                body, error, parsed_json = parse_or_explain(content, content_type, uses)
            status = raw.status_code
    except _Oversize as over:  # stop reading: the rest is never received, let alone kept
        status, content, body, error, oversize = raw.status_code, over.prefix, None, over.error, over.note
    except Undecodable as exc:  # a coding not undone within a bound here: nothing read
        status, content, body, error = raw.status_code, b"", None, str(exc)
    except (_httpx().HTTPError, ssl.SSLError) as exc:  # a TLS alert after the handshake comes through raw
        line = f"{request.method} {clip(request.printed().url)}"
        raise TransportError(describe_error(exc, timeout, line, own=request.shown is not None)) from None
    except _httpx().InvalidURL as exc:  # the URL as printed: parts derived from a secret are `***`
        raise TransportError(f"invalid URL {clip(request.printed().url)!r}: {clip(str(exc))}") from None
    elapsed = (time.perf_counter() - started) * 1000
    notes = [oversize] if oversize else []
    read_as = codec_of(content_type)[1]  # a text body read as UTF-8, not as the charset it names
    if read_as and isinstance(body, str) and not is_event_stream(content_type):
        notes.append(read_as)
    return Response(
        status, headers, body, content, content_type, elapsed, notes, error, oversize, parsed_json
    )


def _headers(headers: Any) -> Headers:
    """`Headers(headers.multi_items())` (names in lower case, values decoded, repeats joined with ", " as
    httpx's `get` joins them): for httpx's Headers all in ASCII read from its list directly, without
    working out its encoding first (~25 k instructions a response), into the engine's Headers' table
    (its names are in lower case already: no list of pairs between, no `lower()` again)."""
    if type(headers) is _httpx().Headers:
        table: dict[str, tuple[str, str]] = {}
        try:
            for _, key, raw in headers._list:
                name, value = key.decode("ascii"), raw.decode("ascii")
                found = table.get(name)
                table[name] = (name, value) if found is None else (name, f"{found[1]}, {value}")
        except UnicodeDecodeError:
            pass  # UTF-8 or Latin-1: httpx decides which
        else:
            made = Headers.__new__(Headers)
            made._items = table
            return made
    return Headers(headers.multi_items())


@functools.lru_cache(maxsize=1)
def _httpx() -> Any:
    """httpx, imported on the first request (not again at each: `import` in `send` cost every row)."""
    import httpx

    return httpx


@functools.lru_cache(maxsize=32)
def _timeout(seconds: float | None) -> Any:
    """An httpx.Timeout per distinct value (immutable), not one per request."""
    import httpx

    return httpx.Timeout(seconds) if seconds is not None else httpx.USE_CLIENT_DEFAULT


class _Oversize(Exception):
    """The body passed `max_body`: reading stops; `prefix` is what was kept (at most `max_body` bytes).

    A body sent with a Content-Encoding is counted decoded, as it is decoded (http/decoding.py): past the
    limit it fails its step whatever the step reads (`error`), since a few compressed kilobytes that
    decode past the limit are a compression bomb, not an answer to judge by its status."""

    def __init__(self, prefix: bytes, max_body: int, raw: Any) -> None:
        super().__init__()
        self.prefix = prefix
        declared, coding = raw.headers.get("content-length"), raw.headers.get("content-encoding")
        coding = coding if is_encoded(coding) else None
        self.error: str | None = None
        if coding:
            self.error = (
                f"the response body is larger than the limit of {max_body} bytes (decoded; "
                f"max-response-bytes): it came with Content-Encoding: {coding}, reading stopped at the limit"
            )
        said = [f"Content-Encoding: {coding}"] if coding else []
        said += [f"Content-Length: {declared}"] if declared else []
        where = f" ({'decoded; ' if coding else ''}{', '.join(said)})" if said else ""
        self.note = (
            f"the response body is larger than the limit of {max_body} bytes{where}: only the first "
            f"{max_body}{' decoded' if coding else ''} bytes were read, the body was not parsed"
        )


async def _read_all(raw: httpx.Response, max_body: int) -> bytes:
    """The body, decoded piece by piece (a compression bomb counts at its real size), into a BytesIO,
    whose `getvalue()` hands over its own buffer: `bytes()` of a bytearray copied the body, twice its
    size at the peak (issue 43). A body of one piece (most answers) is that piece, without a buffer;
    one that had all arrived with its head, without reading it piece by piece (`arrived`)."""
    whole = arrived(raw)
    if whole is not None:
        if len(whole) > max_body:
            raise _Oversize(whole[:max_body], max_body, raw)
        return whole
    first: bytes | None = None
    buffer: io.BytesIO | None = None
    size = 0
    async for chunk in decoded(raw, max_body):
        over = size + len(chunk) > max_body
        if over:
            chunk = chunk[: max_body - size]
        if first is None:
            first = chunk if type(chunk) is bytes else bytes(chunk)
        else:
            if buffer is None:
                buffer = io.BytesIO()
                buffer.write(first)
            buffer.write(chunk)
        size += len(chunk)
        if over:
            raise _Oversize(_whole(first, buffer), max_body, raw)
    return _whole(first, buffer)


def _whole(first: bytes | None, buffer: io.BytesIO | None) -> bytes:
    return buffer.getvalue() if buffer is not None else b"" if first is None else first


def parse_or_explain(
    content: bytes, content_type: str | None, uses: Callable[[], Any] | None = None
) -> tuple[Any, str | None, bool]:
    """A received or recorded body read as the transport reads it (the journal's replay reads the same way):
    the parsed body, or (the body as text, why it is unusable) when it contradicts its content type;
    and whether it was read as JSON."""
    try:
        body, parsed_json = parse_body(content, content_type, uses)
    except TransportError as exc:
        return text_of(content, content_type), str(exc), False
    return body, None, parsed_json


async def _read_events(raw: httpx.Response, max_body: int) -> tuple[Any, bytes, str | None]:
    """The stream decoded as it arrives, within the bounds of its decoded form too (`EventLimits`): past
    them reading stops, and the body is the text read so far, with the cause as the step's error."""
    from .sse import EventDecoder, EventLimits, EventStreamError, EventStreamParser

    parser = EventStreamParser()
    decoder = EventDecoder(EventLimits.for_body(max_body))
    buffer = bytearray()
    try:
        async for chunk in decoded(raw, max_body):
            if len(buffer) + len(chunk) > max_body:
                buffer += chunk[: max_body - len(buffer)]
                raise _Oversize(bytes(buffer), max_body, raw)
            buffer += chunk
            decoder.add(parser.feed(chunk))
        decoder.add(parser.close())
    except EventStreamError as exc:
        content = bytes(buffer)
        error = f"{exc}: reading stopped, the body was not decoded"
        return content.decode("utf-8", "replace"), content, error
    body = decoder.result()
    error = None
    if isinstance(body, dict) and body.get("stream_complete") is False:
        error = "the event stream ended before 'data: [DONE]'"
    elif isinstance(body, dict) and body.get("error") is not None:
        error = f"the event stream reported an error: {_error_text(body['error'])}"
    return body, bytes(buffer), error


def _error_text(error: Any) -> str:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)


def is_event_stream(content_type: str | None) -> bool:
    return base_type(content_type) == "text/event-stream" if content_type else False


def parse_body(
    content: bytes, content_type: str | None, uses: Callable[[], Any] | None = None
) -> tuple[Any, bool]:
    """JSON bodies are parsed (invalid JSON is a failure, not a silent string); text stays text. With
    whether the body was read as JSON. A big JSON body whose every use the step can read from a stream
    (`uses()`: `bounds/json_stream.Uses`, or None) is read so, unless the stream does not read it as
    json.loads would: then it is parsed whole, as ever (`bounds/json_stream.py`)."""
    if not content:
        return None, False
    if is_json(content_type):
        if uses is not None and len(content) >= json_stream.STREAM_FROM:
            wanted = uses()
            streamed = None if wanted is None else json_stream.read(content, wanted)
            if streamed is not None:
                return streamed, True
        try:
            return json_text.loads(content), True
        except json_text.TooDeep as exc:
            raise TransportError(f"the response body {exc}: it was not parsed") from None
        except ValueError as exc:
            raise TransportError(
                f"the response says {content_type} but its body is not valid JSON: {exc}"
            ) from None
    if content_type is None:
        try:
            return json_text.loads(content), True
        except json_text.TooDeep as exc:
            raise TransportError(f"the response body {exc}: it was not parsed") from None
        except ValueError:
            pass
    base = (content_type or "").split(";", 1)[0].strip().lower()
    if base.startswith("text/") or is_xml(content_type) or content_type is None:
        return text_of(content, content_type), False
    return content, False
