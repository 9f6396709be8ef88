"""OpenAI-style request validation for the reference server.

`validate_request(body)` returns `{field: [problems]}` (empty when the request is valid); the server
answers 400 `{"status": 400, "message": "The request cannot be fulfilled", "data": problems}`. Fields
are named like `messages[2].tool_call_id`. Checked:

- `messages`: required, a non-empty array of objects; `role` one of system, user, assistant, tool;
  system/user/tool `content` a string or an array of content parts; an assistant message needs
  `content` or a non-empty `tool_calls` (each `{id, type: function, function: {name, arguments: string}}`);
  a tool message's `tool_call_id` must answer a tool call of the assistant message before it (only tool
  messages in between), and every tool call must be answered before the next non-tool message.
- `tools`: an array; `type` one of function, agentaus_web_fetch, agentaus_dataset_search; a function
  needs a unique `name` (`^[A-Za-z0-9_-]{1,64}$`) and object `parameters` if any; a dataset search needs
  a non-empty `dataset_ids` array of strings.
- `tool_choice`: `auto`, `required` (needs tools) or `none`, or `{type: allowed_tools, mode: auto|required,
  tools: [{type: function, name}]}` naming function tools of `tools`.
- `stream` a boolean, `model` a string, when present.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..spelling import json_spelling

ERROR_MESSAGE = "The request cannot be fulfilled"
ROLES = ("system", "user", "assistant", "tool")
TOOL_TYPES = ("function", "agentaus_web_fetch", "agentaus_dataset_search")
_FUNCTION_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

Problems = dict[str, list[str]]


def error_body(status: int, message: str, data: Mapping[str, list[str]]) -> dict[str, Any]:
    """The error shape of the contract."""
    return {"status": status, "message": message, "data": dict(data)}


def validate_request(body: Any) -> Problems:
    problems: Problems = {}
    if not isinstance(body, Mapping):
        add(problems, "body", "must be a JSON object")
        return problems
    check_messages(body.get("messages"), problems)
    names = check_tools(body.get("tools"), problems)
    _check_tool_choice(body.get("tool_choice"), names, problems)
    if body.get("stream") is not None and not isinstance(body["stream"], bool):
        add(problems, "stream", "must be a boolean")
    if body.get("model") is not None and not isinstance(body["model"], str):
        add(problems, "model", "must be a string")
    return problems


def add(problems: Problems, field: str, problem: str) -> None:
    problems.setdefault(field, []).append(problem)


def check_messages(messages: Any, problems: Problems, roles: tuple[str, ...] = ROLES) -> None:
    """Checks the conversation; `roles` are the accepted roles (any besides assistant and tool is
    checked like system and user: it needs `content`)."""
    if messages is None:
        add(problems, "messages", "is required")
        return
    if not isinstance(messages, list):
        add(problems, "messages", "must be an array")
        return
    if not messages:
        add(problems, "messages", "must contain at least one message")
        return
    pending: set[str] = set()  # tool call ids of the last assistant message not yet answered
    pending_at = -1
    for index, message in enumerate(messages):
        field = f"messages[{index}]"
        role = message.get("role") if isinstance(message, Mapping) else None
        if role != "tool" and pending:
            _unanswered(messages, pending_at, pending, problems)
            pending = set()
        if not isinstance(message, Mapping):
            add(problems, field, "must be an object")
        elif role not in roles:
            add(problems, f"{field}.role", f"must be one of {', '.join(roles)} (got {json_spelling(role)})")
        elif role == "assistant":
            pending, pending_at = _check_assistant(message, field, problems), index
        elif role == "tool":
            _check_tool_message(message, field, pending, problems)
        else:
            _check_content(message, field, problems)
    if pending:
        _unanswered(messages, pending_at, pending, problems)


def _unanswered(messages: list[Any], at: int, pending: set[str], problems: Problems) -> None:
    ids = [call["id"] for call in messages[at]["tool_calls"] if call.get("id") in pending]
    add(problems, f"messages[{at}].tool_calls", f"tool calls without a tool message: {', '.join(ids)}")


def _check_content(message: Mapping[str, Any], field: str, problems: Problems) -> None:
    content = message.get("content")
    if content is None:
        add(problems, f"{field}.content", "is required")
    elif not _is_content(content):
        add(problems, f"{field}.content", "must be a string or an array of content parts")


def _is_content(content: Any) -> bool:
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(part, Mapping)
        and isinstance(part.get("type"), str)
        and (part["type"] != "text" or isinstance(part.get("text"), str))
        for part in content
    )


def _check_assistant(message: Mapping[str, Any], field: str, problems: Problems) -> set[str]:
    """Checks an assistant message; returns the ids of its tool calls."""
    content, calls = message.get("content"), message.get("tool_calls")
    if content is not None and not _is_content(content):
        add(problems, f"{field}.content", "must be a string, an array of content parts or null")
    if calls is not None and not isinstance(calls, list):
        add(problems, f"{field}.tool_calls", "must be an array")
        return set()
    if content is None and not calls:
        add(problems, field, "an assistant message needs content or tool_calls")
    ids: set[str] = set()
    for index, call in enumerate(calls or []):
        if _check_tool_call(call, f"{field}.tool_calls[{index}]", problems):
            ids.add(call["id"])
    return ids


def _check_tool_call(call: Any, field: str, problems: Problems) -> bool:
    if not isinstance(call, Mapping):
        add(problems, field, "must be an object")
        return False
    ok = True
    if not isinstance(call.get("id"), str) or not call["id"]:
        add(problems, f"{field}.id", "is required")
        ok = False
    if call.get("type") != "function":
        add(problems, f"{field}.type", "must be 'function'")
    function = call.get("function")
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        add(problems, f"{field}.function.name", "is required")
    elif not isinstance(function.get("arguments"), str):
        add(problems, f"{field}.function.arguments", "must be a JSON-encoded string")
    return ok


def _check_tool_message(
    message: Mapping[str, Any], field: str, pending: set[str], problems: Problems
) -> None:
    _check_content(message, field, problems)
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        add(problems, f"{field}.tool_call_id", "is required")
    elif call_id not in pending:
        add(
            problems,
            f"{field}.tool_call_id",
            f"{json_spelling(call_id)} does not answer a tool call of the preceding assistant message",
        )
    else:
        pending.discard(call_id)


def check_tools(tools: Any, problems: Problems) -> set[str]:
    """Checks `tools`; returns the names of its function tools."""
    names: set[str] = set()
    if tools is None:
        return names
    if not isinstance(tools, list):
        add(problems, "tools", "must be an array")
        return names
    for index, tool in enumerate(tools):
        field = f"tools[{index}]"
        kind = tool.get("type") if isinstance(tool, Mapping) else None
        if kind not in TOOL_TYPES:
            add(
                problems,
                f"{field}.type",
                f"must be one of {', '.join(TOOL_TYPES)} (got {json_spelling(kind)})",
            )
        elif kind == "function":
            name = _check_function(tool.get("function"), f"{field}.function", problems)
            if name in names:
                add(problems, f"{field}.function.name", f"duplicate function name {json_spelling(name)}")
            if name:
                names.add(name)
        elif kind == "agentaus_dataset_search":
            ids = tool.get("dataset_ids")
            if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
                add(problems, f"{field}.dataset_ids", "must be a non-empty array of dataset ids")
    return names


def _check_function(function: Any, field: str, problems: Problems) -> str | None:
    if not isinstance(function, Mapping):
        add(problems, field, "is required")
        return None
    name = function.get("name")
    if not isinstance(name, str) or not _FUNCTION_NAME.fullmatch(name):
        add(problems, f"{field}.name", "must match ^[A-Za-z0-9_-]{1,64}$")
        name = None
    if function.get("parameters") is not None and not isinstance(function["parameters"], Mapping):
        add(problems, f"{field}.parameters", "must be a JSON Schema object")
    if function.get("description") is not None and not isinstance(function["description"], str):
        add(problems, f"{field}.description", "must be a string")
    return name


def _check_tool_choice(choice: Any, names: set[str], problems: Problems) -> None:
    if choice is None or choice in ("auto", "none"):
        return
    if choice == "required":
        if not names:
            add(problems, "tool_choice", "'required' needs at least one function tool in tools")
        return
    if not isinstance(choice, Mapping) or choice.get("type") != "allowed_tools":
        add(problems, "tool_choice", "must be 'auto', 'required', 'none' or an allowed_tools object")
        return
    if choice.get("mode") not in ("auto", "required"):
        add(problems, "tool_choice.mode", "must be 'auto' or 'required'")
    refs = choice.get("tools")
    if not isinstance(refs, list) or not refs:
        add(problems, "tool_choice.tools", "must be a non-empty array")
        return
    for index, ref in enumerate(refs):
        field = f"tool_choice.tools[{index}]"
        if not isinstance(ref, Mapping) or ref.get("type") != "function":
            add(problems, f"{field}.type", "must be 'function'")
        elif ref.get("name") not in names:
            add(
                problems, f"{field}.name", f"{json_spelling(ref.get('name'))} is not a function tool in tools"
            )
