"""How a request or response body is shown: masked, then truncated, binary as a byte count.

Masking comes before truncation, so a secret cut in two by the limit can never show half of itself. A
body much larger than the limit is masked as far as the cut and the longest secret beyond it, unless
masking changes that part (then it is masked whole): a 20 MB body shown as its first 500 bytes is not
scanned whole for secrets, nor parsed again when the transport read it as JSON (`known_json`). The
report writers show exchanges with it (their limits are in `report/bodies.py`); the executor keeps the
start of the response a step failed on with it (`result.ResponseExcerpt`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..bounds import json_text
from ..bounds.limits import DEFAULT_MAX_BODY
from ..masking.secrets import Masker
from ..records import Record
from .body import base_type, is_form, is_json, is_xml
from .charset import text_of

_TEXTUAL = ("application/javascript", "application/graphql", "application/yaml", "application/x-yaml")


class Body(Record):
    kind: str  # empty | text | json | binary | event-stream
    size: int  # bytes as sent or received
    text: str | None = None  # masked and cut to the limit
    omitted: int = 0  # bytes of `text` left out
    events: int = 0  # events of an event stream (`text` is then the merged body)


def render_body(
    content: bytes | None,
    content_type: str | None,
    masker: Masker,
    *,
    limit: int,
    pretty: bool = False,
    merge_events: bool = True,
    known_json: bool = False,
) -> Body:
    """`merge_events`: an event stream as the body it makes (else as the text that arrived);
    `known_json`: `content` was parsed as JSON already (it is not parsed again unless shown pretty)."""
    if not content:
        return Body("empty", 0)
    size = len(content)
    if merge_events and base_type(content_type) == "text/event-stream":
        return _event_stream(content, masker, limit, pretty)
    text = _decode(content, content_type)
    if text is None:
        return Body("binary", size)
    kind = "text"
    if known_json and not (pretty and size <= limit):
        kind = "json"
    elif is_json(content_type) or content_type is None:
        parsed = _json(text)
        if parsed is not _NOT_JSON:
            kind = "json"
            if pretty and size <= limit:
                text = json.dumps(parsed, indent=2, ensure_ascii=False)
    shown, omitted = _masked_cut(text, masker, limit)
    return Body(kind, size, shown, omitted)


def _masked_cut(text: str, masker: Masker, limit: int) -> tuple[str, int]:
    """`_cut(masker.text(text), limit)`, masking only the start of a text far longer than the limit: as
    far as the cut (`limit` bytes are at most `limit` characters), the longest form of a secret beyond
    it, and the next character a URL's password cannot hold (a password in a URL that starts before the
    cut ends before it). When masking changes nothing there, nothing is masked before the cut, and the
    first `limit` bytes are what masking the whole would show; otherwise (a replacement moves the rest
    closer to the cut) the whole text is masked. `omitted` then counts the bytes left out as received."""
    reach = limit + masker.longest_form() + _MARGIN
    stop = _PASSWORD_END.search(text, reach, reach + _MARGIN)
    if stop is None or len(text) <= 2 * reach:
        return _cut(masker.text(text), limit)
    start = text[: stop.end()]
    if masker.text(start) != start:
        return _cut(masker.text(text), limit)
    shown, _ = _cut(start, limit)
    whole = len(text) if text.isascii() else len(text.encode("utf-8"))
    return shown, whole - len(shown.encode("utf-8"))


def header(headers: list[tuple[str, str]], name: str) -> str | None:
    lowered = name.lower()
    return next((v for n, v in headers if n.lower() == lowered), None)


_NOT_JSON: Any = object()
_MARGIN = 256  # characters masked past the cut and the longest secret's form, before a password's end
_PASSWORD_END = re.compile(r"[\s/?#\"'<>]")  # what a URL's password cannot hold (masking/secrets.py)


def _json(text: str) -> Any:
    try:
        return json_text.loads(text)  # a body nesting too deep is shown as the text it is
    except ValueError:
        return _NOT_JSON


def _decode(content: bytes, content_type: str | None) -> str | None:
    """The body as text when it is text (by media type, or untyped and valid UTF-8); None: binary."""
    base = base_type(content_type)
    textual = (
        content_type is None
        or base.startswith("text/")
        or is_json(content_type)
        or is_xml(content_type)
        or is_form(content_type)
        or base in _TEXTUAL
    )
    if not textual:
        return None
    try:
        return text_of(content, content_type, "strict")
    except UnicodeDecodeError:
        return None


def _event_stream(content: bytes, masker: Masker, limit: int, pretty: bool) -> Body:
    """An event stream is shown as the body the engine saw: the merged completion or the event list;
    one whose decoded form passes the bounds (the step failed for it) as the text that arrived."""
    from .sse import EventDecoder, EventLimits, EventStreamError, EventStreamParser

    parser = EventStreamParser()
    decoder = EventDecoder(EventLimits.for_body(max(len(content), DEFAULT_MAX_BODY)))
    try:
        for start in range(0, len(content), 2**16):  # in pieces: never every event object at once
            decoder.add(parser.feed(content[start : start + 2**16]))
        decoder.add(parser.close())
    except EventStreamError:
        shown, omitted = _cut(masker.text(content.decode("utf-8", "replace")), limit)
        return Body("text", len(content), shown, omitted)
    text = json.dumps(decoder.result(), indent=2 if pretty else None, ensure_ascii=False, default=str)
    shown, omitted = _cut(masker.text(text), limit)
    return Body("event-stream", len(content), shown, omitted, decoder.count)


def _cut(text: str, limit: int) -> tuple[str, int]:
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text, 0
    shown = encoded[:limit].decode("utf-8", "ignore")  # never half a character
    return shown, len(encoded) - len(shown.encode("utf-8"))
