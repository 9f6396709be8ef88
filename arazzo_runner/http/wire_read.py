"""Reading one HTTP/1.1 exchange's response with llhttp (`httptools`): the part of a client connection that
does not depend on how its bytes arrive, shared by the asyncio connection (`wire.Wire`, the rows' and
asyncio runs' pool) and the blocking one (`blocking_wire.BlockingWire`, a blocking run's pool).

What it keeps of httpcore's: the same exceptions, with the same words where the engine shows them
(`ReadError` carrying the OS error, `RemoteProtocolError("Server disconnected without sending a
response.")`, h11's "peer closed connection without sending complete message body (...)"), the
`http_version` and `reason_phrase` extensions, raw header pairs in order, duplicates kept (values
stripped of surrounding blanks, as h11 does). A parser error is a `RemoteProtocolError` with llhttp's
reason (h11's words for a status line it would not read). A response head past `MAX_HEAD` bytes (the
100 KiB httpcore gives h11) is refused before more is read, and so are that many bytes past it ending
no chunk-size line and no trailer field (h11's limit: the engine's byte limit counts only body bytes).

Reuse (`reusable`): only after a response read to its end, both sides keeping the connection alive, and
not a byte past the response (a body with a HEAD answer, a Content-Length short of the body: the next
request would read them as its answer). A HEAD exchange is never reused: llhttp cannot be told that its
answer has no body, so it would wait for the Content-Length's bytes. 1xx interim answers are skipped; a
101 (switching protocols) is refused. 204 and 304 have no body whatever they say; a response with
neither Content-Length nor chunked framing ends at the close.
"""

from __future__ import annotations

import collections
import re
import time
from typing import Any

import httpcore
import httptools

from .wire_request import request_head

# bytes of a response head: httpcore's h11 `max_incomplete_event_size` (h11's own default is 16 KiB; a
# head of big cookies or a long Content-Security-Policy, read by httpx, must be read here too)
MAX_HEAD = 100 * 1024
NO_ANSWER = "Server disconnected without sending a response."  # httpcore's words
_CUT_SHORT = "peer closed connection without sending complete message body"  # h11's
_SWITCHED = "the server switched protocols (101): not supported"
_BLANKS = b" \t"
_NO_BODY = httpcore.Response(200).stream  # httpcore's empty stream (immutable): until the pool sets one
_ILLEGAL_IN_VALUE = re.compile(rb"[\x00\x0b\x0c\r\n]")  # h11's field_value: no NUL, no blank but SP and HTAB
_STATUS_LINE = re.compile(rb"HTTP/[0-9]\.[0-9] [0-9]{3}(?: [\t\x20-\x7e\x80-\xff]*)?")  # h11's


class ResponseReader:
    """A connection's reading state: `_start` an exchange, `_feed` the bytes received, `_head_ready`
    until the head is read, `_response` for it, `_ready_chunk` for the body; `lost`, `_eof` and
    `closed_by` set by the subclass when the connection closes. The subclass has `abort`."""

    def __init__(self, key: tuple[bytes, bytes, int]) -> None:
        self.key = key
        self.lost = False  # closed by either side, or unusable: never handed out again
        self.exchanges = 0  # responses read to their end on it
        self.expires = 0.0  # monotonic time after which it is not reused (idle in the pool)
        self.failed_unanswered = False  # the last exchange failed on a close before any response byte
        self._parser = self._new_parser()
        self._error: BaseException | None = None  # the exchange's failure, raised to the reader
        self.closed_by: BaseException | None = None  # the OS error that closed it
        self._eof = False
        self._begin(False)

    def _new_parser(self) -> Any:
        parser = httptools.HttpResponseParser(self)
        # what h11 reads and strict llhttp refuses: a folded field line (RFC 9112 5.2: a user agent MUST
        # read it as spaces), a bare LF ending a line (2.2: MAY), a Content-Length beside chunked framing
        # (6.3: the chunks rule; the connection is then not reused, 6.1); the bytes h11 refuses in a
        # value are refused in `on_header` (llhttp's leniency lets them through)
        parser.set_dangerous_leniencies(
            lenient_headers=True, lenient_optional_cr_before_lf=True, lenient_chunked_length=True
        )
        return parser

    def _begin(self, in_exchange: bool) -> None:
        self._in_exchange = in_exchange
        self._head = False  # the request's method is HEAD
        self._keep_alive = True  # the request did not say `Connection: close`
        self._server_keep_alive = False  # nor the response (nor HTTP/1.0, nor a close-delimited body)
        self._received = 0  # response bytes of this exchange
        self._head_bytes = 0
        self._early = b""  # the exchange's bytes up to its head's end (a repeated Content-Length merged)
        self._whole_head_awaited = False
        self._stalled = 0  # bytes past the head that moved no chunk, body or end (a trailer, a chunk line)
        self._moved = False
        self._head_done = False
        self._interim = False
        self._reason = b""
        self._headers: list[tuple[bytes, bytes]] = []
        self._status = 0
        self._length: int | None = None  # a Content-Length, else None
        self._chunked = False
        self._until_eof = False  # a close-delimited body
        self._body: collections.deque[bytes] = collections.deque()
        self._buffered = 0
        self._body_received = 0
        self._complete = False
        self._extra = False  # bytes past the response

    def _start(self, request: httpcore.Request) -> tuple[bytes, int | None]:
        """A new exchange for `request`: (its head's bytes, its body's length as `request_head` says)."""
        self._begin(True)
        self.failed_unanswered = False
        self._head = request.method == b"HEAD"
        head, length, self._keep_alive = request_head(request)
        return head, length

    def _feed(self, data: bytes) -> None:
        """Response bytes of the exchange, parsed; a failure is kept for the reader (`_raise_if_failed`)."""
        self._received += len(data)
        in_body = self._head_done
        if not in_body:
            self._head_bytes += len(data)
            self._early = data if self._received == len(data) else self._early + data
            if self._whole_head_awaited:
                self._after_whole_head()
                return
        self._moved = False
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(httpcore.RemoteProtocolError(_SWITCHED))
        except httptools.HttpParserError as exc:
            if not self._complete:
                merged = None if in_body else _merged_lengths(self._early)
                if isinstance(merged, bytes):  # read again, from its first byte, by a new parser
                    self._read_again(merged)
                    return
                if (
                    merged is None
                    and not in_body
                    and _about_lengths(exc)
                    and _final_head(self._early) is None
                ):
                    self._whole_head_awaited = True  # the repeated field's equal may come in a later read
                    self._after_whole_head()
                    return
                self._fail(httpcore.RemoteProtocolError(merged or self._first_line_error(data) or str(exc)))
        if not self._head_done and self._head_bytes > MAX_HEAD and self._error is None:
            self._fail(httpcore.RemoteProtocolError("Receive buffer too long"))
        if in_body:  # a chunk-size line or trailer fields without end: h11's limit too, not read on
            self._stalled = 0 if self._moved else self._stalled + len(data)
            if self._stalled > MAX_HEAD and self._error is None and not self._complete:
                self._fail(httpcore.RemoteProtocolError("Receive buffer too long"))

    def _read_again(self, merged: bytes) -> None:
        """The exchange's bytes so far, with one Content-Length, read from the first by a new parser."""
        self._parser = self._new_parser()
        self._received = self._head_bytes = 0
        self._whole_head_awaited = False
        self._feed(merged)

    def _after_whole_head(self) -> None:
        """llhttp refused a repeated Content-Length in a head not yet whole: its bytes are kept, unparsed,
        until the head ends (then merged, or refused in h11's words) or passes MAX_HEAD."""
        if _final_head(self._early) is not None:
            merged = _merged_lengths(self._early)
            if isinstance(merged, bytes):
                self._read_again(merged)
                return
            self._fail(httpcore.RemoteProtocolError(merged or "Duplicate Content-Length"))
        elif self._head_bytes > MAX_HEAD and self._error is None:
            self._fail(httpcore.RemoteProtocolError("Receive buffer too long"))

    def _first_line_error(self, data: bytes) -> str | None:
        """h11's words for a status line it would not read (what `failure_words.describe_error` shows with
        the line): llhttp's would be "Expected HTTP/, RTSP/ or ICE/" for an SSH banner. None past the first
        line."""
        if self._received != len(data) or self._headers or self._reason:
            return None
        line = data.split(b"\n", 1)[0].removesuffix(b"\r")[:1024]
        return None if _STATUS_LINE.fullmatch(line) else f"illegal status line: {line!r}"

    # llhttp's callbacks

    def on_message_begin(self) -> None:
        if self._complete or self._head_done:  # another message after this response
            self._extra = True
            raise _PastTheResponse  # stops llhttp: the response read so far stays as it was
        self._reason, self._headers = b"", []

    def on_status(self, status: bytes) -> None:
        self._reason += status

    def on_header(self, name: bytes, value: bytes) -> None:
        if _ILLEGAL_IN_VALUE.search(value) is not None and self._error is None:
            self._fail(httpcore.RemoteProtocolError(f"illegal header line: {name + b': ' + value!r}"))
        if not self._head_done:  # a chunked body's trailer fields are dropped, as httpcore drops them
            self._headers.append((name, value.strip(_BLANKS)))

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if 100 <= status < 200:
            self._interim = True  # skipped: its message_complete follows at once
            if status == 101:
                self._fail(httpcore.RemoteProtocolError(_SWITCHED))
            return
        self._status, self._head_done = status, True
        self._server_keep_alive = self._parser.should_keep_alive()  # reset at the message's end
        codings: list[bytes] = []  # each Transfer-Encoding field's value
        for name, value in self._headers:
            lower = name.lower()
            if lower == b"content-length" and value.isdigit():
                self._length = int(value)
            elif lower == b"transfer-encoding":
                codings.append(value.lower())
        if codings:
            self._chunked = True
            if codings != [b"chunked"] and self._error is None:  # a transfer coding would be read as body
                words = _TRANSFER_CODINGS if len(codings) == 1 else "multiple Transfer-Encoding headers"
                self._fail(httpcore.RemoteProtocolError(words))
        if self._chunked and self._length is not None:  # RFC 9112 6.1: closed after this message
            self._server_keep_alive, self._length = False, None
        bodiless = self._head or status in (204, 304)
        self._until_eof = not (bodiless or self._chunked or self._length is not None)
        if self._head:
            self._complete = True  # llhttp would wait for the Content-Length's bytes

    def on_chunk_header(self) -> None:
        self._moved = True

    def on_chunk_complete(self) -> None:
        self._moved = True

    def on_body(self, body: bytes) -> None:
        self._moved = True
        if self._complete:  # a body with a HEAD answer
            self._extra = True
            return
        self._body.append(body)
        self._buffered += len(body)
        self._body_received += len(body)

    def on_message_complete(self) -> None:
        self._moved = True
        if self._interim:
            self._interim = False
            self._head_bytes = 0
            return
        self._complete = True

    # the reader's side

    def _head_ready(self) -> bool:
        """Whether the response's head is read; its failure (or the close that ended it) raised."""
        self._raise_if_failed()  # a field refused in the packet that ended the head too
        if self._head_done:
            return True
        if self.lost:
            self._raise_lost()
        return False

    def _response(self) -> httpcore.Response:
        """The response's head as httpcore gives it (the body's stream is left for the pool to set)."""
        version = self._parser.get_http_version()
        extensions = {"http_version": b"HTTP/1.1" if version == "1.1" else b"HTTP/" + version.encode(),
                      "reason_phrase": self._reason}  # fmt: skip
        # `httpcore.Response(status, extensions=...)`'s fields set directly: the headers are bytes pairs
        # already (not checked again one by one), the stream is the pool's to set
        response = httpcore.Response.__new__(httpcore.Response)
        response.status, response.headers, response.stream = self._status, self._headers, _NO_BODY
        response.extensions, response._stream_consumed = extensions, False
        return response

    def _ready_chunk(self) -> bytes | None:
        """The body's next bytes as they arrived, b"" at its end, None when more must be read first."""
        if self._body:
            chunk = self._body.popleft() if len(self._body) == 1 else b"".join(self._body)
            self._body.clear()
            self._buffered = 0
            return chunk
        if self._complete:
            return b""
        self._raise_if_failed()
        if self.lost:
            if self._until_eof and (self._eof or self.closed_by is None):  # a close ends it
                self._complete = True
                return b""
            self._raise_lost()
        return None

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error

    def _raise_lost(self) -> None:
        cause = self.closed_by
        if cause is not None and not self._eof:  # reset, or a TLS failure
            self.failed_unanswered = self._received == 0
            raise httpcore.ReadError(cause) from cause
        if not self._head_done:
            self.failed_unanswered = self._received == 0
            raise httpcore.RemoteProtocolError(NO_ANSWER)
        if self._chunked:
            raise httpcore.RemoteProtocolError(f"{_CUT_SHORT} (incomplete chunked read)")
        raise httpcore.RemoteProtocolError(
            f"{_CUT_SHORT} (received {self._body_received} bytes, expected {self._length})"
        )

    def _fail(self, error: BaseException) -> None:
        self._error = error
        self.abort()

    def abort(self) -> None:  # pragma: no cover - each connection closes its own way
        raise NotImplementedError

    def reusable(self) -> bool:
        """Whether another request can go over it: see the module's docstring."""
        return (self._complete and not self._extra and not self.lost and not self._head
                and self._keep_alive and self._server_keep_alive)  # fmt: skip

    def finish(self) -> None:
        """The exchange is over (its body read or abandoned)."""
        if self._complete:
            self.exchanges += 1
        self._in_exchange = False
        self._body.clear()  # a body closed unread: its buffer let go
        self._buffered = 0

    def has_expired(self) -> bool:
        """Whether it can no longer be handed out (for the pool's sweep and tests)."""
        return self.lost or time.monotonic() > self.expires


_TRANSFER_CODINGS = "Only Transfer-Encoding: chunked is supported"  # h11's words: other codings refused
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_INTERIM = re.compile(rb"HTTP/\d\.\d[ \t]+1\d\d\b")  # a 1xx head's status line
_LENGTH_LINE = re.compile(rb"content-length[ \t]*:([^\r\n]*)(\r?\n)", re.IGNORECASE)


def _merged_lengths(data: bytes) -> bytes | str | None:
    """For a response head (the exchange's first bytes, `data`) llhttp refused: when it says one
    Content-Length more than once (repeated, or a list: RFC 9110 8.6 lets a recipient take identical
    values as one, and h11 does), the bytes with that one field instead; h11's words when the values
    differ; None when the failure is not about them (or the head is not whole in `data`: llhttp's words)."""
    found = _final_head(data)
    if found is None:
        return None
    start, end = found
    cut = end.start() + (2 if data[end.start()] == 13 else 1)  # the last field line's ending kept
    head = data[:cut]
    lines = [m for m in _LENGTH_LINE.finditer(head, start) if head[m.start() - 1] == 10]  # at a line's start
    values = {value.strip() for m in lines for value in m.group(1).split(b",")}
    if not lines or (len(lines) == 1 and b"," not in lines[0].group(1)):
        return None  # said once: llhttp refused something else
    if len(values) != 1:
        return "conflicting Content-Length headers"
    (value,) = values
    if not value.isdigit():
        return None
    kept = [head[: lines[0].start()], b"Content-Length: %s%s" % (value, lines[0].group(2))]
    position = lines[0].end()
    for m in lines[1:]:
        kept.append(head[position : m.start()])
        position = m.end()
    kept.append(data[position:])
    return b"".join(kept)


def _final_head(data: bytes) -> tuple[int, re.Match[bytes]] | None:
    """Where the final response's head starts in `data` (the exchange's first bytes) and the match of its
    end, past the interim (1xx) heads before it, which llhttp reads and skips; None until it has ended."""
    start = 0
    while (end := _HEAD_END.search(data, start)) is not None and _INTERIM.match(data, start):
        start = end.end()
    return None if end is None else (start, end)


def _about_lengths(error: Exception) -> bool:
    """Whether llhttp refused a head for its Content-Length fields (said twice, or a list)."""
    return "Content-Length" in str(error)


class _PastTheResponse(Exception):
    """Raised in llhttp's callback when bytes follow the response: parsing stops there."""


def offer_http11(context: Any) -> None:
    """Offer http/1.1 by ALPN, as httpcore does on each new connection."""
    import contextlib

    with contextlib.suppress(NotImplementedError):  # an OpenSSL without ALPN
        context.set_alpn_protocols(["http/1.1"])
