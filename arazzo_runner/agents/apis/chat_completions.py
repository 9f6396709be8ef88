"""OpenAI's Chat Completions API (`POST {url}/chat/completions`), which the seed contract
(`openapi/chatgpt-chat-completions-api-openapi.yml`) also describes.

The request always says `stream` (the seed contract streams when it is absent, OpenAI does not); a
streamed request asks for the usage chunk too (`stream_options.include_usage`). A streamed answer is
`data:` lines of chunks merged as `http/chat_merge.py` merges them for `arazzo run`, ended by
`data: [DONE]`. A data line that is not JSON fails the answer, with its position and its start, as the
official client does: skipping it would lose a piece of the text or of a tool call's arguments (but in
a named event, `event: ping`, which is no chunk: as `http/sse.py` reads chat streams for `arazzo run`). An
`{"error": ...}` event fails it with the error's message.
"""

from __future__ import annotations

import json
from typing import Any

from ...bounds import json_text
from .base import (
    Completion,
    Conversation,
    ModelError,
    StreamError,
    StreamFolder,
    ToolCallRequest,
    Wire,
    excerpt,
    shown,
    usage_of,
)

DONE = "[DONE]"


class ChatCompletionsWire(Wire):
    name = "chat"
    path = "/chat/completions"
    label = "the chat API"

    def headers(self, api_key: str, stream: bool) -> list[tuple[str, str]]:
        return [
            ("Authorization", f"Bearer {api_key}"),
            ("Content-Type", "application/json"),
            ("Accept", "text/event-stream" if stream else "application/json"),
        ]

    def tools(self, openai_definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return openai_definitions

    def body(
        self, model: str, conversation: Conversation, tools: list[dict[str, Any]], stream: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "messages": self.rendered(conversation), "stream": stream}
        if tools:
            body["tools"] = tools
        if stream:
            body["stream_options"] = {"include_usage": True}
        return body

    def rendered(self, conversation: Conversation) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        if conversation.system:
            messages.append({"role": "system", "content": conversation.system})
        for kind, item in conversation.items:
            if kind == "user":
                messages.append({"role": "user", "content": item})
            elif kind == "assistant":
                messages.append(assistant_message(item))
            else:
                messages.extend(
                    {"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in item
                )
        return messages

    def folder(self) -> StreamFolder:
        return ChatFolder(self)

    def completion(self, body: Any) -> Completion:
        choices = body.get("choices") if isinstance(body, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ModelError(f"the chat API's answer has no choices: {shown(body)}")
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            message = {}
        calls = []
        for index, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            call_id = call.get("id") if isinstance(call, dict) else None
            if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
                raise ModelError(f"tool call {index} of the chat API's answer has no id or no name")
            arguments = function.get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments) if arguments is not None else ""
            calls.append(ToolCallRequest(call_id, name, arguments))
        reason = choice.get("finish_reason")
        return Completion(
            text_of(message.get("content")),
            text_of(message.get("refusal")),
            calls,
            reason,
            usage_of(body.get("usage")),
            stop=reason if isinstance(reason, str) else None,
        )

    def error_detail(self, body: Any) -> str:
        """OpenAI's `{"error": {"message", "type", "param", "code"}}` or the seed contract's
        `{"status", "message", "data"}`."""
        if isinstance(body, dict):
            error = body.get("error")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                extra = [f"{k} {error[k]}" for k in ("type", "param", "code") if error.get(k)]
                return error["message"] + (f" ({', '.join(extra)})" if extra else "")
            if isinstance(body.get("message"), str):
                data = body.get("data")
                return body["message"] + (f": {json.dumps(data, ensure_ascii=False)}" if data else "")
        return shown(body)


class ChatFolder(StreamFolder):
    def __init__(self, wire: ChatCompletionsWire) -> None:
        from ...http.chat_merge import ChatCompletionMerger

        self._wire = wire
        self._merger = ChatCompletionMerger()
        self._done = False

    @property
    def complete(self) -> bool:
        return self._done

    def feed(self, event: str, data: str, position: int) -> list[str]:
        if data == DONE:
            self._done = True
            return []
        if self._done:
            raise StreamError(f"event {position} of the stream came after 'data: [DONE]': {excerpt(data)}")
        try:
            chunk = json_text.loads(data)
        except json_text.TooDeep as exc:
            raise StreamError(f"event {position} of the stream {exc}: it was not read") from None
        except ValueError:
            if event != "message":  # a named event (`event: ping`) is not a chunk (as `arazzo run` reads it)
                return []
            raise StreamError(f"event {position} of the stream is not JSON: {excerpt(data)}") from None
        if isinstance(chunk, dict) and chunk.get("error") is not None:
            raise ModelError(f"the stream reported an error: {self._wire.error_detail(chunk)}")
        if not isinstance(chunk, dict):
            raise StreamError(f"event {position} of the stream is not a chunk: {excerpt(data)}")
        self._merger.add(chunk)
        return _text_pieces(chunk)

    def finish(self) -> Completion:
        if not self._done:
            raise StreamError("the stream ended before 'data: [DONE]'")
        self._merger.add_done()
        return self._wire.completion(self._merger.result())


def _text_pieces(chunk: dict[str, Any]) -> list[str]:
    pieces = []
    for choice in chunk.get("choices") or ():
        if isinstance(choice, dict) and choice.get("index", 0) == 0:
            delta = choice.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("content"), str) and delta["content"]:
                pieces.append(delta["content"])
    return pieces


def assistant_message(completion: Completion) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": completion.content}
    if completion.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in completion.tool_calls
        ]
    return message


def text_of(content: Any) -> str | None:
    """A message's text: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None
