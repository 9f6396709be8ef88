"""Decoding `text/event-stream` response bodies (server-sent events).

Parsing follows the WHATWG HTML "event stream" rules, incrementally: `EventStreamParser.feed(bytes)`
returns the events completed by that chunk, whatever the chunk boundaries (a line, a CRLF pair or a
multi-byte UTF-8 character may be split across chunks):

- the stream is UTF-8 (invalid bytes become U+FFFD); one leading byte-order mark is dropped;
- lines end with CRLF, LF or CR; a line starting with `:` is a comment and ignored;
- `field: value` (one space after the colon dropped; a line without a colon is a field with an empty
  value); fields `event` (the type), `data` (appended, several `data` lines joined with "\\n"), `id` (the
  last event id, kept for later events; ignored if it contains NUL) and `retry` (digits only); others
  are ignored;
- a blank line dispatches the event, unless no `data` line was seen; the type defaults to `message`;
- at the end of the stream (`close()`), an event not terminated by a blank line is discarded.

How the body is then exposed (`decode_event_stream(events)`):

- **Chat-completion streams** - when any event's data is a chat-completion chunk (a JSON object with
  `"object": "chat.completion.chunk"`, or a `choices` array whose items have a `delta`), or the
  `[DONE]` sentinel appears - the chunks are merged into one `chat.completion` object, so that
  `$response.body#/choices/0/message/tool_calls/0/id` reads the same whether or not the request streamed:
  - `id`, `model`, `created` (and any other top-level field) from the first chunk that has it;
  - per choice `index`: `message.role` from the deltas (default `assistant`); `message.content` the
    concatenated content fragments (`null` when there are none); `message.refusal` likewise;
    `message.tool_calls` merged by the fragments' `index` (a fragment without `index` continues the
    previous call unless it brings a new `id`): `id`, `type` and `function.name` from the first fragment
    that has them, `function.arguments` the concatenation of all fragments (`type` defaults to
    `function`); `finish_reason` the last non-null one; `logprobs` the `logprobs.content` lists joined
    (`null` when none);
  - `usage` from the last chunk that carries a non-null `usage` (usually the final chunk whose `choices`
    is empty), else `null`;
  - `error`: the first `{"error": ...}` event's `error` value, else `null`;
  - `"object": "chat.completion"`, and `stream_complete`: `true` when `data: [DONE]` was received, `false`
    when the stream ended without it.
  Events that are neither chunks nor errors (pings, JSON values of another shape) are ignored in this
  form. An unnamed event (type `message`, as chunks come) whose data is not JSON (but `[DONE]`) fails
  such a stream, wherever it is in it: `EventStreamError` naming
  the event's number, its line and the start of its data (skipping it would drop a piece of the text
  or of a tool call's arguments, and the answer would read as complete).
- **Any other stream** - a list of `{"event": type, "data": the data parsed as JSON when it is valid
  JSON else the string, "id": the last event id or null}`, in order (data that is not JSON is kept
  as its text: a generic stream's events need not be JSON).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from typing import Any

from ..bounds import json_text
from ..records import Record, field
from .chat_merge import ChatCompletionMerger, is_chat_chunk

__all__ = [
    "DONE",
    "ChatCompletionMerger",
    "Event",
    "EventDecoder",
    "EventLimits",
    "EventStreamError",
    "EventStreamParser",
    "decode_event_stream",
    "is_chat_chunk",
    "parse_event_stream",
]

DONE = "[DONE]"
_LINE_END = re.compile(r"\r\n|\r|\n")


class Event(Record, frozen=True):
    """One dispatched server-sent event."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None
    line: int = field(default=0, compare=False)  # the line of the stream its first data line is on (from 1)


class EventStreamParser:
    """Incremental event-stream parser: `feed(bytes)` as data arrives, `close()` at the end."""

    def __init__(self) -> None:
        # utf-8-sig drops one leading BOM even when it is split across chunks.
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._pending: list[str] = []  # the start of a line whose end has not arrived (kept in pieces)
        self._after_cr = False  # the last chunk ended with CR: a leading LF of the next one is its pair
        self._data: list[str] = []
        self._has_data = False
        self._type = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self._lines_read = 0  # lines of the stream seen so far (what `Event.line` counts)
        self._event_line = 0
        self.incomplete = False  # set by close() when an unterminated event was discarded

    def feed(self, chunk: bytes) -> list[Event]:
        return self._lines(self._decoder.decode(chunk))

    def close(self) -> list[Event]:
        events = self._lines(self._decoder.decode(b"", final=True))
        self.incomplete = any(self._pending) or self._has_data
        self._pending, self._data, self._has_data, self._type = [], [], False, ""
        return events

    @property
    def last_event_id(self) -> str | None:
        return self._last_id

    @property
    def retry(self) -> int | None:
        return self._retry

    def _lines(self, text: str) -> list[Event]:
        if not text:
            return []
        if self._after_cr and text.startswith("\n"):
            text = text[1:]
        self._after_cr = text.endswith("\r")
        if _LINE_END.search(text) is None:  # a long line arriving in many chunks: joined once, at its end
            self._pending.append(text)
            return []
        buffer = "".join((*self._pending, text))
        events: list[Event] = []
        start = 0
        for match in _LINE_END.finditer(buffer):
            event = self._line(buffer[start : match.start()])
            if event is not None:
                events.append(event)
            start = match.end()
        self._pending = [buffer[start:]]
        return events

    def _line(self, line: str) -> Event | None:
        self._lines_read += 1
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            if not self._has_data:
                self._event_line = self._lines_read
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._type = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> Event | None:
        event = None
        if self._has_data:
            data = "\n".join(self._data)
            event = Event(data, self._type or "message", self._last_id, self._retry, self._event_line)
        self._data, self._has_data, self._type = [], False, ""
        return event


def parse_event_stream(chunks: Iterable[bytes]) -> list[Event]:
    """All the events of a complete stream given as byte chunks."""
    parser = EventStreamParser()
    events: list[Event] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events


def decode_event_stream(events: Iterable[Event], limits: EventLimits | None = None) -> Any:
    """The value a stream's events expose as `$response.body` (rule in the module docstring); with
    `limits`, EventStreamError when its decoded form would pass them."""
    decoder = EventDecoder(limits)
    decoder.add(events)
    return decoder.result()


class EventStreamError(ValueError):
    """The stream's body cannot be decoded within its bounds (too many events, too large once decoded,
    an event's data nesting too deep): the step fails with this cause."""


class EventLimits(Record, frozen=True):
    """Bounds on the decoded form of one stream, which the byte limit alone does not bound: 16 MiB of
    `data: 1` events are 1.9 million events, and each decoded event is a few hundred bytes of objects."""

    max_events: int
    max_decoded: int  # estimated bytes of the objects the decoded body holds

    @classmethod
    def for_body(cls, max_body: int) -> EventLimits:
        """The bounds that go with a response byte limit (`--max-response-bytes`): an event per 128
        bytes on average, and eight times the limit in decoded objects."""
        return cls(max(1024, max_body // EVENT_BYTES), max(2**20, DECODED_FACTOR * max_body))


EVENT_BYTES = 128  # bytes of stream per event, on average, at the least (`EventLimits.max_events`)
DECODED_FACTOR = 8  # bytes of decoded objects per byte of the body limit (`EventLimits.max_decoded`)
_ITEM_COST = 256  # one event of the list form: its dict, its slot, its type and id strings
_CHUNK_COST = 64  # one merged chat chunk: the fragment strings it adds
_OBJECT_COST = 512  # a choice, a tool call or a logprobs item the merged completion adds
# Parsed JSON, per container (`[`, `{`), per member or item (`,`, `:`) and per string (two `"`): upper
# estimates of CPython's objects (an empty list 56 bytes, a pointer and a float 32, a short string 51).
_CONTAINER_COST, _SEPARATOR_COST, _QUOTE_COST = 64, 24, 25


class EventDecoder:
    """Builds `$response.body` from events as they arrive (`add`), within `limits` (None: unbounded).

    The list form is kept only until a chat-completion chunk (or `[DONE]`) shows the stream is one: it is
    then folded into the merger and dropped. What the body holds is charged as it grows: each event of the
    list form its parsed data (the text, plus a cost per JSON value) and its own objects; each merged
    chunk its text (the fragments it adds are no longer) and the objects it adds (choices, tool calls,
    logprobs items)."""

    def __init__(self, limits: EventLimits | None = None) -> None:
        self.limits = limits
        self.count = 0
        self.spent = 0
        self._items: list[dict[str, Any]] | None = []
        self._merger: ChatCompletionMerger | None = None
        self._not_json: tuple[int, Event] | None = None  # the first event whose data is not JSON

    def add(self, events: Iterable[Event]) -> None:
        for event in events:
            self._add(event)

    def result(self) -> Any:
        return self._items if self._merger is None else self._merger.result()

    def _add(self, event: Event) -> None:
        self.count += 1
        limits = self.limits
        if limits is not None and self.count > limits.max_events:
            raise EventStreamError(f"the event stream has more than {limits.max_events} events")
        done = event.data == DONE
        data = _parse_json(event.data, self.count)
        if data is _NOT_JSON and not done and event.event != "message":
            data = event.data  # a named event (`event: ping`) is not a chunk: its data may be any text
        elif data is _NOT_JSON and not done:
            if self._merger is not None:
                raise EventStreamError(_not_json(self.count, event))
            if self._not_json is None:
                self._not_json = (self.count, event)
            data = event.data
        if self._merger is None and (done or is_chat_chunk(data)):
            if self._not_json is not None:  # a chat stream after all: its earlier non-JSON line fails it
                raise EventStreamError(_not_json(*self._not_json))
            self._merger = ChatCompletionMerger()
            for item in self._items or ():
                self._merger.add(item["data"])
            self._items, self.spent = None, self._merger.objects * _OBJECT_COST
        if self._merger is not None:
            before = self._merger.objects
            if done:
                self._merger.add_done()
            else:
                self._merger.add(data)
            self.spent += _CHUNK_COST + len(event.data) + (self._merger.objects - before) * _OBJECT_COST
        else:
            assert self._items is not None
            self._items.append({"event": event.event, "data": data, "id": event.id or None})
            self.spent += _ITEM_COST + len(event.event) + len(event.id or "") + _parsed_cost(event.data)
        if limits is not None and self.spent > limits.max_decoded:
            size = f"{limits.max_decoded // 2**20} MiB"
            raise EventStreamError(f"the event stream decodes to more than {size} ({self.count} events)")


_NOT_JSON = object()


def _parse_json(data: str, number: int = 0) -> Any:
    """The data parsed, or `_NOT_JSON`."""
    try:
        return json_text.loads(data)
    except json_text.TooDeep as exc:
        raise EventStreamError(f"the data of event {number} {exc}") from None
    except ValueError:
        return _NOT_JSON


def _not_json(number: int, event: Event) -> str:
    """Where a chat-completion stream broke: the event's number, its line, the start of its data."""
    text = event.data if len(event.data) <= 80 else event.data[:80] + "..."
    line = f" (line {event.line})" if event.line else ""
    return f"event {number} of the chat-completion stream{line} is not JSON: {text!r}"


def _parsed_cost(text: str) -> int:
    """An estimate of the memory `text` takes once parsed as JSON (or kept as a string): the characters,
    plus the objects its brackets, separators and quotes announce."""
    containers = text.count("[") + text.count("{")
    separators = text.count(",") + text.count(":")
    return (
        64
        + len(text)
        + containers * _CONTAINER_COST
        + separators * _SEPARATOR_COST
        + text.count('"') * _QUOTE_COST
    )
