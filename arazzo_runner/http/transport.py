"""Sending requests: one pooled httpx.AsyncClient per run, bodies read incrementally, faults named."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .body import is_json, is_xml
from .headers import Headers

if TYPE_CHECKING:
    import httpx

    from .request import PreparedRequest

DEFAULT_MAX_BODY = 64 * 2**20


class TransportError(Exception):
    """The exchange failed below HTTP semantics: refused, reset, timed out, TLS, unreadable body."""


@dataclass
class Response:
    status_code: int
    headers: Headers
    body: Any  # parsed JSON, merged SSE, str for text/XML, bytes otherwise, None when empty
    content: bytes
    content_type: str | None
    elapsed_ms: float
    notes: list[str] = field(default_factory=list)


def new_client(timeout: float | None, **options: Any) -> httpx.AsyncClient:
    import httpx

    return httpx.AsyncClient(timeout=httpx.Timeout(timeout), follow_redirects=False, **options)


async def send(
    client: httpx.AsyncClient,
    request: PreparedRequest,
    *,
    timeout: float | None,
    max_body: int = DEFAULT_MAX_BODY,
) -> Response:
    import httpx

    started = time.perf_counter()
    try:
        async with client.stream(
            request.method,
            request.url,
            headers=request.headers,
            content=request.content,
            timeout=httpx.Timeout(timeout) if timeout is not None else httpx.USE_CLIENT_DEFAULT,
        ) as raw:
            headers = Headers(raw.headers.multi_items())
            content_type = raw.headers.get("content-type")
            if _is_event_stream(content_type):
                body, content, notes = await _read_events(raw, max_body)
            else:
                content, notes = await _read_all(raw, max_body)
                body = parse_body(content, content_type)
            status = raw.status_code
    except httpx.HTTPError as exc:
        raise TransportError(describe_error(exc, timeout)) from None
    elapsed = (time.perf_counter() - started) * 1000
    return Response(status, headers, body, content, content_type, elapsed, notes)


async def _read_all(raw: httpx.Response, max_body: int) -> tuple[bytes, list[str]]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in raw.aiter_bytes():
        size += len(chunk)
        if size > max_body:
            raise TransportError(f"response body exceeds the limit of {max_body} bytes")
        chunks.append(chunk)
    return b"".join(chunks), []


async def _read_events(raw: httpx.Response, max_body: int) -> tuple[Any, bytes, list[str]]:
    from .sse import EventStreamParser, decode_event_stream

    parser = EventStreamParser()
    events = []
    chunks: list[bytes] = []
    size = 0
    async for chunk in raw.aiter_bytes():
        size += len(chunk)
        if size > max_body:
            raise TransportError(f"event stream exceeds the limit of {max_body} bytes")
        chunks.append(chunk)
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    body = decode_event_stream(events)
    notes = []
    if isinstance(body, dict) and body.get("stream_complete") is False:
        notes.append("the event stream ended before 'data: [DONE]'")
    return body, b"".join(chunks), notes


def _is_event_stream(content_type: str | None) -> bool:
    return bool(content_type) and content_type.split(";", 1)[0].strip().lower() == "text/event-stream"


def parse_body(content: bytes, content_type: str | None) -> Any:
    """JSON bodies are parsed (invalid JSON is a failure, not a silent string); text stays text."""
    if not content:
        return None
    if is_json(content_type):
        try:
            return json.loads(content)
        except ValueError as exc:
            raise TransportError(
                f"the response says {content_type} but its body is not valid JSON: {exc}"
            ) from None
    if content_type is None:
        try:
            return json.loads(content)
        except ValueError:
            pass
    base = (content_type or "").split(";", 1)[0].strip().lower()
    if base.startswith("text/") or is_xml(content_type) or content_type is None:
        return content.decode(_charset(content_type), "replace")
    return content


def _charset(content_type: str | None) -> str:
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"')
    return "utf-8"


def describe_error(exc: Exception, timeout: float | None) -> str:
    """A one-line cause for a transport failure, e.g. 'connection refused (http://127.0.0.1:9/x)'."""
    import httpx

    url = ""
    with contextlib.suppress(AttributeError, RuntimeError):  # not every error carries its request
        url = f" ({exc.request.method} {exc.request.url})"  # type: ignore[attr-defined]
    if isinstance(exc, httpx.TimeoutException):
        kind = {
            httpx.ConnectTimeout: "connect",
            httpx.ReadTimeout: "read",
            httpx.WriteTimeout: "write",
            httpx.PoolTimeout: "pool",
        }.get(type(exc), "")
        limit = f" after {timeout:g} s" if timeout else ""
        return f"{kind + ' ' if kind else ''}timed out{limit}{url}"
    if isinstance(exc, httpx.ConnectError):
        text = str(exc) or "connection failed"
        if "refused" in text.lower() or "errno 111" in text.lower():
            return f"connection refused{url}"
        if "name or service not known" in text.lower() or "nodename nor servname" in text.lower():
            return f"cannot resolve the host name{url}"
        if "ssl" in text.lower() or "certificate" in text.lower():
            return f"TLS error: {text}{url}"
        return f"cannot connect: {text}{url}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the server closed the connection mid-response: {exc}{url}"
    if isinstance(exc, httpx.ReadError):
        return f"connection reset while reading the response: {exc or 'read error'}{url}"
    if isinstance(exc, httpx.UnsupportedProtocol):
        return f"unsupported URL: {exc}{url}"
    return f"{type(exc).__name__}: {exc}{url}"
