"""The scripted model: how the reference server decides what to answer. Pure functions.

The request is assumed valid (see `validation.py`). In order:

1. The last message has role `tool` -> a final text answer quoting the results of the trailing tool
   messages: `Based on the tool result: <content>` (several: `Based on the tool results: <a>; <b>`),
   `finish_reason: stop`.
2. The catalog is `tools`; an `allowed_tools` choice narrows it to the function tools it names and its
   `mode` applies. Without `tool_choice` the mode is `auto`.
3. Mode `none`, or an empty catalog -> text answer.
4. The function tools whose names match the last user message are called, all of them, in catalog order
   (`finish_reason: tool_calls`). A name matches when one of its parts (split on `_`, `-`, `.` and
   camelCase) of 3+ characters, other than a generic verb (get, list, send, set, create, ...), equals a
   word of the message case-insensitively, a trailing `s` ignored (`events` matches `event`).
5. Otherwise, when server-side tools (`agentaus_web_fetch`, `agentaus_dataset_search`) are in the
   catalog, they are "run on the server": a text answer naming each one (and the dataset ids), stop.
6. Otherwise `required` calls the first function tool of the catalog; `auto` answers with text.

Text answer: `You asked: "<last user message>". This is the reference server's scripted answer.`
Arguments: see `arguments.py`. Ids: `chatcmpl-` + a hash of the request without `stream`; `call_` + a
hash of model, message, tool name and position. Usage: `input_tokens` counts the whitespace-separated
words of every message's text and tool-call arguments; `output_tokens` the words of the answer, or per
tool call 1 + the words of its arguments. A last user message containing `trigger-stream-error` makes a
streamed answer fail mid-way with the in-stream error event (and a non-streamed one answer 500).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import Record
from .arguments import DEFAULT_DATE, build_arguments

DEFAULT_MODEL = "agentaus"
ERROR_TRIGGER = "trigger-stream-error"
SERVER_SIDE_TOOLS = ("agentaus_web_fetch", "agentaus_dataset_search")
GENERIC_VERBS = frozenset(
    {"get", "list", "send", "set", "create", "update", "delete", "fetch", "add", "remove", "make", "run"}
)


class ToolCall(Record, frozen=True):
    id: str
    name: str
    arguments: str


class Reply(Record, frozen=True):
    """What the model answers, before it is rendered as JSON or as SSE chunks."""

    id: str
    model: str
    content: str | None
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str
    input_tokens: int
    output_tokens: int
    stream_error: str | None = None


def decide(request: Mapping[str, Any], *, date: str = DEFAULT_DATE) -> Reply:
    """The scripted answer to a validated chat-completions request."""
    messages: Sequence[Mapping[str, Any]] = request["messages"]
    model = request.get("model") or DEFAULT_MODEL
    user_text = last_user_text(messages)
    content: str | None
    calls: tuple[ToolCall, ...]
    if messages[-1].get("role") == "tool":
        content, calls = tool_result_answer(messages), ()
    else:
        content, calls = _answer(request, user_text, model, date)
    trigger = ERROR_TRIGGER in user_text and messages[-1].get("role") == "user"
    return Reply(
        id="chatcmpl-" + _request_digest(request),
        model=model,
        content=content,
        tool_calls=calls,
        finish_reason="tool_calls" if calls else "stop",
        input_tokens=_input_tokens(messages),
        output_tokens=output_tokens(content, calls),
        stream_error=f"Simulated model failure ({ERROR_TRIGGER})" if trigger else None,
    )


def _answer(
    request: Mapping[str, Any], text: str, model: str, date: str
) -> tuple[str | None, tuple[ToolCall, ...]]:
    catalog, mode = effective_catalog(request)
    if mode == "none" or not catalog:
        return text_answer(text), ()
    functions = [tool["function"] for tool in catalog if tool.get("type") == "function"]
    chosen = matching_functions(functions, text)
    if not chosen:
        server_side = [tool for tool in catalog if tool.get("type") in SERVER_SIDE_TOOLS]
        if server_side:
            return server_side_answer(server_side, text), ()
        if mode != "required":
            return text_answer(text), ()
        chosen = functions[:1]
    calls = tuple(
        ToolCall(
            id="call_" + _digest(f"{model}\0{text}\0{function['name']}\0{index}"),
            name=function["name"],
            arguments=build_arguments(function.get("parameters"), text, date=date),
        )
        for index, function in enumerate(chosen)
    )
    return None, calls


def effective_catalog(request: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], str]:
    """The tools the model may use and the mode (`auto`, `required` or `none`) that applies."""
    tools = list(request.get("tools") or [])
    choice = request.get("tool_choice")
    if choice is None:
        return tools, "auto"
    if isinstance(choice, str):
        return tools, choice
    allowed = {ref["name"] for ref in choice["tools"]}
    narrowed = [t for t in tools if t.get("type") == "function" and t["function"]["name"] in allowed]
    return narrowed, choice["mode"]


def matching_functions(functions: Sequence[Mapping[str, Any]], text: str) -> list[Mapping[str, Any]]:
    """The functions whose name matches a word of `text` (rule 4 of the module docstring)."""
    words = {_singular(word) for word in re.findall(r"[a-z0-9]+", text.lower())}
    return [f for f in functions if name_parts(f["name"]) & words]


def name_parts(name: str) -> set[str]:
    """The significant parts of a tool name: `get_current_weather` -> {current, weather}."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    parts = re.split(r"[\s_.\-]+", spaced.lower())
    return {_singular(part) for part in parts if len(part) >= 3 and part not in GENERIC_VERBS}


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def text_answer(user_text: str) -> str:
    return f'You asked: "{user_text}". This is the reference server\'s scripted answer.'


def tool_result_answer(messages: Sequence[Mapping[str, Any]]) -> str:
    results: list[str] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.insert(0, message_text(message))
    if len(results) == 1:
        return f"Based on the tool result: {results[0]}"
    return "Based on the tool results: " + "; ".join(results)


def server_side_answer(tools: Sequence[Mapping[str, Any]], user_text: str) -> str:
    used = []
    for tool in tools:
        if tool["type"] == "agentaus_dataset_search":
            used.append(f"agentaus_dataset_search (datasets: {', '.join(tool['dataset_ids'])})")
        else:
            used.append(tool["type"])
    return f'Answered "{user_text}" on the server using {" and ".join(used)}.'


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return message_text(message)
    return ""


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a message: its content string, or its text parts joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = (part.get("text") for part in content if isinstance(part, Mapping))
        return "".join(text for text in texts if isinstance(text, str))
    return ""


def _input_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    total = 0
    for message in messages:
        total += len(message_text(message).split())
        for call in message.get("tool_calls") or []:
            total += len(call["function"]["arguments"].split())
    return total


def output_tokens(content: str | None, calls: Sequence[ToolCall]) -> int:
    if calls:
        return sum(1 + len(call.arguments.split()) for call in calls)
    return len((content or "").split())


def _request_digest(request: Mapping[str, Any]) -> str:
    # `stream` left out: the streamed and the JSON answer to one request share their id.
    significant = {key: value for key, value in request.items() if key != "stream"}
    return _digest(json.dumps(significant, sort_keys=True, default=str))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]
