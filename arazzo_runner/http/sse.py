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
  Events that are neither chunks nor errors (pings, non-JSON data) are ignored in this form.
- **Any other stream** - a list of `{"event": type, "data": the data parsed as JSON when it is valid
  JSON else the string, "id": the last event id or null}`, in order.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable
from typing import Any

from ..records import Record

DONE = "[DONE]"
_LINE_END = re.compile(r"\r\n|\r|\n")


class Event(Record, frozen=True):
    """One dispatched server-sent event."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class EventStreamParser:
    """Incremental event-stream parser: `feed(bytes)` as data arrives, `close()` at the end."""

    def __init__(self) -> None:
        # utf-8-sig drops one leading BOM even when it is split across chunks.
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._buffer = ""
        self._after_cr = False  # the last chunk ended with CR: a leading LF of the next one is its pair
        self._data: list[str] = []
        self._has_data = False
        self._type = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self.incomplete = False  # set by close() when an unterminated event was discarded

    def feed(self, chunk: bytes) -> list[Event]:
        return self._lines(self._decoder.decode(chunk))

    def close(self) -> list[Event]:
        events = self._lines(self._decoder.decode(b"", final=True))
        self.incomplete = bool(self._buffer) or self._has_data
        self._buffer, self._data, self._has_data, self._type = "", [], False, ""
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
        buffer = self._buffer + text
        events: list[Event] = []
        start = 0
        for match in _LINE_END.finditer(buffer):
            event = self._line(buffer[start : match.start()])
            if event is not None:
                events.append(event)
            start = match.end()
        self._buffer = buffer[start:]
        return events

    def _line(self, line: str) -> Event | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
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
            event = Event("\n".join(self._data), self._type or "message", self._last_id, self._retry)
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


def decode_event_stream(events: Iterable[Event]) -> Any:
    """The value a stream's events expose as `$response.body` (rule in the module docstring)."""
    decoded = [(event, event.data == DONE, _parse_json(event.data)) for event in events]
    if not any(done or is_chat_chunk(data) for _, done, data in decoded):
        return [{"event": event.event, "data": data, "id": event.id or None} for event, _, data in decoded]
    merger = ChatCompletionMerger()
    for _, done, data in decoded:
        if done:
            merger.add_done()
        else:
            merger.add(data)
    return merger.result()


def _parse_json(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data


def is_chat_chunk(data: Any) -> bool:
    """A chat-completion chunk: `object` says so, or `choices` items carry a `delta`."""
    if not isinstance(data, dict):
        return False
    if data.get("object") == "chat.completion.chunk":
        return True
    choices = data.get("choices")
    return isinstance(choices, list) and any(isinstance(c, dict) and "delta" in c for c in choices)


class ChatCompletionMerger:
    """Folds chat-completion chunks (and error events) into one `chat.completion` object."""

    def __init__(self) -> None:
        self._top: dict[str, Any] = {}
        self._choices: dict[int, _Choice] = {}
        self._usage: Any = None
        self._error: Any = None
        self._done = False

    def add_done(self) -> None:
        """Records the `[DONE]` sentinel."""
        self._done = True

    def add(self, data: Any) -> None:
        """Adds one event's parsed data: a chunk or an `{"error": ...}` object; anything else is ignored."""
        if is_chat_chunk(data) or (isinstance(data, dict) and isinstance(data.get("choices"), list)):
            self._add_chunk(data)
        elif isinstance(data, dict) and "error" in data and self._error is None:
            self._error = data["error"]

    def _add_chunk(self, chunk: dict[str, Any]) -> None:
        for key, value in chunk.items():
            if key not in ("choices", "usage", "object") and self._top.get(key) is None:
                self._top[key] = value
        if chunk.get("usage") is not None:
            self._usage = chunk["usage"]
        for choice in chunk["choices"]:
            if isinstance(choice, dict):
                index = choice.get("index")
                index = index if isinstance(index, int) else 0
                self._choices.setdefault(index, _Choice(index)).add(choice)

    def result(self) -> dict[str, Any]:
        merged = {key: self._top.get(key) for key in ("id", "object", "created", "model")}
        merged.update(self._top)
        merged["object"] = "chat.completion"
        merged["choices"] = [self._choices[i].result() for i in sorted(self._choices)]
        merged.update(usage=self._usage, error=self._error, stream_complete=self._done)
        return merged


class _Choice:
    """The merge state of one choice."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.role: str | None = None
        self.content: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.last_call: int | None = None
        self.finish_reason: Any = None
        self.logprobs: list[Any] | None = None

    def add(self, choice: dict[str, Any]) -> None:
        delta = choice.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        if self.role is None and isinstance(delta.get("role"), str):
            self.role = delta["role"]
        if isinstance(delta.get("content"), str):
            self.content.append(delta["content"])
        if isinstance(delta.get("refusal"), str):
            self.refusal.append(delta["refusal"])
        for fragment in delta.get("tool_calls") or []:
            if isinstance(fragment, dict):
                self._add_call(fragment)
        if choice.get("finish_reason") is not None:
            self.finish_reason = choice["finish_reason"]
        logprobs = choice.get("logprobs")
        if isinstance(logprobs, dict) and isinstance(logprobs.get("content"), list):
            self.logprobs = (self.logprobs or []) + logprobs["content"]

    def _add_call(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index")
        if not isinstance(index, int):
            # No index: a new `id` starts a new call, anything else continues the last one.
            new = self.last_call is None or (
                fragment.get("id") and fragment["id"] != self.calls[self.last_call]["id"]
            )
            index = (max(self.calls, default=-1) + 1) if new else self.last_call
        call = self.calls.setdefault(index, {"id": None, "type": None, "name": None, "arguments": []})
        self.last_call = index
        function = fragment.get("function")
        function = function if isinstance(function, dict) else {}
        for key, value in (
            ("id", fragment.get("id")),
            ("type", fragment.get("type")),
            ("name", function.get("name")),
        ):
            if call[key] is None and isinstance(value, str) and value:
                call[key] = value
        if isinstance(function.get("arguments"), str):
            call["arguments"].append(function["arguments"])

    def result(self) -> dict[str, Any]:
        calls = [
            {
                "id": call["id"],
                "type": call["type"] or "function",
                "function": {"name": call["name"], "arguments": "".join(call["arguments"])},
            }
            for _, call in sorted(self.calls.items())
        ]
        message = {
            "role": self.role or "assistant",
            "content": "".join(self.content) or None,
            "refusal": "".join(self.refusal) or None,
            "tool_calls": calls,
        }
        return {
            "index": self.index,
            "message": message,
            "finish_reason": self.finish_reason,
            "logprobs": {"content": self.logprobs} if self.logprobs is not None else None,
        }
