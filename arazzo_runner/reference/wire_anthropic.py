"""The Anthropic flavour (`POST /v1/messages`, Anthropic's Messages API): a `Reply` as a `message`
object, or as its stream of named events; Anthropic's error object.

- The object: `id` (`msg_` + the reply's hash), `type: "message"`, `role: "assistant"`, `content`
  blocks (one `text`, or one `tool_use` per tool call: `id` `toolu_...`, `name`, `input` object),
  `stop_reason` `end_turn` / `tool_use` / `max_tokens` (the text cut at `max_tokens` words) /
  `stop_sequence` (cut at one of `stop_sequences`, named in `stop_sequence`), `usage` as
  `input_tokens` / `output_tokens` (and the cache counters, 0).
- The stream, each event `event: <type>` + `data: <object with type>`: `message_start` (the message
  with empty `content`, `stop_reason: null`), a `ping`, per block `content_block_start`, one
  `content_block_delta` per word (`text_delta`) or arguments fragment (`input_json_delta`),
  `content_block_stop`; `message_delta` (`stop_reason`, `usage.output_tokens`), `message_stop`. The
  error trigger (`model.ERROR_TRIGGER`) ends the stream after `message_start` with an `error` event
  (`api_error`), and answers a non-streamed request 500.
- Errors: `{"type": "error", "error": {"type", "message"}}`: `invalid_request_error` (400, 404 and
  405 as `not_found_error`), `authentication_error` (401), `api_error` (5xx).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .anthropic_request import read_request
from .completion import WORD, split_arguments
from .model import Reply, decide, last_user_text
from .openai_answer import shape_reply
from .validation import Problems

PATHS = ("/v1/messages", "/messages")


def answer(request: Any, *, date: str) -> tuple[int, Any, list[tuple[str, Any]] | None]:
    """(status, JSON body, None) or (200, None, the stream's events) for one request."""
    problems, seen, options = read_request(request)
    if problems:
        return 400, invalid_request(problems), None
    raw = decide(seen, date=date)
    reply = shape_reply(raw, options, date=date, user_text=last_user_text(seen["messages"]))
    stopped_by = _stopped_by(raw, options.stop)
    if options.stream:
        return 200, None, list(stream_events(reply, stopped_by))
    if reply.stream_error is not None:
        return 500, error_body("api_error", reply.stream_error), None
    return 200, message_object(reply, stopped_by), None


def _stopped_by(raw: Reply, stops: tuple[str, ...]) -> str | None:
    """The stop sequence the text was cut before (the first to occur in it), if any."""
    if raw.tool_calls or raw.stream_error is not None:
        return None
    found = [(raw.content or "").find(stop) for stop in stops]
    placed = [(position, stop) for position, stop in zip(found, stops, strict=True) if stop and position >= 0]
    return min(placed)[1] if placed else None


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def error_kind(status: int) -> str:
    if status == 401:
        return "authentication_error"
    if status in (404, 405):
        return "not_found_error"
    if status == 413:
        return "request_too_large"
    return "api_error" if status >= 500 else "invalid_request_error"


def invalid_request(problems: Problems) -> dict[str, Any]:
    items = [f"{field}: {problem}" for field, found in problems.items() for problem in found]
    return error_body("invalid_request_error", "; ".join(items))


def _message_id(reply: Reply) -> str:
    return "msg_" + reply.id.removeprefix("chatcmpl-")


def _stop_reason(reply: Reply, stopped_by: str | None) -> str:
    if reply.tool_calls:
        return "tool_use"
    if reply.finish_reason == "length":
        return "max_tokens"
    return "stop_sequence" if stopped_by else "end_turn"


def _blocks(reply: Reply) -> list[dict[str, Any]]:
    if reply.tool_calls:
        return [
            {"type": "tool_use", "id": "toolu_" + call.id.removeprefix("call_"), "name": call.name,
             "input": json.loads(call.arguments)}
            for call in reply.tool_calls
        ]  # fmt: skip
    return [{"type": "text", "text": reply.content or ""}]


def usage(reply: Reply, output_tokens: int | None = None) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens if output_tokens is None else output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def message_object(reply: Reply, stopped_by: str | None = None) -> dict[str, Any]:
    return {
        "id": _message_id(reply),
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": _blocks(reply),
        "stop_reason": _stop_reason(reply, stopped_by),
        "stop_sequence": stopped_by if _stop_reason(reply, stopped_by) == "stop_sequence" else None,
        "usage": usage(reply),
    }


def stream_events(reply: Reply, stopped_by: str | None = None) -> Iterator[tuple[str, Any]]:
    def event(kind: str, **members: Any) -> tuple[str, Any]:
        return kind, {"type": kind, **members}

    opening = {**message_object(reply), "content": [], "stop_reason": None, "stop_sequence": None}
    yield event("message_start", message={**opening, "usage": usage(reply, 1)})
    yield event("ping")
    if reply.stream_error is not None:
        yield event("error", error={"type": "api_error", "message": reply.stream_error})
        return
    for index, block in enumerate(_blocks(reply)):
        if block["type"] == "tool_use":
            yield event("content_block_start", index=index, content_block={**block, "input": {}})
            for fragment in split_arguments(json.dumps(block["input"])):
                yield event(
                    "content_block_delta",
                    index=index,
                    delta={"type": "input_json_delta", "partial_json": fragment},
                )
        else:
            yield event("content_block_start", index=index, content_block={"type": "text", "text": ""})
            for word in WORD.findall(block["text"]):
                yield event("content_block_delta", index=index, delta={"type": "text_delta", "text": word})
        yield event("content_block_stop", index=index)
    reason = _stop_reason(reply, stopped_by)
    delta = {"stop_reason": reason, "stop_sequence": stopped_by if reason == "stop_sequence" else None}
    yield event("message_delta", delta=delta, usage={"output_tokens": reply.output_tokens})
    yield event("message_stop")
