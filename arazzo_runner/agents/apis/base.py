"""What every model API shares: the records of an answer, the conversation in a form no API owns, and
the `Wire` each API implements.

The loop keeps its conversation as a `Conversation` (a system text, then user texts, the model's turns
and the results of their tool calls) and each wire renders it in its API's shape on every request: the
chat API's `messages` with `tool` messages, the Responses API's `input` items with `function_call` /
`function_call_output`, the Messages API's `messages` with `tool_use` / `tool_result` blocks. A
`Completion` is the answer read back in one shape: its text, its tool calls, why it stopped
(`finish_reason` as the API said it, `stop` normalised: `STOP`, `TOOL_CALLS`, `LENGTH`,
`CONTENT_FILTER`, or the API's own word), its usage.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ...records import Record, field

STOP, TOOL_CALLS, LENGTH, CONTENT_FILTER = "stop", "tool_calls", "length", "content_filter"
_VERSION = re.compile(r"/v\d+$")  # the end of a base URL's path that names the API's version
NOT_AN_ANSWER = (LENGTH, CONTENT_FILTER)  # a text that stopped for these is not a (complete) answer


class ModelError(Exception):
    """The model API failed; the message is masked (the API key, every secret of the tool runs)."""


class StreamError(ModelError):
    """The stream broke its API's protocol (a data line that is not JSON, an event out of place).
    `answered`: the answer, when it was complete before the stream broke (an event after its end):
    the exchange still fails, but the loop counts the turn and keeps its text (`partialAnswer`)."""

    def __init__(self, message: str, answered: Completion | None = None) -> None:
        super().__init__(message)
        self.answered = answered


class ToolCallRequest(Record, frozen=True):
    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it


class Usage(Record):
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.total_tokens += other.total_tokens

    def to_dict(self) -> dict[str, int]:
        return {
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "totalTokens": self.total_tokens,
        }


class Completion(Record):
    content: str | None
    refusal: str | None
    tool_calls: list[ToolCallRequest]
    finish_reason: str | None  # as the API said it
    usage: Usage | None
    stop: str | None = None  # normalised: STOP, TOOL_CALLS, LENGTH, CONTENT_FILTER, else the API's word
    extra: dict[str, Any] = field(default_factory=dict)  # what a wire keeps to send the turn back


class ToolResult(Record, frozen=True):
    call_id: str
    name: str
    content: str  # the outcome as the model reads it (masked)
    ok: bool = True


class Conversation:
    """The exchanges so far, in order: ("user", text), ("assistant", Completion), ("tools", [ToolResult])."""

    def __init__(self, system: str | None = None) -> None:
        self.system = system
        self.items: list[tuple[str, Any]] = []

    def user(self, text: str) -> None:
        self.items.append(("user", text))

    def assistant(self, completion: Completion) -> None:
        self.items.append(("assistant", completion))

    def tool_results(self, results: list[ToolResult]) -> None:
        self.items.append(("tools", results))


class StreamFolder:
    """Folds one streamed answer, event by event. `feed` returns the text pieces the event adds (what a
    watcher prints as it arrives); `finish` the completion, or StreamError when the stream ended before
    its API says an answer is complete; `complete` whether it has said so."""

    @property
    def complete(self) -> bool:
        return False

    def feed(self, event: str, data: str, position: int) -> list[str]:  # pragma: no cover - interface
        raise NotImplementedError

    def finish(self) -> Completion:  # pragma: no cover - interface
        raise NotImplementedError


class Wire:
    """One model API: its endpoint, request shape, answer shape and error shape."""

    name = ""
    path = ""  # appended to the base URL
    label = "the model API"  # how messages name it
    example = "https://api.openai.com/v1"  # a base URL of the API, for messages

    def endpoint(self, url: str) -> str:
        """Where the requests go: the base URL (which carries the API's version, `/v1`) and `path`."""
        return url.rstrip("/") + self.path

    def not_found(self, url: str) -> str:
        """What a 404 for the base URL `url` most likely means."""
        if versioned(url):
            return f"is it the API's base URL? (such as {self.example})"
        return f"the base URL holds the API's version, such as {self.example}: add /v1"

    def headers(self, api_key: str, stream: bool) -> list[tuple[str, str]]:
        raise NotImplementedError

    def tools(self, openai_definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tools in this API's form, from the chat-completions function form."""
        raise NotImplementedError

    def body(
        self, model: str, conversation: Conversation, tools: list[dict[str, Any]], stream: bool
    ) -> dict[str, Any]:
        raise NotImplementedError

    def rendered(self, conversation: Conversation) -> list[dict[str, Any]]:
        """The conversation as this API is sent it (the result's `messages`)."""
        raise NotImplementedError

    def folder(self) -> StreamFolder:
        raise NotImplementedError

    def completion(self, body: Any) -> Completion:
        """A non-streamed answer (ModelError when it is not one)."""
        raise NotImplementedError

    def error_detail(self, body: Any) -> str:
        """The message of an error body, with its details."""
        raise NotImplementedError


def versioned(url: str) -> bool:
    """Whether a base URL's path ends with an API version (`/v1`)."""
    return _VERSION.search(urlsplit(url.rstrip("/")).path) is not None


def usage_of(data: Any) -> Usage | None:
    """Usage as `prompt_tokens`/`completion_tokens` (chat) or `input_tokens`/`output_tokens`."""
    if not isinstance(data, dict):
        return None
    given = count(data.get("prompt_tokens", data.get("input_tokens")))
    taken = count(data.get("completion_tokens", data.get("output_tokens")))
    total = count(data.get("total_tokens")) or given + taken
    return Usage(given, taken, total)


def count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def shown(body: Any) -> str:
    """A body as a message shows it."""
    import json

    if isinstance(body, (bytes, bytearray)):
        return f"{len(body)} bytes"
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return text or "(empty body)"


def excerpt(text: str, limit: int = 80) -> str:
    """The start of a data line, for a message naming it."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def is_done(event: str, data: str) -> bool:
    """An unnamed `data: [DONE]`: the chat-completions stream's end sentinel, which proxies (LiteLLM's
    `/v1/responses` and `/v1/messages`) also send after the Responses and Messages streams' last event.
    The official `openai` and `anthropic` clients accept it there; it is no event of those APIs, so
    their folders skip it wherever it comes (a stream that ends after it without its API's last event
    is still cut short)."""
    return event == "message" and data.strip() == "[DONE]"


def event_object(data: str, position: int) -> tuple[str, dict[str, Any]]:
    """A named-event stream's data line (the Responses and Messages APIs) as (its `type`, the object);
    StreamError when it is not JSON or not an object with a `type`."""
    from ...bounds import json_text

    try:
        payload = json_text.loads(data)
    except json_text.TooDeep as exc:
        raise StreamError(f"event {position} of the stream {exc}: it was not read") from None
    except ValueError:
        raise StreamError(f"event {position} of the stream is not JSON: {excerpt(data)}") from None
    kind = payload.get("type") if isinstance(payload, dict) else None
    if not isinstance(kind, str):
        raise StreamError(f"event {position} of the stream is not an event object: {excerpt(data)}")
    return kind, payload
