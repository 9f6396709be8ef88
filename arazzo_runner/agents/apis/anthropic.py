"""Anthropic's Messages API (`POST {url}/messages`, headers `x-api-key` and `anthropic-version:
2023-06-01`; `{url}/v1/messages` for a base URL without its version, Anthropic's own convention).

What is sent: the tools as `{"name", "description", "input_schema"}`; the system text as the top-level
`system`; `max_tokens` (required by the API: `DEFAULT_MAX_TOKENS`, 4096, the largest output every
current Claude model accepts, unless `--max-tokens` says otherwise); the conversation as `messages`:
the user's texts, the model's turns sent back as content blocks (`text` when it wrote some, each
`tool_use` with its `id`, `name` and `input` object; arguments that are not a JSON object are sent as
`{}`, the tool's result telling the model what was wrong with them), each turn's tool outcomes as one
user message of `tool_result` blocks (`tool_use_id`, `content`, `is_error: true` for a call that
failed or was rejected).

How an answer is read: the `content` blocks (`text` joined; `tool_use` blocks are the tool calls, their
`input` as JSON text); `stop_reason` `end_turn` / `stop_sequence` -> `stop`, `tool_use` ->
`tool_calls`, `max_tokens` -> `length`, `refusal` -> `content_filter` (the last two are not an answer,
and their tool calls are not run: a `tool_use` cut at the token limit may be incomplete). Usage:
`input_tokens` / `output_tokens`.

Streamed: `message_start`, then per block `content_block_start`, `content_block_delta` (`text_delta`
pieces are the text as it arrives; the `input_json_delta`s' `partial_json` joined are the tool call's
arguments), `content_block_stop`; `message_delta` (`stop_reason`, usage), `message_stop`. The answer
is complete only at `message_stop`. An `error` event fails the exchange with its message; `ping` and
event types this client does not know add nothing (the API may add some); a data line that is not
JSON, a delta for a block never started, or an event after `message_stop` fails it as a broken stream
(the answer complete before it is then `StreamError.answered`); an unnamed `data: [DONE]` (the chat
stream's end, which proxies such as LiteLLM add after `message_stop`) is no event and is skipped.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

from .base import (
    CONTENT_FILTER,
    LENGTH,
    NOT_AN_ANSWER,
    STOP,
    TOOL_CALLS,
    Completion,
    Conversation,
    ModelError,
    StreamError,
    StreamFolder,
    ToolCallRequest,
    Usage,
    Wire,
    event_object,
    excerpt,
    is_done,
    shown,
    usage_of,
    versioned,
)

VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
_STOPS = MappingProxyType(
    {
        "end_turn": STOP,
        "stop_sequence": STOP,
        "tool_use": TOOL_CALLS,
        "max_tokens": LENGTH,
        "refusal": CONTENT_FILTER,
    }
)


class AnthropicWire(Wire):
    name = "anthropic"
    path = "/messages"
    label = "the Messages API"
    example = "https://api.anthropic.com"

    def __init__(self, max_tokens: int | None = None) -> None:
        self.max_tokens = max_tokens or DEFAULT_MAX_TOKENS

    def endpoint(self, url: str) -> str:
        """`URL/messages` when the base URL ends with its version (`https://api.anthropic.com/v1`, as
        OpenAI's are given), else `URL/v1/messages`: Anthropic's own convention (`ANTHROPIC_BASE_URL`,
        the official client's `base_url`) is the URL without `/v1`. Both are accepted."""
        return url.rstrip("/") + ("" if versioned(url) else "/v1") + self.path

    def not_found(self, url: str) -> str:
        return f"is it the API's base URL? (such as {self.example}, with or without /v1)"

    def headers(self, api_key: str, stream: bool) -> list[tuple[str, str]]:
        return [
            ("x-api-key", api_key),
            ("anthropic-version", VERSION),
            ("Content-Type", "application/json"),
            ("Accept", "text/event-stream" if stream else "application/json"),
        ]

    def tools(self, openai_definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        tools = []
        for definition in openai_definitions:
            function = definition["function"]
            tool = {"name": function["name"]}
            if function.get("description"):
                tool["description"] = function["description"]
            tools.append({**tool, "input_schema": function.get("parameters") or {"type": "object"}})
        return tools

    def body(
        self, model: str, conversation: Conversation, tools: list[dict[str, Any]], stream: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "max_tokens": self.max_tokens}
        if conversation.system:
            body["system"] = conversation.system
        body["messages"] = self.rendered(conversation)
        if tools:
            body["tools"] = tools
        return {**body, "stream": stream}

    def rendered(self, conversation: Conversation) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        for kind, item in conversation.items:
            if kind == "user":
                messages.append({"role": "user", "content": item})
            elif kind == "assistant":
                blocks: list[dict[str, Any]] = []
                if item.content:
                    blocks.append({"type": "text", "text": item.content})
                blocks.extend(
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c.arguments)}
                    for c in item.tool_calls
                )
                messages.append({"role": "assistant", "content": blocks})
            else:
                messages.append({"role": "user", "content": [_tool_result(r) for r in item]})
        return messages

    def folder(self) -> StreamFolder:
        return AnthropicFolder(self)

    def completion(self, body: Any) -> Completion:
        if not isinstance(body, dict) or not isinstance(body.get("content"), list):
            raise ModelError(f"the Messages API's answer has no content: {shown(body)}")
        if body.get("type") == "error":
            raise ModelError(f"the Messages API failed: {self.error_detail(body)}")
        blocks = []
        for block in body["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                block = {**block, "arguments": json.dumps(block.get("input", {}), ensure_ascii=False)}
            blocks.append(block)
        return _completion(blocks, body.get("stop_reason"), usage_of(body.get("usage")))

    def error_detail(self, body: Any) -> str:
        """Anthropic's `{"type": "error", "error": {"type", "message"}}`."""
        if isinstance(body, dict):
            error = body.get("error")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                kind = f" ({error['type']})" if isinstance(error.get("type"), str) else ""
                return error["message"] + kind
        return shown(body)


def _input(arguments: str) -> dict[str, Any]:
    """A tool call's `input` as the Messages API is sent it back: its arguments (the joined
    `partial_json` of a stream) read by the rule for JSON from outside, or {} (the call itself then
    fails with why: `tools/call.py` reads the same text by the same rule)."""
    from ...bounds import json_text

    try:
        value = json_text.loads(arguments) if arguments.strip() else {}
    except ValueError:  # not JSON, or nesting too deep (json_text.TooDeep)
        return {}
    return value if isinstance(value, dict) else {}


def _tool_result(result: Any) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": result.call_id, "content": result.content}
    return block if result.ok else {**block, "is_error": True}


def _completion(blocks: list[Any], reason: Any, usage: Usage | None) -> Completion:
    texts, calls = [], []
    for index, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            call_id, name = block.get("id"), block.get("name")
            if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
                raise ModelError(
                    f"content block {index} of the Messages API's answer (a tool_use) has no id or no name"
                )
            calls.append(ToolCallRequest(call_id, name, block.get("arguments") or "{}"))
    reason = reason if isinstance(reason, str) else None
    stop = _STOPS.get(reason, reason) if reason else None
    if stop in NOT_AN_ANSWER:
        calls = []
    return Completion("".join(texts) if texts else None, None, calls, reason, usage, stop=stop)


class AnthropicFolder(StreamFolder):
    def __init__(self, wire: AnthropicWire) -> None:
        self._wire = wire
        self._started = self._stopped = False
        self._blocks: dict[int, dict[str, Any]] = {}
        self._reason: Any = None
        self._usage = Usage()

    @property
    def complete(self) -> bool:
        return self._stopped

    def feed(self, event: str, data: str, position: int) -> list[str]:
        if is_done(event, data):
            return []
        if self._stopped:
            raise StreamError(f"event {position} of the stream came after message_stop: {excerpt(data)}")
        kind, payload = event_object(data, position)
        if kind == "error":
            raise ModelError(f"the stream reported an error: {self._wire.error_detail(payload)}")
        if kind == "message_start":
            message = payload.get("message")
            self._started = True
            self._count(message.get("usage") if isinstance(message, dict) else None)
        elif kind == "message_stop":
            self._stopped = True
        elif kind == "message_delta":
            delta = payload.get("delta")
            if isinstance(delta, dict) and delta.get("stop_reason") is not None:
                self._reason = delta["stop_reason"]
            self._count(payload.get("usage"))
        elif kind.startswith("content_block_"):
            return self._block(kind, payload, position, data)
        return []

    def _count(self, usage: Any) -> None:
        """Usage as the stream reports it: `message_start` the input, `message_delta` the running
        totals (the last one wins)."""
        found = usage_of(usage)
        if found is None:
            return
        if isinstance(usage, dict) and "input_tokens" in usage:
            self._usage.input_tokens = found.input_tokens
        if isinstance(usage, dict) and "output_tokens" in usage:
            self._usage.output_tokens = found.output_tokens
        self._usage.total_tokens = self._usage.input_tokens + self._usage.output_tokens

    def _block(self, kind: str, payload: dict[str, Any], position: int, data: str) -> list[str]:
        index = payload.get("index")
        if not self._started or not isinstance(index, int):
            raise StreamError(f"event {position} ({kind}) is out of place: {excerpt(data)}")
        if kind == "content_block_start":
            block = payload.get("content_block")
            if not isinstance(block, dict):
                raise StreamError(f"event {position} ({kind}) has no content_block: {excerpt(data)}")
            self._blocks[index] = {**block, "partial": []}
            return []
        block = self._blocks.get(index)
        if block is None:
            raise StreamError(
                f"event {position} ({kind}) names block {index}, never started: {excerpt(data)}"
            )
        delta = payload.get("delta")
        if kind != "content_block_delta" or not isinstance(delta, dict):
            return []
        if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            block["text"] = str(block.get("text") or "") + delta["text"]
            return [delta["text"]] if delta["text"] else []
        if delta.get("type") == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            block["partial"].append(delta["partial_json"])
        return []

    def finish(self) -> Completion:
        if not self._stopped:
            raise StreamError("the stream ended before message_stop")
        blocks = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            if block.get("type") == "tool_use":
                given = "".join(block["partial"])
                block["arguments"] = given or json.dumps(block.get("input") or {}, ensure_ascii=False)
            blocks.append(block)
        return _completion(blocks, self._reason, self._usage)
