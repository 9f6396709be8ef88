"""The OpenAI flavour's request: the parameters it takes, their checks, and what the scripted model sees.

`check_request(body)` returns `{field: [problems]}` like `validation.validate_request` (the first field
becomes the error's `param`). Beyond the seed contract's checks (shared: `validation.py`) it follows
OpenAI chat completions:

- `model` is required; the `developer` role is accepted and treated as `system`;
- `tool_choice` also takes `{"type": "function", "function": {"name": X}}` (call X) and OpenAI's
  `{"type": "allowed_tools", "allowed_tools": {"mode", "tools": [{"type": "function", "function":
  {"name"}}]}}`; any `tool_choice` needs `tools`;
- every parameter of OpenAI's API is accepted: those that shape the answer are applied (`stream`,
  `stream_options`, `max_tokens` / `max_completion_tokens`, `stop`, `parallel_tool_calls`,
  `response_format`, `service_tier`), sampling and bookkeeping ones (`temperature`, `top_p`, `seed`,
  `user`, `metadata`, `store`, ...) are type-checked and ignored, a deterministic model having no use
  for them; what the scripted model cannot do (`n` > 1, `logprobs`, audio, legacy `functions`,
  custom tools) is a 400 naming the parameter, never an answer that pretends;
- a parameter OpenAI does not know is a 400 (`unknown parameter`), as OpenAI answers it.

`model_request(body)` is the request in the seed's terms, for `model.decide`; `answer_options(body)`
the wire and answer settings (`OpenAIOptions`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..records import Record
from ..spelling import json_spelling
from .model import message_text
from .validation import ROLES, Problems, add, check_messages, check_tools

OPENAI_ROLES = (*ROLES[:1], "developer", *ROLES[1:])
_APPLIED = ("messages", "model", "tools", "tool_choice", "stream", "stream_options", "max_tokens",
            "max_completion_tokens", "stop", "parallel_tool_calls", "response_format", "service_tier",
            "n")  # fmt: skip
_IGNORED = ("temperature", "top_p", "frequency_penalty", "presence_penalty", "seed", "user", "metadata",
            "store", "logit_bias", "top_logprobs", "reasoning_effort", "verbosity", "prompt_cache_key",
            "prompt_cache_options", "prompt_cache_retention", "safety_identifier", "prediction",
            "web_search_options", "moderation", "modalities")  # fmt: skip
_UNSUPPORTED = ("functions", "function_call", "audio", "logprobs")
KNOWN_PARAMETERS = frozenset(_APPLIED + _IGNORED + _UNSUPPORTED)
_RANGES = (("temperature", 0, 2), ("top_p", 0, 1), ("frequency_penalty", -2, 2), ("presence_penalty", -2, 2))
_SERVICE_TIERS = ("auto", "default", "flex", "scale", "priority")
UNSUPPORTED = "is not supported by the reference server"
MAX_STOP = 4


class OpenAIOptions(Record, frozen=True):
    """How one request wants its answer shaped and sent."""

    stream: bool = False
    include_usage: bool = False
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    parallel_tool_calls: bool = True
    response_format: Mapping[str, Any] | None = None  # json_object / json_schema; None: text
    service_tier: str = "default"


def check_request(body: Any) -> Problems:
    problems: Problems = {}
    if not isinstance(body, Mapping):
        add(problems, "body", "must be a JSON object")
        return problems
    for key in body:
        if key not in KNOWN_PARAMETERS:
            add(problems, key, "is an unknown parameter")
    if body.get("model") is None:
        add(problems, "model", "is required")
    elif not isinstance(body["model"], str) or not body["model"]:
        add(problems, "model", "must be a non-empty string")
    check_messages(body.get("messages"), problems, OPENAI_ROLES)
    names = check_tools(body.get("tools"), problems)
    _check_tool_choice(body, names, problems)
    _check_streaming(body, problems)
    _check_parameters(body, problems)
    _check_response_format(body, problems)
    return problems


def _given(body: Mapping[str, Any], key: str) -> bool:
    """OpenAI takes `null` for an optional parameter as "not given"."""
    return body.get(key) is not None


def _check_tool_choice(body: Mapping[str, Any], names: set[str], problems: Problems) -> None:
    if not _given(body, "tool_choice"):
        return
    choice = body["tool_choice"]
    if not body.get("tools"):
        add(problems, "tool_choice", "is only allowed when tools are given")
    elif choice in ("auto", "none"):
        pass
    elif choice == "required":
        if not names:
            add(problems, "tool_choice", "'required' needs at least one function tool in tools")
    elif isinstance(choice, Mapping) and choice.get("type") == "function":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(name, str):
            add(problems, "tool_choice.function.name", "is required")
        elif name not in names:
            add(
                problems,
                "tool_choice.function.name",
                f"{json_spelling(name)} is not a function tool in tools",
            )
    elif isinstance(choice, Mapping) and choice.get("type") == "allowed_tools":
        _check_allowed_tools(choice.get("allowed_tools"), names, problems)
    elif isinstance(choice, Mapping) and choice.get("type") == "custom":
        add(problems, "tool_choice.type", f"'custom' {UNSUPPORTED}")
    else:
        expected = "must be 'auto', 'required', 'none', a function or an allowed_tools object"
        add(problems, "tool_choice", expected)


def _check_allowed_tools(allowed: Any, names: set[str], problems: Problems) -> None:
    field = "tool_choice.allowed_tools"
    if not isinstance(allowed, Mapping):
        add(problems, field, "is required")
        return
    if allowed.get("mode") not in ("auto", "required"):
        add(problems, f"{field}.mode", "must be 'auto' or 'required'")
    refs = allowed.get("tools")
    if not isinstance(refs, list) or not refs:
        add(problems, f"{field}.tools", "must be a non-empty array")
        return
    for index, ref in enumerate(refs):
        function = ref.get("function") if isinstance(ref, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if not isinstance(ref, Mapping) or ref.get("type") != "function":
            add(problems, f"{field}.tools[{index}].type", "must be 'function'")
        elif name not in names:
            add(
                problems,
                f"{field}.tools[{index}].function.name",
                f"{json_spelling(name)} is not a function tool",
            )


def _check_streaming(body: Mapping[str, Any], problems: Problems) -> None:
    if _given(body, "stream") and not isinstance(body["stream"], bool):
        add(problems, "stream", "must be a boolean")
    if not _given(body, "stream_options"):
        return
    options = body["stream_options"]
    if body.get("stream") is not True:
        add(problems, "stream_options", "is only allowed when stream is true")
    elif not isinstance(options, Mapping):
        add(problems, "stream_options", "must be an object")
    else:
        for key in ("include_usage", "include_obfuscation"):
            if options.get(key) is not None and not isinstance(options[key], bool):
                add(problems, f"stream_options.{key}", "must be a boolean")


def _check_parameters(body: Mapping[str, Any], problems: Problems) -> None:
    for key, low, high in _RANGES:
        value = body.get(key)
        if value is not None and (not _is_number(value) or not low <= value <= high):
            add(problems, key, f"must be a number between {low} and {high}")
    for key in ("max_tokens", "max_completion_tokens", "seed", "top_logprobs"):
        value = body.get(key)
        if value is not None and (not _is_integer(value) or (key.startswith("max") and value < 1)):
            add(problems, key, "must be an integer" + (" of at least 1" if key.startswith("max") else ""))
    for key in ("parallel_tool_calls", "store"):
        if _given(body, key) and not isinstance(body[key], bool):
            add(problems, key, "must be a boolean")
    for key in ("user", "safety_identifier", "prompt_cache_key", "reasoning_effort", "verbosity"):
        if _given(body, key) and not isinstance(body[key], str):
            add(problems, key, "must be a string")
    for key in ("metadata", "logit_bias", "prediction", "web_search_options", "prompt_cache_options"):
        if _given(body, key) and not isinstance(body[key], Mapping):
            add(problems, key, "must be an object")
    n = body.get("n")
    if n is not None and (not _is_integer(n) or n < 1):
        add(problems, "n", "must be an integer of at least 1")
    elif n is not None and n > 1:
        add(problems, "n", f"greater than 1 {UNSUPPORTED} (the scripted model answers one choice)")
    _check_stop(body.get("stop"), problems)
    if _given(body, "service_tier") and body["service_tier"] not in _SERVICE_TIERS:
        add(problems, "service_tier", f"must be one of {', '.join(_SERVICE_TIERS)}")
    modalities = body.get("modalities")
    if modalities is not None and modalities != ["text"]:
        add(problems, "modalities", f"other than ['text'] {UNSUPPORTED}")
    for key in _UNSUPPORTED:
        if _given(body, key) and body[key] is not False:
            hint = " (use tools and tool_choice)" if key.startswith("function") else ""
            add(problems, key, UNSUPPORTED + hint)


def _check_stop(stop: Any, problems: Problems) -> None:
    if stop is None or isinstance(stop, str):
        return
    if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
        add(problems, "stop", "must be a string or an array of strings")
    elif len(stop) > MAX_STOP:
        add(problems, "stop", f"takes at most {MAX_STOP} sequences")


def _check_response_format(body: Mapping[str, Any], problems: Problems) -> None:
    if not _given(body, "response_format"):
        return
    fmt = body["response_format"]
    kind = fmt.get("type") if isinstance(fmt, Mapping) else None
    if kind not in ("text", "json_object", "json_schema"):
        add(problems, "response_format.type", "must be 'text', 'json_object' or 'json_schema'")
    elif kind == "json_object" and "json" not in _all_text(body.get("messages")).lower():
        add(problems, "messages", "must contain the word 'json' to use response_format json_object")
    elif kind == "json_schema":
        spec = fmt.get("json_schema")
        if not isinstance(spec, Mapping):
            add(problems, "response_format.json_schema", "is required")
        elif not isinstance(spec.get("name"), str) or not spec["name"]:
            add(problems, "response_format.json_schema.name", "is required")
        elif spec.get("schema") is not None and not isinstance(spec["schema"], Mapping):
            add(problems, "response_format.json_schema.schema", "must be a JSON Schema object")


def _all_text(messages: Any) -> str:
    if not isinstance(messages, list):
        return ""
    return " ".join(message_text(m) for m in messages if isinstance(m, Mapping))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def model_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The validated request as the scripted model reads it: `developer` messages as `system`, the
    forced-function and OpenAI `allowed_tools` choices in the seed's `allowed_tools` form, and `stream`
    / `stream_options` left out (the streamed and the JSON answer share their id)."""
    request = {key: value for key, value in body.items() if key not in ("stream", "stream_options")}
    request["messages"] = [
        {**m, "role": "system"} if m.get("role") == "developer" else m for m in body["messages"]
    ]
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        name = choice["function"]["name"]
        refs = [{"type": "function", "name": name}]
        request["tool_choice"] = {"type": "allowed_tools", "mode": "required", "tools": refs}
    elif isinstance(choice, Mapping) and choice.get("type") == "allowed_tools":
        allowed = choice["allowed_tools"]
        refs = [{"type": "function", "name": ref["function"]["name"]} for ref in allowed["tools"]]
        request["tool_choice"] = {"type": "allowed_tools", "mode": allowed["mode"], "tools": refs}
    elif choice is None:
        request.pop("tool_choice", None)
    return request


def answer_options(body: Mapping[str, Any]) -> OpenAIOptions:
    stream = body.get("stream") is True
    stream_options = body.get("stream_options") or {}
    stop = body.get("stop")
    fmt = body.get("response_format")
    limit = body.get("max_completion_tokens")
    tier = body.get("service_tier")
    return OpenAIOptions(
        stream=stream,
        include_usage=stream and stream_options.get("include_usage") is True,
        max_tokens=limit if limit is not None else body.get("max_tokens"),
        stop=(stop,) if isinstance(stop, str) else tuple(stop or ()),
        parallel_tool_calls=body.get("parallel_tool_calls") is not False,
        response_format=fmt if isinstance(fmt, Mapping) and fmt.get("type") != "text" else None,
        service_tier=tier if tier not in (None, "auto") else "default",
    )
