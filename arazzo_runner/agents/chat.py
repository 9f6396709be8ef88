"""A chat-completions client (the API of `openapi/chatgpt-chat-completions-api-openapi.yml`) on the
engine's own HTTP machinery (`http/transport.py`): one pooled client per agent run, the timeout of each
exchange, the response read within its byte limit (`--max-response-bytes`), an event stream decoded as it
arrives within its bounds and its chunks merged into one completion (`http/sse.py`), faults named as a
step's are. The request always says `stream` (the seed contract streams when it is absent, OpenAI does
not); a streamed request also asks for the usage chunk (`stream_options.include_usage`). A server that
answers a streamed request with JSON is read as JSON.

Every failure is a `ChatError` whose message is masked (the API key, and every secret of the tool runs):
the chat API unreachable, an HTTP error status (with the error's message and its details, in the
OpenAI shape `{"error": {"message", "param", ...}}` or the seed contract's `{"status", "message",
"data"}`), a body that is unusable (invalid JSON, an error event in the stream, a stream that ended
before `[DONE]`, past its bounds), an answer without choices, a tool call without an id or a name.
Usage is read as `prompt_tokens`/`completion_tokens` (OpenAI) or `input_tokens`/`output_tokens`.
"""

from __future__ import annotations

import json
from typing import Any

from ..masking.secrets import MESSAGE_LIMIT, Masker
from ..records import Record


class ChatError(Exception):
    """The chat API failed; the message is masked."""


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
    finish_reason: str | None
    usage: Usage | None


class ChatClient:
    """Sends chat-completion requests to `url` (the base URL, e.g. `https://api.openai.com/v1`)."""

    def __init__(
        self,
        url: str,
        api_key: str,
        model: str,
        *,
        client: Any,
        masker: Masker,
        stream: bool = True,
        timeout: float | None = None,
        max_body: int,
    ) -> None:
        self.endpoint = url.rstrip("/") + "/chat/completions"
        self.model = model
        self.stream = stream
        self._api_key = api_key
        self._client, self._masker = client, masker
        self._timeout, self._max_body = timeout, max_body

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        from ..http.request import PreparedRequest, RequestView
        from ..http.transport import TransportError, send

        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": self.stream}
        if tools:
            body["tools"] = tools
        if self.stream:
            body["stream_options"] = {"include_usage": True}
        headers = [
            ("Authorization", f"Bearer {self._api_key}"),
            ("Content-Type", "application/json"),
            ("Accept", "text/event-stream" if self.stream else "application/json"),
        ]
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = PreparedRequest("POST", self.endpoint, headers, content, RequestView())
        try:
            response = await send(self._client, request, timeout=self._timeout, max_body=self._max_body)
        except TransportError as exc:
            raise self._error(f"the chat API could not be reached: {exc}") from None
        if response.status_code >= 400:
            raise self._error(f"the chat API answered {response.status_code}: {_error_detail(response.body)}")
        if response.oversize or response.error:
            raise self._error(f"the chat API's answer is unusable: {response.oversize or response.error}")
        return self._completion(response.body)

    def _error(self, message: str) -> ChatError:
        return ChatError(self._masker.clip(message, MESSAGE_LIMIT))

    def _completion(self, body: Any) -> Completion:
        choices = body.get("choices") if isinstance(body, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._error(f"the chat API's answer has no choices: {_shown(body)}")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        calls = []
        for index, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            call_id = call.get("id") if isinstance(call, dict) else None
            if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
                raise self._error(f"tool call {index} of the chat API's answer has no id or no name")
            arguments = function.get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments) if arguments is not None else ""
            calls.append(ToolCallRequest(call_id, name, arguments))
        return Completion(
            _text(message.get("content")),
            _text(message.get("refusal")),
            calls,
            choice.get("finish_reason"),
            usage_of(body.get("usage")),
        )


def usage_of(data: Any) -> Usage | None:
    if not isinstance(data, dict):
        return None
    given = _count(data.get("prompt_tokens", data.get("input_tokens")))
    taken = _count(data.get("completion_tokens", data.get("output_tokens")))
    total = _count(data.get("total_tokens")) or given + taken
    return Usage(given, taken, total)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _text(content: Any) -> str | None:
    """A message's text: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None


def _error_detail(body: Any) -> str:
    """The message of an error body, with its details (OpenAI's `param`/`code`, the contract's `data`)."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            extra = [f"{k} {error[k]}" for k in ("type", "param", "code") if error.get(k)]
            return error["message"] + (f" ({', '.join(extra)})" if extra else "")
        if isinstance(body.get("message"), str):
            data = body.get("data")
            return body["message"] + (f": {json.dumps(data, ensure_ascii=False)}" if data else "")
    return _shown(body)


def _shown(body: Any) -> str:
    if isinstance(body, (bytes, bytearray)):
        return f"{len(body)} bytes"
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return text or "(empty body)"
