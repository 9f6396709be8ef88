"""A recorded exchange back into what `http.transport.send` returns: the same `Response` (its body parsed
again from the recorded bytes, by the same rules); the request's digest that tells a recorded answer
from one to another request. (A transport failure is not recorded: a resumed run sends it again.)"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from ...http.headers import Headers
from ...http.transport import Response, is_event_stream, parse_or_explain


def request_digest(request: Any) -> str:
    """What must be the same for a recorded answer to be this request's: the method, the URL and the
    body (not the headers: a fresh OAuth2 token or an idempotency key differ between runs). The random
    boundary the engine gives a multipart body (`http/multipart.py`) is left out of it."""
    digest = hashlib.sha256(f"{request.method} {request.url}\n".encode())
    content = request.content or b""
    for name, value in request.headers:
        found = _OWN_BOUNDARY.search(value) if name.lower() == "content-type" else None
        if found is not None:
            content = content.replace(found.group(1).encode(), b"arazzo-boundary")
    digest.update(content)
    return digest.hexdigest()


_OWN_BOUNDARY = re.compile(r'boundary="?(arazzo-[0-9a-f]{32})')


def response_of(row: tuple[Any, ...], max_body: int) -> Response:
    """The recorded response (`JournalFile.exchange`'s row, its digest first)."""
    _, status, headers, content, content_type, elapsed, notes, error, oversize = row
    content = bytes(content or b"")
    parsed_json = False
    if oversize:
        body = None
    elif is_event_stream(content_type):
        body = _events(content, max_body)
    else:
        body, _, parsed_json = parse_or_explain(content, content_type)
    pairs = [(name, value) for name, value in json.loads(headers)]
    return Response(
        status,
        Headers(pairs),
        body,
        content,
        content_type,
        elapsed,
        json.loads(notes),
        error,
        oversize,
        json=parsed_json,
    )


def _events(content: bytes, max_body: int) -> Any:
    """An event stream's body, decoded from its recorded bytes as `transport._read_events` decoded it."""
    from ...http.sse import EventDecoder, EventLimits, EventStreamError, EventStreamParser

    parser = EventStreamParser()
    decoder = EventDecoder(EventLimits.for_body(max_body))
    try:
        decoder.add(parser.feed(content))
        decoder.add(parser.close())
    except EventStreamError:
        return content.decode("utf-8", "replace")
    return decoder.result()


def store_cookies(client: Any, request: Any, response: Response) -> None:
    """The recorded answer's Set-Cookie into the run's cookie jar, as its arrival would have put it: the
    steps after it send them back. The recorded headers hold repeated fields joined with ', ' (`Headers`):
    split again before each `name=` (an Expires date's comma is followed by a day, not a name)."""
    joined = response.headers.get("set-cookie")
    cookies = getattr(client, "cookies", None)
    if not joined or cookies is None:
        return
    import httpx

    headers = [("set-cookie", part) for part in _COOKIE_SPLIT.split(joined) if part.strip()]
    raw = httpx.Response(
        response.status_code, headers=headers, request=httpx.Request(request.method, request.url)
    )
    cookies.extract_cookies(raw)


_COOKIE_SPLIT = re.compile(r",\s*(?=[^;,=\s]+=)")
