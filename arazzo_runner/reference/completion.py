"""Rendering a `Reply` as the `chat.completion` JSON object or as `chat.completion.chunk` objects.

Streamed form, in order: one chunk per word of the content (the first delta carries `role`, each
content chunk also repeats the fragment as `text`, as in the notes); per tool call a first fragment with
`index`, `id`, `type`, `function.name` and empty `arguments`, then the arguments in at least two
fragments; a chunk with an empty delta and the `finish_reason` (`usage: null`); a usage chunk with
`choices: []`. With `stream_error` set the stream stops after the first chunk and the error event
`{"error": {"message": ...}}` follows. The caller sends `data: [DONE]` last.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from .model import Reply, ToolCall

_ARGUMENT_FRAGMENT = 8  # characters per streamed arguments fragment, at most
WORD = re.compile(r"\s*\S+\s*")  # a token of the scripted model: one streamed content chunk


def completion_object(reply: Reply, created: int) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": reply.content,
        "refusal": None,
        "tool_calls": [_tool_call(call) for call in reply.tool_calls],
    }
    choice = {"index": 0, "message": message, "finish_reason": reply.finish_reason, "logprobs": None}
    return {**_envelope(reply, created, "chat.completion"), "choices": [choice], "usage": usage(reply)}


def usage(reply: Reply) -> dict[str, int]:
    # `total_tokens` is not in the notes' example; OpenAI-compatible clients (and the seed workflow's
    # `totalTokens` output) expect it, and an extra member breaks no client of the notes' shape.
    total = reply.input_tokens + reply.output_tokens
    return {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens, "total_tokens": total}


def _tool_call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _envelope(reply: Reply, created: int, kind: str) -> dict[str, Any]:
    return {"id": reply.id, "object": kind, "created": created, "model": reply.model}


def stream_chunks(reply: Reply, created: int) -> Iterator[dict[str, Any]]:
    """The chunk objects of a streamed answer (without the final `[DONE]`)."""
    envelope = _envelope(reply, created, "chat.completion.chunk")
    deltas = list(_deltas(reply)) or [{}]
    deltas[0] = {"role": "assistant", **deltas[0]}
    if reply.stream_error is not None:
        yield {**envelope, "choices": [_choice(deltas[0])]}
        yield {"error": {"message": reply.stream_error}}
        return
    for delta in deltas:
        yield {**envelope, "choices": [_choice(delta)]}
    finish = {"index": 0, "delta": {}, "finish_reason": reply.finish_reason}
    yield {**envelope, "choices": [finish], "usage": None}
    yield {**envelope, "choices": [], "usage": usage(reply)}


def _choice(delta: dict[str, Any]) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": None}
    if isinstance(delta.get("content"), str):
        choice["text"] = delta["content"]
    return choice


def _deltas(reply: Reply) -> Iterator[dict[str, Any]]:
    words = WORD.findall(reply.content or "")
    for word in words:
        yield {"content": word}
    for index, call in enumerate(reply.tool_calls):
        yield from _call_deltas(index, call)


def _call_deltas(index: int, call: ToolCall) -> Iterator[dict[str, Any]]:
    head = {"name": call.name, "arguments": ""}
    yield {"tool_calls": [{"index": index, "id": call.id, "type": "function", "function": head}]}
    for fragment in split_arguments(call.arguments):
        yield {"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}


def split_arguments(arguments: str) -> list[str]:
    """At least two fragments (when there are 2+ characters), each at most 8 characters."""
    size = max(1, min(_ARGUMENT_FRAGMENT, math.ceil(len(arguments) / 2)))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)] or [""]
