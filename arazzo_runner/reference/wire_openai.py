"""The OpenAI flavour's wire: a `Reply` as OpenAI's `chat.completion` / `chat.completion.chunk` objects,
OpenAI's model list, and OpenAI's error object.

- Completion: `message` with `role`, `content`, `refusal: null`, `annotations: []` and `tool_calls`
  only when there are some; `logprobs: null`; `service_tier`, `system_fingerprint`; `usage` as
  `prompt_tokens` / `completion_tokens` / `total_tokens` with their `*_details`.
- Chunks: a text answer opens with `{"role": "assistant", "content": "", "refusal": null}` then one
  chunk per word; a tool-call answer puts the role on the first tool-call fragment (id, type, name,
  empty arguments), then the arguments in fragments; then a chunk with an empty delta and the
  `finish_reason`. With `stream_options.include_usage` every chunk carries `usage: null` and a last
  chunk `choices: []` carries the usage; without it there is no usage chunk. The caller sends
  `data: [DONE]` last. A failing reply stops after the first chunk with an error event in the error
  object's shape (the client raises `openai.APIError`).
- Errors: `{"error": {"message", "type", "param", "code"}}`; `type` is `server_error` for 5xx and
  `invalid_request_error` otherwise; a 400's `param` is the first problem's field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .completion import WORD, split_arguments
from .model import DEFAULT_MODEL, Reply, ToolCall
from .openai_request import OpenAIOptions
from .validation import Problems

SYSTEM_FINGERPRINT = "fp_arazzo_reference"
OWNER = "arazzo-reference"
MODELS = (DEFAULT_MODEL,)
_TYPE_PROBLEM = re.compile(r"must be an? (boolean|string|array|object|integer|number|JSON)")
_VALUE_WORDS = re.compile(r"between|at least|non-empty")


def completion_object(reply: Reply, created: int, options: OpenAIOptions) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
    message["annotations"] = []
    if reply.tool_calls:
        message["tool_calls"] = [_tool_call(call) for call in reply.tool_calls]
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": reply.finish_reason}
    envelope = _envelope(reply, created, "chat.completion", options)
    return {**envelope, "choices": [choice], "usage": usage(reply)}


def usage(reply: Reply) -> dict[str, Any]:
    return {
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _tool_call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _envelope(reply: Reply, created: int, kind: str, options: OpenAIOptions) -> dict[str, Any]:
    return {
        "id": reply.id,
        "object": kind,
        "created": created,
        "model": reply.model,
        "service_tier": options.service_tier,
        "system_fingerprint": SYSTEM_FINGERPRINT,
    }


def stream_chunks(reply: Reply, created: int, options: OpenAIOptions) -> Iterator[dict[str, Any]]:
    """The chunk objects of a streamed answer (without the final `[DONE]`)."""
    envelope = _envelope(reply, created, "chat.completion.chunk", options)
    if options.include_usage:
        envelope["usage"] = None
    deltas = _deltas(reply)
    if reply.stream_error is not None:
        yield {**envelope, "choices": [_choice(deltas[0])]}
        yield error_body(reply.stream_error, "server_error")
        return
    for delta in deltas:
        yield {**envelope, "choices": [_choice(delta)]}
    yield {**envelope, "choices": [_choice({}, reply.finish_reason)]}
    if options.include_usage:
        yield {**envelope, "choices": [], "usage": usage(reply)}


def _choice(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}


def _deltas(reply: Reply) -> list[dict[str, Any]]:
    opening: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    if not reply.tool_calls:
        words = WORD.findall(reply.content or "")
        return [{**opening, "content": ""}, *({"content": word} for word in words)]
    deltas: list[dict[str, Any]] = []
    for index, call in enumerate(reply.tool_calls):
        head = {"name": call.name, "arguments": ""}
        deltas.append({"tool_calls": [{"index": index, "id": call.id, "type": "function", "function": head}]})
        for fragment in split_arguments(call.arguments):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
    deltas[0] = {**opening, **deltas[0]}
    return deltas


def model_object(model_id: str, created: int) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": created, "owned_by": OWNER}


def model_list(created: int) -> dict[str, Any]:
    return {"object": "list", "data": [model_object(model_id, created) for model_id in MODELS]}


def error_body(
    message: str, kind: str = "invalid_request_error", param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def invalid_request(problems: Problems) -> dict[str, Any]:
    """A 400 for validation problems: `param` the first field, `message` every problem."""
    items = [(field, problem) for field, found in problems.items() for problem in found]
    field, problem = items[0]
    message = f"Invalid request: '{field}' {problem}."
    if len(items) > 1:
        rest = "; ".join(f"'{f}' {p}" for f, p in items[1:])
        message += f" Also: {rest}."
    return error_body(message, param=None if field == "body" else field, code=problem_code(problem))


def problem_code(problem: str) -> str:
    """OpenAI's `code` for a validation problem."""
    if problem == "is required":
        return "missing_required_parameter"
    if problem == "is an unknown parameter":
        return "unknown_parameter"
    if "is not supported" in problem:
        return "unsupported_parameter"
    if _TYPE_PROBLEM.match(problem) and not _VALUE_WORDS.search(problem):
        return "invalid_type"
    return "invalid_value"


def status_kind(status: int) -> str:
    return "server_error" if status >= 500 else "invalid_request_error"
