"""The Responses flavour's request (`POST /v1/responses`): its checks, and the request in the chat terms
the scripted model reads (`model.decide`).

`read_request(body)` returns `(problems, seen, options)`: `{field: [problems]}` (a 400 in OpenAI's error
shape names the first), the chat-form request, the answer settings. Checked as OpenAI's API checks
them: `model` (a string) and `input` (a string, or an array of items) are required; items are
`message`s (role `user`, `system`, `developer` or `assistant`; content a string or `input_text` /
`output_text` parts; `type` may be left out), `function_call`s (`call_id`, `name`, `arguments`
strings) and `function_call_output`s (`call_id`, `output`), each output answering a `function_call`
of the same `call_id` before it; `tools` are function tools (`name`, `parameters`); `tool_choice`
`auto` / `none` / `required` / `{"type": "function", "name"}`; `instructions` a string;
`max_output_tokens` an integer of at least 16; `stream` and `store` booleans. Sampling and bookkeeping
parameters are type-checked loosely and ignored; what needs server state (`previous_response_id`,
`conversation`, `background`) or a tool the scripted model does not have is a 400 naming it; any other
parameter is a 400 (`unknown_parameter`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..spelling import json_spelling
from .openai_request import UNSUPPORTED, OpenAIOptions
from .validation import Problems, add

_APPLIED = ("model", "input", "instructions", "tools", "tool_choice", "stream", "store",
            "max_output_tokens", "parallel_tool_calls")  # fmt: skip
_IGNORED = ("temperature", "top_p", "metadata", "user", "truncation", "reasoning", "text", "include",
            "service_tier", "prompt_cache_key", "safety_identifier", "max_tool_calls", "top_logprobs",
            "stream_options", "prompt_cache_retention")  # fmt: skip
_STATEFUL = ("previous_response_id", "conversation", "background", "prompt")
KNOWN = frozenset(_APPLIED + _IGNORED + _STATEFUL)
ROLES = ("user", "system", "developer", "assistant")
MIN_OUTPUT_TOKENS = 16


def read_request(body: Any) -> tuple[Problems, dict[str, Any], OpenAIOptions]:
    problems: Problems = {}
    if not isinstance(body, Mapping):
        add(problems, "body", "must be a JSON object")
        return problems, {}, OpenAIOptions()
    for key in body:
        if key not in KNOWN:
            add(problems, key, "is an unknown parameter")
        elif key in _STATEFUL and body[key] is not None:
            add(problems, key, f"{UNSUPPORTED} (it keeps no responses)")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        add(problems, "model", "is required" if model is None else "must be a non-empty string")
    messages = _messages(body, problems)
    tools, names = _tools(body.get("tools"), problems)
    seen: dict[str, Any] = {"model": model, "messages": messages, "tools": tools}
    choice = _tool_choice(body.get("tool_choice"), names, problems)
    if choice is not None:
        seen["tool_choice"] = choice
    for key in ("stream", "store", "parallel_tool_calls"):
        if body.get(key) is not None and not isinstance(body[key], bool):
            add(problems, key, "must be a boolean")
    limit = body.get("max_output_tokens")
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int) or limit < MIN_OUTPUT_TOKENS
    ):
        add(problems, "max_output_tokens", f"must be an integer of at least {MIN_OUTPUT_TOKENS}")
        limit = None
    options = OpenAIOptions(
        stream=body.get("stream") is True,
        max_tokens=limit,
        parallel_tool_calls=body.get("parallel_tool_calls") is not False,
    )
    return problems, seen, options


def _messages(body: Mapping[str, Any], problems: Problems) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        messages.append({"role": "system", "content": instructions})
    elif instructions is not None:
        add(problems, "instructions", "must be a string")
    given = body.get("input")
    if isinstance(given, str):
        return [*messages, {"role": "user", "content": given}]
    if not isinstance(given, list) or not given:
        add(problems, "input", "is required" if given is None else "must be a string or a non-empty array")
        return messages
    calls: set[str] = set()
    for index, item in enumerate(given):
        field = f"input[{index}]"
        if not isinstance(item, Mapping):
            add(problems, field, "must be an object")
            continue
        kind = item.get("type", "message")
        if kind == "message":
            message = _message(item, field, problems)
            if message is not None:
                messages.append(message)
        elif kind == "function_call":
            call = _function_call(item, field, problems)
            if call is None:
                continue
            calls.add(call["id"])
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant" and last.get("tool_calls"):
                last["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            call_id, output = item.get("call_id"), item.get("output")
            if not isinstance(call_id, str) or call_id not in calls:
                add(problems, f"{field}.call_id", "must be the call_id of a function_call before it")
            if not isinstance(output, (str, list)):
                add(problems, f"{field}.output", "must be a string or an array")
            text = output if isinstance(output, str) else _text(output) if isinstance(output, list) else ""
            messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
        else:
            add(problems, f"{field}.type", f"{json_spelling(kind)} {UNSUPPORTED}")
    return messages


def _message(item: Mapping[str, Any], field: str, problems: Problems) -> dict[str, Any] | None:
    role, content = item.get("role"), item.get("content")
    if role not in ROLES:
        add(problems, f"{field}.role", f"must be one of {', '.join(ROLES)}")
        return None
    if isinstance(content, list):
        for index, part in enumerate(content):
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind not in ("input_text", "output_text") or not isinstance(part.get("text"), str):
                add(problems, f"{field}.content[{index}]", "must be an input_text or output_text part")
        content = _text(content)
    elif not isinstance(content, str):
        add(problems, f"{field}.content", "must be a string or an array of parts")
        return None
    return {"role": "system" if role == "developer" else role, "content": content}


def _function_call(item: Mapping[str, Any], field: str, problems: Problems) -> dict[str, Any] | None:
    values = {key: item.get(key) for key in ("call_id", "name", "arguments")}
    bad = [
        key
        for key, value in values.items()
        if not isinstance(value, str) or (key != "arguments" and not value)
    ]
    for key in bad:
        add(
            problems,
            f"{field}.{key}",
            "must be a non-empty string" if key != "arguments" else "must be a string",
        )
    if bad:
        return None
    function = {"name": values["name"], "arguments": values["arguments"]}
    return {"id": values["call_id"], "type": "function", "function": function}


def _text(parts: list[Any]) -> str:
    return "".join(p["text"] for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str))


def _tools(tools: Any, problems: Problems) -> tuple[list[dict[str, Any]], set[str]]:
    return flat_tools(tools, problems, "parameters", lambda index: f"tools[{index}]", function_only=True)


def flat_tools(
    tools: Any, problems: Problems, schema_key: str, at: Callable[[int], str], function_only: bool = False
) -> tuple[list[dict[str, Any]], set[str]]:
    """Tools of the flat form (`{"name", "description", <schema_key>}`: the Responses API's function
    tools, the Messages API's tools) in the chat form the scripted model reads, and their names. The
    Responses API's `parameters` may be left out; the Messages API's `input_schema` must be an object
    schema."""
    found: list[dict[str, Any]] = []
    names: set[str] = set()
    if tools is None:
        return found, names
    if not isinstance(tools, list):
        add(problems, "tools", "must be an array")
        return found, names
    for index, tool in enumerate(tools):
        tool = tool if isinstance(tool, Mapping) else {}
        if function_only and tool.get("type") != "function":
            add(
                problems,
                f"{at(index)}.type",
                f"{json_spelling(tool.get('type'))} {UNSUPPORTED} (function tools only)",
            )
            continue
        name, schema = tool.get("name"), tool.get(schema_key)
        if not isinstance(name, str) or not name or name in names:
            add(problems, f"{at(index)}.name", "must be a non-empty string, unique among the tools")
            continue
        if function_only and schema is not None and not isinstance(schema, Mapping):
            add(problems, f"{at(index)}.{schema_key}", "must be a JSON Schema object")
        elif not function_only and (not isinstance(schema, Mapping) or schema.get("type") != "object"):
            add(problems, f"{at(index)}.{schema_key}", "must be a JSON Schema of type object")
        names.add(name)
        function = {"name": name, "description": tool.get("description"), "parameters": schema}
        found.append({"type": "function", "function": function})
    return found, names


def _tool_choice(choice: Any, names: set[str], problems: Problems) -> Any:
    if choice is None or choice in ("auto", "none", "required"):
        return choice
    if isinstance(choice, Mapping) and choice.get("type") == "function" and choice.get("name") in names:
        return {"mode": "required", "tools": [{"name": choice["name"]}]}
    add(problems, "tool_choice", "must be auto, none, required or a function tool given in tools")
    return None
