"""The Anthropic flavour's request (`POST /v1/messages`): its checks, and the request in the chat terms
the scripted model reads (`model.decide`).

`read_request(body)` returns `(problems, seen, options)` as `responses_request.read_request` does.
Checked as Anthropic's Messages API checks them: `model` (a string), `max_tokens` (an integer of at
least 1) and `messages` (a non-empty array) are required; roles are `user` and `assistant`, the first
message a user's; content is a string or blocks: `text` (a non-empty `text`), an assistant's
`tool_use` (`id`, `name`, an `input` object), a user's `tool_result` (`tool_use_id` answering a
`tool_use` of the message before it, `content` a string or text blocks, `is_error` a boolean); every
`tool_use` of an assistant message is answered by the next message's `tool_result`s; `system` a string
or text blocks; `tools` `{"name", "description", "input_schema"}` (an object schema); `tool_choice`
`{"type": "auto" | "any" | "tool" | "none"}` (`tool` with a `name`); `stop_sequences` strings;
`stream` a boolean. Sampling and bookkeeping parameters (`temperature`, `top_p`, `top_k`, `metadata`,
...) are ignored; any other parameter is a 400, as the API answers it ("Extra inputs are not
permitted").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ..spelling import json_spelling
from .openai_request import UNSUPPORTED, OpenAIOptions
from .responses_request import flat_tools
from .validation import Problems, add

_APPLIED = ("model", "max_tokens", "messages", "system", "tools", "tool_choice", "stream", "stop_sequences")
_IGNORED = (
    "temperature",
    "top_p",
    "top_k",
    "metadata",
    "service_tier",
    "thinking",
    "container",
    "mcp_servers",
)
KNOWN = frozenset(_APPLIED + _IGNORED)
_CHOICES = MappingProxyType({"auto": "auto", "any": "required", "none": "none"})


def read_request(body: Any) -> tuple[Problems, dict[str, Any], OpenAIOptions]:
    problems: Problems = {}
    if not isinstance(body, Mapping):
        add(problems, "body", "must be a JSON object")
        return problems, {}, OpenAIOptions()
    for key in body:
        if key not in KNOWN:
            add(problems, key, "Extra inputs are not permitted")
    model, limit = body.get("model"), body.get("max_tokens")
    if not isinstance(model, str) or not model:
        add(problems, "model", "Field required" if model is None else "must be a non-empty string")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        add(problems, "max_tokens", "Field required" if limit is None else "must be an integer of at least 1")
        limit = None
    messages = _system(body.get("system"), problems) + _messages(body.get("messages"), problems)
    tools, names = _tools(body.get("tools"), problems)
    seen: dict[str, Any] = {"model": model, "messages": messages, "tools": tools}
    choice = _tool_choice(body.get("tool_choice"), names, problems)
    if choice is not None:
        seen["tool_choice"] = choice
    stops = body.get("stop_sequences") or []
    if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
        add(problems, "stop_sequences", "must be an array of strings")
        stops = []
    if body.get("stream") is not None and not isinstance(body["stream"], bool):
        add(problems, "stream", "must be a boolean")
    options = OpenAIOptions(stream=body.get("stream") is True, max_tokens=limit, stop=tuple(stops))
    return problems, seen, options


def _system(system: Any, problems: Problems) -> list[dict[str, Any]]:
    if system is None:
        return []
    if isinstance(system, list) and all(_is_text(block) for block in system):
        system = "".join(block["text"] for block in system)
    if not isinstance(system, str):
        add(problems, "system", "must be a string or an array of text blocks")
        return []
    return [{"role": "system", "content": system}]


def _is_text(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)


def _messages(messages: Any, problems: Problems) -> list[dict[str, Any]]:
    if not isinstance(messages, list) or not messages:
        add(problems, "messages", "Field required" if messages is None else "must be a non-empty array")
        return []
    seen: list[dict[str, Any]] = []
    pending: set[str] = set()  # tool_use ids of the last assistant message, to be answered next
    for index, message in enumerate(messages):
        field = f"messages.{index}"
        role = message.get("role") if isinstance(message, Mapping) else None
        if role not in ("user", "assistant") or (index == 0 and role != "user"):
            add(problems, f"{field}.role", "must be user or assistant, starting with user")
            continue
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            add(problems, f"{field}.content", "must be a string or an array of content blocks")
            continue
        if role == "assistant":
            pending = _assistant(content, field, seen, problems)
            continue
        answered = _user(content, field, pending, seen, problems)
        if pending - answered:
            missing = ", ".join(sorted(pending - answered))
            add(
                problems,
                field,
                f"tool_use ids were found without tool_result blocks immediately after: {missing}",
            )
        pending = set()
    if pending:
        add(
            problems,
            "messages",
            "the last assistant message's tool_use blocks need tool_result blocks after them",
        )
    return seen


def _assistant(content: list[Any], field: str, seen: list[dict[str, Any]], problems: Problems) -> set[str]:
    texts, calls = [], []
    for number, block in enumerate(content):
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text" and _is_text(block):
            texts.append(block["text"])
        elif kind == "tool_use" and isinstance(block.get("id"), str) and isinstance(block.get("name"), str):
            if not isinstance(block.get("input"), Mapping):
                add(problems, f"{field}.content.{number}.input", "must be an object")
            arguments = json.dumps(block.get("input"))
            calls.append(
                {
                    "id": block["id"],
                    "type": "function",
                    "function": {"name": block["name"], "arguments": arguments},
                }
            )
        else:
            add(
                problems,
                f"{field}.content.{number}",
                f"{json_spelling(kind)} {UNSUPPORTED} in an assistant message",
            )
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    seen.append(message)
    return {call["id"] for call in calls}


def _user(
    content: list[Any], field: str, pending: set[str], seen: list[dict[str, Any]], problems: Problems
) -> set[str]:
    answered: set[str] = set()
    texts = []
    for number, block in enumerate(content):
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text" and _is_text(block) and block["text"]:
            texts.append(block["text"])
        elif kind == "tool_result":
            use_id, result = block.get("tool_use_id"), block.get("content", "")
            if use_id not in pending:
                add(
                    problems,
                    f"{field}.content.{number}.tool_use_id",
                    "must answer a tool_use of the message before",
                )
            if isinstance(result, list) and all(_is_text(b) for b in result):
                result = "".join(b["text"] for b in result)
            if not isinstance(result, str):
                add(problems, f"{field}.content.{number}.content", "must be a string or text blocks")
            if block.get("is_error") is not None and not isinstance(block["is_error"], bool):
                add(problems, f"{field}.content.{number}.is_error", "must be a boolean")
            answered.add(use_id)
            seen.append(
                {"role": "tool", "tool_call_id": use_id, "content": result if isinstance(result, str) else ""}
            )
        else:
            add(
                problems,
                f"{field}.content.{number}",
                f"{json_spelling(kind)} {UNSUPPORTED} (text blocks must be non-empty)",
            )
    if texts:
        seen.append({"role": "user", "content": "".join(texts)})
    return answered


def _tools(tools: Any, problems: Problems) -> tuple[list[dict[str, Any]], set[str]]:
    return flat_tools(tools, problems, "input_schema", lambda index: f"tools.{index}")


def _tool_choice(choice: Any, names: set[str], problems: Problems) -> Any:
    if choice is None:
        return None
    kind = choice.get("type") if isinstance(choice, Mapping) else None
    if isinstance(kind, str) and kind in _CHOICES:
        return _CHOICES[kind]
    if kind == "tool" and choice.get("name") in names:
        return {"mode": "required", "tools": [{"name": choice["name"]}]}
    add(problems, "tool_choice", "must be {type: auto | any | none} or {type: tool, name: a tool given}")
    return None
