"""OpenAI's Responses API (`POST {url}/responses`).

What is sent: the tools as `{"type": "function", "name", "description", "parameters", "strict":
false}` (the API makes function tools strict by default, and strict mode refuses the JSON Schemas
workflows declare unless every property is required and closed, so the tool schemas are sent as they
are, not strict); the system text as `instructions` (the API's own place for it, re-sent on every
request since nothing is kept server-side); the conversation as `input` items: the user's `message`
items, the model's turns sent back (its text as an assistant `message`, each `function_call` with its
`call_id`, `name`, `arguments`, without the item `id`, which with `store: false` names nothing the
server kept) and each tool's outcome as a `function_call_output` (`call_id`, `output`). `store: false`:
the loop re-sends the whole conversation each turn (no `previous_response_id`), so nothing needs keeping,
and the tool outputs (data of the user's APIs) are not retained by the provider.

How an answer is read: the `output` items (`message` with `output_text` / `refusal` parts,
`function_call`); `status` `completed` is an answer (`stop`, or `tool_calls` when it calls tools);
`incomplete` is not: `incomplete_details.reason` `max_output_tokens` -> `length`, `content_filter` ->
`content_filter`, and its function calls are not run (the last one's arguments may be cut); `failed`
(and an in-progress status) fails the exchange with the error's message. Usage: `input_tokens` /
`output_tokens`.

Streamed: `event:`/`data:` pairs whose data is a JSON object with its `type`. Text pieces come from
`response.output_text.delta`; function calls from `response.output_item.added` and
`response.function_call_arguments.delta` (joined, the `.done` event's `arguments` winning); the answer
is complete only at `response.completed` or `response.incomplete` (its `response` object decides, its
`output` when it lists the items, else the items the stream built). `response.failed` and `error`
events fail the exchange with their message; a data line that is not JSON, or not an object with a
`type`, or an event after the end, fails it as a broken stream (the answer complete before it is then
`StreamError.answered`); an unnamed `data: [DONE]` (the chat stream's end, which proxies such as LiteLLM
add after `response.completed`) is no event and is skipped; other events (`response.created`,
`response.content_part.added`, reasoning summaries, ...) add nothing. Reasoning items are not sent
back (with `store: false` that needs their encrypted content; not asked for).
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

from .base import (
    CONTENT_FILTER,
    LENGTH,
    STOP,
    TOOL_CALLS,
    Completion,
    Conversation,
    ModelError,
    StreamError,
    StreamFolder,
    ToolCallRequest,
    Wire,
    event_object,
    excerpt,
    is_done,
    shown,
    usage_of,
)

_INCOMPLETE = MappingProxyType({"max_output_tokens": LENGTH, "content_filter": CONTENT_FILTER})
_END_EVENTS = ("response.completed", "response.incomplete")


class ResponsesWire(Wire):
    name = "responses"
    path = "/responses"
    label = "the Responses API"

    def __init__(self, max_tokens: int | None = None) -> None:
        self.max_tokens = max_tokens  # `max_output_tokens`; None: the API's default

    def headers(self, api_key: str, stream: bool) -> list[tuple[str, str]]:
        return [
            ("Authorization", f"Bearer {api_key}"),
            ("Content-Type", "application/json"),
            ("Accept", "text/event-stream" if stream else "application/json"),
        ]

    def tools(self, openai_definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        tools = []
        for definition in openai_definitions:
            function = definition["function"]
            tool = {"type": "function", "name": function["name"]}
            if function.get("description"):
                tool["description"] = function["description"]
            tools.append({**tool, "parameters": function.get("parameters") or {}, "strict": False})
        return tools

    def body(
        self, model: str, conversation: Conversation, tools: list[dict[str, Any]], stream: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "input": self.rendered(conversation)}
        if conversation.system:
            body["instructions"] = conversation.system
        if tools:
            body["tools"] = tools
        if self.max_tokens is not None:
            body["max_output_tokens"] = self.max_tokens
        return {**body, "stream": stream, "store": False}

    def rendered(self, conversation: Conversation) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        for kind, item in conversation.items:
            if kind == "user":
                items.append({"type": "message", "role": "user", "content": item})
            elif kind == "assistant":
                if item.content:
                    items.append({"type": "message", "role": "assistant", "content": item.content})
                items.extend(
                    {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
                    for c in item.tool_calls
                )
            else:
                items.extend(
                    {"type": "function_call_output", "call_id": r.call_id, "output": r.content} for r in item
                )
        return items

    def folder(self) -> StreamFolder:
        return ResponsesFolder(self)

    def completion(self, body: Any) -> Completion:
        if not isinstance(body, dict) or not isinstance(body.get("output"), list):
            raise ModelError(f"the Responses API's answer has no output: {shown(body)}")
        status = body.get("status")
        if status == "failed" or (status not in ("completed", "incomplete") and body.get("error")):
            raise ModelError(f"the Responses API's answer failed: {self.error_detail(body)}")
        if status not in ("completed", "incomplete"):
            raise ModelError(f"the Responses API's answer is not finished (status {status!r})")
        texts: list[str] = []
        refusals: list[str] = []
        calls = []
        for index, item in enumerate(body["output"]):
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "message":
                for part in item.get("content") or ():
                    if isinstance(part, dict) and part.get("type") == "output_text":
                        text = part.get("text")
                        texts.append(text if isinstance(text, str) else "")
                    elif isinstance(part, dict) and part.get("type") == "refusal":
                        refusals.append(str(part.get("refusal") or ""))
            elif kind == "function_call":
                calls.append(_call(item, index))
        if status == "incomplete":
            details = body.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            reason = reason if isinstance(reason, str) else "incomplete"
            stop, calls = _INCOMPLETE.get(reason, reason), []
        else:
            reason = "completed"
            stop = TOOL_CALLS if calls else STOP
        return Completion(
            "".join(texts) if texts else None,
            "".join(refusals) if refusals else None,
            calls,
            reason,
            usage_of(body.get("usage")),
            stop=stop,
        )

    def error_detail(self, body: Any) -> str:
        """OpenAI's `{"error": {"message", "type", "param", "code"}}`, a failed response's `error`, or
        a stream's `error` event (`{"type": "error", "code", "message", "param"}`)."""
        if isinstance(body, dict):
            error = body.get("error")
            if not isinstance(error, dict):
                error = body
            if isinstance(error.get("message"), str):
                extra = [f"{k} {error[k]}" for k in ("type", "param", "code") if error.get(k)]
                extra = [e for e in extra if e != "type error"]
                return error["message"] + (f" ({', '.join(extra)})" if extra else "")
        return shown(body)


def _call(item: dict[str, Any], index: int) -> ToolCallRequest:
    call_id, name = item.get("call_id"), item.get("name")
    if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
        raise ModelError(
            f"output item {index} of the Responses API's answer (a function_call) has no call_id or no name"
        )
    arguments = item.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments) if arguments is not None else ""
    return ToolCallRequest(call_id, name, arguments)


class ResponsesFolder(StreamFolder):
    def __init__(self, wire: ResponsesWire) -> None:
        self._wire = wire
        self._items: dict[int, dict[str, Any]] = {}  # output_index -> the item as the stream built it
        self._final: dict[str, Any] | None = None

    @property
    def complete(self) -> bool:
        return self._final is not None

    def feed(self, event: str, data: str, position: int) -> list[str]:
        if is_done(event, data):
            return []
        if self._final is not None:
            raise StreamError(
                f"event {position} of the stream came after the response ended: {excerpt(data)}"
            )
        kind, payload = event_object(data, position)
        if kind == "error":
            raise ModelError(f"the stream reported an error: {self._wire.error_detail(payload)}")
        if kind == "response.failed":
            response = payload.get("response")
            raise ModelError(f"the stream reported a failed response: {self._wire.error_detail(response)}")
        if kind in _END_EVENTS:
            response = payload.get("response")
            if not isinstance(response, dict):
                raise StreamError(f"event {position} ({kind}) has no response object: {excerpt(data)}")
            self._final = response
            return []
        return self._fold(kind, payload, position, data)

    def _fold(self, kind: str, payload: dict[str, Any], position: int, data: str) -> list[str]:
        index = payload.get("output_index")
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = payload.get("item")
            if not isinstance(item, dict) or not isinstance(index, int):
                raise StreamError(
                    f"event {position} ({kind}) has no item or no output_index: {excerpt(data)}"
                )
            known = self._items.get(index, {})
            self._items[index] = {**item, "arguments": item.get("arguments") or known.get("arguments", "")}
            if item.get("type") == "message" and kind.endswith(".added"):
                self._items[index]["content"] = known.get("content") or []
            return []
        if kind == "response.output_text.delta":
            delta = payload.get("delta")
            if not isinstance(delta, str):
                raise StreamError(f"event {position} ({kind}) has no delta text: {excerpt(data)}")
            item = self._items.setdefault(index if isinstance(index, int) else 0, {"type": "message"})
            parts = item.setdefault("content", [])
            if not parts or parts[-1].get("type") != "output_text":
                parts.append({"type": "output_text", "text": ""})
            parts[-1]["text"] += delta
            return [delta] if delta else []
        if kind in ("response.function_call_arguments.delta", "response.function_call_arguments.done"):
            item = self._items.get(index) if isinstance(index, int) else None
            if item is None or item.get("type") != "function_call":
                raise StreamError(f"event {position} ({kind}) names no function_call item: {excerpt(data)}")
            if kind.endswith(".delta"):
                item["arguments"] = item.get("arguments", "") + str(payload.get("delta") or "")
            elif isinstance(payload.get("arguments"), str):
                item["arguments"] = payload["arguments"]
        return []

    def finish(self) -> Completion:
        if self._final is None:
            raise StreamError("the stream ended before response.completed (or response.incomplete)")
        response = self._final
        if not response.get("output"):
            built = [self._items[i] for i in sorted(self._items)]
            response = {**response, "output": built}
        return self._wire.completion(response)
