"""`--har PATH`: every HTTP exchange of the run as HAR 1.2, masked, in the order the requests started.

Sizes of headers are not known (`headersSize: -1`); `timings` holds the whole exchange as `wait`. Text
bodies are kept up to 1 MiB (masked); a binary body is given by size only (`content.comment`). An
exchange that got no response has status 0 and its cause in `_error`. Each entry's `comment` names the
workflow and step (and the row, with `--inputs-file`: the rows' exchanges in one log, by start time), then
the contract violations of its response, if any (`http/contract.py`).

`--record-http PATH` is the same file made to be answered from (`--replay-http`, `http/har_replay.py`):
every body whole (as the run kept it, within `--max-response-bytes`), a binary one in base64
(`encoding: base64`), and masked even under `--no-mask`: a recording never holds a secret.
"""

from __future__ import annotations

import base64
import copy
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


def har_dict(parts: list[Part], *, tool_version: str = "", recording: bool = False) -> dict[str, Any]:
    timed = []
    for part in parts:
        masker = _recording_masker(part.masker) if recording else part.masker
        for execution in executions(part.result):
            for step_name, step in step_names(execution.workflow.steps):
                attempt = 0
                for exchange in step.exchanges:
                    attempt += exchange.purpose is None  # a token request belongs to the attempt after it
                    what = exchange.purpose or f"attempt {attempt}"
                    comment = part.name(f"{execution.name} / {step_name} ({what})")
                    comment += masker.text(_contract(exchange))
                    timed.append((exchange.started_at, entry(exchange, masker, comment, recording)))
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


def _recording_masker(masker: Masker) -> Masker:
    """The run's masker, masking even under `--no-mask` (the same secrets and names)."""
    if masker.enabled:
        return masker
    masking = copy.copy(masker)
    masking.enabled = True
    return masking


def write_har(path: str, parts: list[Part], *, tool_version: str = "", recording: bool = False) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        write_json(handle, har_dict(parts, tool_version=tool_version, recording=recording))


def entry(exchange: Exchange, masker: Masker, comment: str = "", recording: bool = False) -> dict[str, Any]:
    duration = round(max(exchange.duration_ms, 0.0), 3)
    data: dict[str, Any] = {
        "startedDateTime": iso_time(exchange.started_at),
        "time": duration,
        "request": _request(exchange, masker, recording),
        "response": _response(exchange, masker, recording),
        "cache": {},
        "timings": {"send": 0, "wait": duration, "receive": 0},
        "comment": comment,
    }
    if exchange.error:
        data["_error"] = masker.text(exchange.error)
    return data


def _request(exchange: Exchange, masker: Masker, recording: bool) -> dict[str, Any]:
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
        body = _render(exchange.request_body, mime, masker, recording)
        data["postData"] = {"mimeType": mime, "params": [], "text": _text(body)}
        if recording and body.kind == "binary":
            data["postData"].update(_base64(exchange.request_body, masker))
    return data


def _response(exchange: Exchange, masker: Masker, recording: bool) -> dict[str, Any]:
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
    body = _render(exchange.response_body, mime, masker, recording, exchange.response_json)
    content: dict[str, Any] = {"size": body.size, "mimeType": mime}
    if recording and body.kind == "binary":
        content.update(_base64(exchange.response_body, masker))
    elif body.kind == "binary":
        content["comment"] = f"binary body of {body.size} bytes, not included"
    elif body.text is not None:
        content["text"] = _text(body)
    if recording and exchange.body_cut is not None:  # replayed as whole, it would read otherwise
        content["_cut"] = True
        content["comment"] = f"the body was cut at {exchange.body_cut} bytes (--max-response-bytes)"
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


def _render(
    content: bytes | None, mime: str, masker: Masker, recording: bool, known_json: bool = False
) -> Body:
    """A body as the report shows it: cut at FILE_LIMIT, or whole in a recording (`known_json`: the
    transport parsed it as JSON, it is not parsed again)."""
    limit = max(len(content or b""), 1) if recording else FILE_LIMIT
    return render_body(content, mime or None, masker, limit=limit, merge_events=False, known_json=known_json)


def _base64(content: bytes | None, masker: Masker) -> dict[str, str]:
    return {"text": base64.b64encode(masker.binary(content or b"")).decode("ascii"), "encoding": "base64"}


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
