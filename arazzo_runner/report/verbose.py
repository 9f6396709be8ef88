"""`--verbose` lines: each request as it goes out (`>`) and each response as it arrives (`<`), masked."""

from __future__ import annotations

from http import HTTPStatus

from ..masking.secrets import Masker
from ..result import Exchange
from .bodies import VERBOSE_LIMIT, Body, header, render_body
from .terminal import split_lines


def request_lines(exchange: Exchange, masker: Masker, limit: int = VERBOSE_LIMIT) -> list[str]:
    purpose = f"  ({exchange.purpose})" if exchange.purpose else ""  # e.g. an OAuth2 token request
    lines = [f"> {exchange.method} {masker.url(exchange.url)}{purpose}"]
    lines.extend(f"> {name}: {value}" for name, value in masker.headers(exchange.request_headers))
    content_type = header(exchange.request_headers, "content-type")
    body = render_body(exchange.request_body, content_type, masker, limit=limit, pretty=True)
    return lines + body_lines(body, ">")


def response_lines(exchange: Exchange, masker: Masker, limit: int = VERBOSE_LIMIT) -> list[str]:
    if exchange.status_code is None:
        return [f"< no response after {exchange.duration_ms:.0f} ms: {masker.text(exchange.error or '')}"]
    lines = [f"< {exchange.status_code} {status_text(exchange.status_code)}  {exchange.duration_ms:.0f} ms"]
    lines.extend(f"< {name}: {value}" for name, value in masker.headers(exchange.response_headers))
    content_type = header(exchange.response_headers, "content-type")
    body = render_body(
        exchange.response_body,
        content_type,
        masker,
        limit=limit,
        pretty=True,
        known_json=exchange.response_json,
    )
    return lines + body_lines(body, "<")


def body_lines(body: Body, mark: str) -> list[str]:
    if body.kind == "empty":
        return []
    if body.kind == "binary":
        return [mark, f"{mark} ({body.size} bytes of binary data)"]
    lines = [mark]
    if body.kind == "event-stream":
        lines.append(f"{mark} (event stream: {body.events} events, {body.size} bytes; the body they make:)")
    lines.extend(f"{mark} {line}" for line in split_lines(body.text or ""))
    if body.omitted:
        lines.append(f"{mark} ... ({body.omitted} more bytes)")
    return lines


def status_text(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return ""
