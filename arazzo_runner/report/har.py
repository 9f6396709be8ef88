"""`--har PATH`: every HTTP exchange of the run as HAR 1.2, masked, in the order the requests started.

Sizes of headers are not known (`headersSize: -1`); `timings` holds the whole exchange as `wait`. Text
bodies are kept up to 1 MiB (masked); a binary body is given by size only (`content.comment`). An
exchange that got no response has status 0 and its cause in `_error`. Each entry's `comment` names the
workflow and step (and the row, with `--inputs-file`: the rows' exchanges in one log, by start time), then
the contract violations of its response, if any (`http/contract.py`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .. import DISTRIBUTION
from ..masking.secrets import Masker
from ..result import Exchange
from .bodies import FILE_LIMIT, Body, header, render_body
from .json_report import iso_time, write_json
from .verbose import status_text
from .walk import Part, executions, step_names

HTTP_VERSION = "HTTP/1.1"  # httpx speaks HTTP/1.1 unless a client with http2 is given


def har_dict(parts: list[Part], *, tool_version: str = "") -> dict[str, Any]:
    timed = []
    for part in parts:
        for execution in executions(part.result):
            for step_name, step in step_names(execution.workflow.steps):
                attempt = 0
                for exchange in step.exchanges:
                    attempt += exchange.purpose is None  # a token request belongs to the attempt after it
                    what = exchange.purpose or f"attempt {attempt}"
                    comment = part.name(f"{execution.name} / {step_name} ({what})")
                    comment += part.masker.text(_contract(exchange))
                    timed.append((exchange.started_at, entry(exchange, part.masker, comment)))
    timed.sort(key=lambda pair: pair[0])  # the exact start, finer than the millisecond shown
    entries = [data for _, data in timed]
    creator = {"name": DISTRIBUTION, "version": tool_version}
    log: dict[str, Any] = {"version": "1.2", "creator": creator, "pages": [], "entries": entries}
    interrupted = [part.label for part in parts if part.result.interrupted]
    if interrupted:
        during = f" during {', '.join(label for label in interrupted if label)}" if any(interrupted) else ""
        log["comment"] = (
            f"interrupted (Ctrl-C){during}: the exchanges that completed before it (the request in "
            "flight then is not included)"
        )
    return {"log": log}


def _contract(exchange: Exchange) -> str:
    """The contract violations of the exchange's response, for its comment (masked with the rest)."""
    if not exchange.contract:
        return ""
    from ..http.contract import Violation

    return "; contract: " + "; ".join(Violation.from_dict(v).text() for v in exchange.contract)


def write_har(path: str, parts: list[Part], *, tool_version: str = "") -> None:
    with open(path, "w", encoding="utf-8") as handle:
        write_json(handle, har_dict(parts, tool_version=tool_version))


def entry(exchange: Exchange, masker: Masker, comment: str = "") -> dict[str, Any]:
    duration = round(max(exchange.duration_ms, 0.0), 3)
    data: dict[str, Any] = {
        "startedDateTime": iso_time(exchange.started_at),
        "time": duration,
        "request": _request(exchange, masker),
        "response": _response(exchange, masker),
        "cache": {},
        "timings": {"send": 0, "wait": duration, "receive": 0},
        "comment": comment,
    }
    if exchange.error:
        data["_error"] = masker.text(exchange.error)
    return data


def _request(exchange: Exchange, masker: Masker) -> dict[str, Any]:
    headers = exchange.request_headers
    query = parse_qsl(urlsplit(exchange.url).query, keep_blank_values=True)
    data: dict[str, Any] = {
        "method": exchange.method,
        "url": masker.url(exchange.url),
        "httpVersion": HTTP_VERSION,
        "cookies": _cookies(headers, "cookie", masker),
        "headers": _headers(headers, masker),
        "queryString": [{"name": n, "value": masker.query(n, v)} for n, v in query],
        "headersSize": -1,
        "bodySize": len(exchange.request_body or b""),
    }
    if exchange.request_body:
        mime = header(headers, "content-type") or ""
        body = render_body(exchange.request_body, mime or None, masker, limit=FILE_LIMIT, merge_events=False)
        data["postData"] = {"mimeType": mime, "params": [], "text": _text(body)}
    return data


def _response(exchange: Exchange, masker: Masker) -> dict[str, Any]:
    if exchange.status_code is None:
        empty = {"size": 0, "mimeType": ""}
        return {
            "status": 0,
            "statusText": "",
            "httpVersion": "",
            "cookies": [],
            "headers": [],
            "content": empty,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        }
    headers = exchange.response_headers
    mime = header(headers, "content-type") or ""
    body = render_body(exchange.response_body, mime or None, masker, limit=FILE_LIMIT, merge_events=False)
    content: dict[str, Any] = {"size": body.size, "mimeType": mime}
    if body.kind == "binary":
        content["comment"] = f"binary body of {body.size} bytes, not included"
    elif body.text is not None:
        content["text"] = _text(body)
    return {
        "status": exchange.status_code,
        "statusText": status_text(exchange.status_code),
        "httpVersion": HTTP_VERSION,
        "cookies": _cookies(headers, "set-cookie", masker),
        "headers": _headers(headers, masker),
        "content": content,
        "redirectURL": masker.url(header(headers, "location") or ""),
        "headersSize": -1,
        "bodySize": len(exchange.response_body or b""),
    }


def _headers(pairs: list[tuple[str, str]], masker: Masker) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in masker.headers(pairs)]


def _cookies(pairs: list[tuple[str, str]], name: str, masker: Masker) -> list[dict[str, str]]:
    """Cookies of the `Cookie` header (all of them) or of each `Set-Cookie` (its first pair), masked."""
    cookies = []
    for header_name, value in masker.headers(pairs):
        if header_name.lower() != name:
            continue
        items = value.split(";") if name == "cookie" else value.split(";")[:1]
        for item in items:
            key, sep, text = item.strip().partition("=")
            if sep:
                cookies.append({"name": key, "value": text})
    return cookies


def _text(body: Body) -> str:
    if body.kind == "binary":
        return ""
    suffix = f"\n... ({body.omitted} more bytes)" if body.omitted else ""
    return (body.text or "") + suffix
