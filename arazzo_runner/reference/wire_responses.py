"""The Responses flavour (`POST /v1/responses`, OpenAI's Responses API): a `Reply` as a `response`
object, or as its stream of named events.

- The object: `id` (`resp_` + the reply's hash), `object: "response"`, `status` `completed` (or
  `incomplete` with `incomplete_details.reason: "max_output_tokens"` when `max_output_tokens` cut the
  text), `output` items: a `message` with one `output_text` part, or one `function_call` per tool call
  (`id` `fc_...`, `call_id`, `name`, `arguments`); `usage` as `input_tokens` / `output_tokens` /
  `total_tokens` with their details; the request's `instructions`, `tools`, `tool_choice`,
  `parallel_tool_calls`, `store`, `max_output_tokens` echoed.
- The stream, each event `event: <type>` + `data: <object with type and sequence_number>`, no
  `[DONE]`: `response.created`, `response.in_progress`; per item `response.output_item.added`, then a
  text's `response.content_part.added`, one `response.output_text.delta` per word,
  `response.output_text.done`, `response.content_part.done`, or a call's
  `response.function_call_arguments.delta` fragments and `.done`; `response.output_item.done`; then
  `response.completed` (or `response.incomplete`). The error trigger (`model.ERROR_TRIGGER`) ends the
  stream after `response.in_progress` with `response.failed` (`error.code: "server_error"`), and
  answers a non-streamed request 500.
- Errors: OpenAI's `{"error": {"message", "type", "param", "code"}}` (`wire_openai.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from . import wire_openai
from .completion import WORD, split_arguments
from .model import Reply, decide, last_user_text
from .openai_answer import shape_reply
from .responses_request import read_request

PATHS = ("/v1/responses", "/responses")


def answer(request: Any, *, date: str, created: int) -> tuple[int, Any, list[tuple[str, Any]] | None]:
    """(status, JSON body, None) or (200, None, the stream's events) for one request."""
    problems, seen, options = read_request(request)
    if problems:
        return 400, wire_openai.invalid_request(problems), None
    reply = shape_reply(
        decide(seen, date=date), options, date=date, user_text=last_user_text(seen["messages"])
    )
    echo = _echo(request)
    if options.stream:
        return 200, None, list(stream_events(reply, created, echo))
    if reply.stream_error is not None:
        return 500, wire_openai.error_body(reply.stream_error, "server_error"), None
    return 200, response_object(reply, created, echo), None


def _echo(request: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "store": request.get("store", True),
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools") or [],
        "temperature": request.get("temperature", 1.0),
        "top_p": request.get("top_p", 1.0),
        "metadata": request.get("metadata") or {},
    }


def _response_id(reply: Reply) -> str:
    return "resp_" + reply.id.removeprefix("chatcmpl-")


def response_object(
    reply: Reply, created: int, echo: Mapping[str, Any], *, status: str | None = None, output: Any = None
) -> dict[str, Any]:
    cut = reply.finish_reason == "length"
    status = status or ("incomplete" if cut else "completed")
    return {
        "id": _response_id(reply),
        "object": "response",
        "created_at": created,
        "status": status,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if cut and status == "incomplete" else None,
        "model": reply.model,
        "output": output_items(reply) if output is None else output,
        "usage": usage(reply) if status in ("completed", "incomplete") else None,
        "text": {"format": {"type": "text"}},
        "truncation": "disabled",
        **echo,
    }


def usage(reply: Reply) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }


def output_items(reply: Reply, status: str = "completed") -> list[dict[str, Any]]:
    if reply.tool_calls:
        return [
            {"id": "fc_" + call.id.removeprefix("call_"), "type": "function_call", "status": status,
             "call_id": call.id, "name": call.name, "arguments": call.arguments}
            for call in reply.tool_calls
        ]  # fmt: skip
    text = {"type": "output_text", "text": reply.content or "", "annotations": [], "logprobs": []}
    message_id = "msg_" + reply.id.removeprefix("chatcmpl-")
    item_status = "incomplete" if reply.finish_reason == "length" else status
    return [
        {"id": message_id, "type": "message", "role": "assistant", "status": item_status, "content": [text]}
    ]


def stream_events(reply: Reply, created: int, echo: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """The named events of a streamed answer, each with its `sequence_number`."""
    number = 0

    def event(kind: str, **members: Any) -> tuple[str, Any]:
        nonlocal number
        number += 1
        return kind, {"type": kind, "sequence_number": number - 1, **members}

    opening = response_object(reply, created, echo, status="in_progress", output=[])
    yield event("response.created", response=opening)
    yield event("response.in_progress", response=opening)
    if reply.stream_error is not None:
        error = {"code": "server_error", "message": reply.stream_error}
        failed = {**response_object(reply, created, echo, status="failed", output=[]), "error": error}
        yield event("response.failed", response=failed)
        return
    for index, item in enumerate(output_items(reply)):
        if item["type"] == "function_call":
            yield event("response.output_item.added", output_index=index,
                        item={**item, "arguments": "", "status": "in_progress"})  # fmt: skip
            for fragment in split_arguments(item["arguments"]):
                yield event(
                    "response.function_call_arguments.delta",
                    item_id=item["id"],
                    output_index=index,
                    delta=fragment,
                )
            yield event("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                        name=item["name"], arguments=item["arguments"])  # fmt: skip
        else:
            part = item["content"][0]
            where = {"item_id": item["id"], "output_index": index, "content_index": 0}
            yield event("response.output_item.added", output_index=index,
                        item={**item, "status": "in_progress", "content": []})  # fmt: skip
            yield event("response.content_part.added", **where, part={**part, "text": ""})
            for word in WORD.findall(part["text"]):
                yield event("response.output_text.delta", **where, delta=word, logprobs=[])
            yield event("response.output_text.done", **where, text=part["text"], logprobs=[])
            yield event("response.content_part.done", **where, part=part)
        yield event("response.output_item.done", output_index=index, item=item)
    final = response_object(reply, created, echo)
    yield event(f"response.{final['status']}", response=final)
