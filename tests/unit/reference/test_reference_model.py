"""The reference server's scripted decisions (pure functions, no HTTP)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arazzo_runner.reference.arguments import build_arguments, proper_noun
from arazzo_runner.reference.model import decide, matching_functions, name_parts

WEATHER_AND_CALENDAR = "What's the weather in Sydney, and what's on my calendar today?"


def function_tool(name: str, **properties: str) -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": {key: {"type": kind} for key, kind in properties.items()},
        "required": list(properties),
    }
    return {"type": "function", "function": {"name": name, "description": "...", "parameters": parameters}}


WEATHER = function_tool("get_current_weather", location="string")
CALENDAR = function_tool("get_calendar_events", date="string")
EMAIL = function_tool("send_email", to="string")


def ask(text: str, tools: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"model": "agentaus", "messages": [{"role": "user", "content": text}]}
    if tools is not None:
        request["tools"] = tools
    return {**request, **extra}


def called(request: dict[str, Any]) -> list[str]:
    return [call.name for call in decide(request).tool_calls]


def test_auto_calls_both_matching_tools_in_parallel() -> None:
    reply = decide(ask(WEATHER_AND_CALENDAR, [WEATHER, CALENDAR, EMAIL], tool_choice="auto"))
    assert [c.name for c in reply.tool_calls] == ["get_current_weather", "get_calendar_events"]
    assert reply.finish_reason == "tool_calls"
    assert reply.content is None
    assert json.loads(reply.tool_calls[0].arguments) == {"location": "Sydney"}
    assert json.loads(reply.tool_calls[1].arguments) == {"date": "2026-09-16"}
    assert reply.tool_calls[0].id != reply.tool_calls[1].id
    assert all(c.id.startswith("call_") for c in reply.tool_calls)


def test_auto_without_a_matching_tool_answers_with_text() -> None:
    reply = decide(ask("Tell me a joke", [WEATHER]))
    assert reply.tool_calls == ()
    assert reply.finish_reason == "stop"
    assert "Tell me a joke" in (reply.content or "")


def test_tool_choice_defaults_to_auto() -> None:
    assert called(ask("How is the weather?", [WEATHER])) == ["get_current_weather"]


def test_required_calls_the_matching_tool() -> None:
    assert called(ask("Sydney weather please", [CALENDAR, WEATHER], tool_choice="required")) == [
        "get_current_weather"
    ]


def test_required_without_a_match_calls_the_first_tool() -> None:
    reply = decide(ask("Sydney", [WEATHER, CALENDAR], tool_choice="required"))
    assert [c.name for c in reply.tool_calls] == ["get_current_weather"]
    # "Sydney" starts the sentence, so the whole message is the location.
    assert json.loads(reply.tool_calls[0].arguments) == {"location": "Sydney"}


def test_none_never_calls() -> None:
    text = "Never mind the live lookup — just tell me what Sydney's weather is like in September."
    reply = decide(ask(text, [WEATHER], tool_choice="none"))
    assert reply.tool_calls == ()
    assert reply.finish_reason == "stop"
    assert text in (reply.content or "")


def allowed(mode: str, *names: str) -> dict[str, Any]:
    return {"type": "allowed_tools", "mode": mode, "tools": [{"type": "function", "name": n} for n in names]}


def test_allowed_tools_required_narrows_the_catalog() -> None:
    choice = allowed("required", "get_current_weather", "get_calendar_events")
    request = ask(WEATHER_AND_CALENDAR + " Also email Bob.", [WEATHER, CALENDAR, EMAIL], tool_choice=choice)
    assert called(request) == ["get_current_weather", "get_calendar_events"]


def test_allowed_tools_required_falls_back_to_the_first_allowed_tool() -> None:
    request = ask("Hello", [WEATHER, CALENDAR, EMAIL], tool_choice=allowed("required", "send_email"))
    assert called(request) == ["send_email"]


def test_allowed_tools_auto_may_answer_with_text() -> None:
    request = ask(WEATHER_AND_CALENDAR, [WEATHER, CALENDAR, EMAIL], tool_choice=allowed("auto", "send_email"))
    reply = decide(request)
    assert reply.tool_calls == ()
    assert reply.finish_reason == "stop"


def test_allowed_tools_auto_calls_only_allowed_matches() -> None:
    request = ask(
        WEATHER_AND_CALENDAR, [WEATHER, CALENDAR], tool_choice=allowed("auto", "get_calendar_events")
    )
    assert called(request) == ["get_calendar_events"]


def conversation(*results: str) -> dict[str, Any]:
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": f"tool_{i}", "arguments": "{}"}}
        for i in range(len(results))
    ]
    tool_messages = [
        {"role": "tool", "tool_call_id": f"call_{i}", "content": result} for i, result in enumerate(results)
    ]
    messages = [
        {"role": "user", "content": "What's the weather in Sydney?"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *tool_messages,
    ]
    return {"messages": messages, "tools": [WEATHER], "tool_choice": "required"}


def test_a_tool_message_last_yields_the_final_answer_with_the_result() -> None:
    reply = decide(conversation("22°C and sunny"))
    assert reply.content == "Based on the tool result: 22°C and sunny"
    assert reply.finish_reason == "stop"
    assert reply.tool_calls == ()


def test_several_tool_results_are_all_quoted() -> None:
    reply = decide(conversation("22°C", "Dentist at 3pm"))
    assert reply.content == "Based on the tool results: 22°C; Dentist at 3pm"


def test_server_side_tools_answer_with_text_naming_them() -> None:
    tools = [{"type": "agentaus_web_fetch"}, {"type": "agentaus_dataset_search", "dataset_ids": ["d1", "d2"]}]
    reply = decide(ask("Summarise the release notes", tools))
    assert reply.finish_reason == "stop"
    assert reply.tool_calls == ()
    content = reply.content or ""
    assert "agentaus_web_fetch" in content
    assert "agentaus_dataset_search" in content
    assert "d1, d2" in content


def test_matching_function_tools_win_over_server_side_tools() -> None:
    assert called(ask("weather?", [{"type": "agentaus_web_fetch"}, WEATHER])) == ["get_current_weather"]


def test_replies_are_deterministic() -> None:
    request = ask(WEATHER_AND_CALENDAR, [WEATHER, CALENDAR])
    assert decide(request) == decide(json.loads(json.dumps(request)))
    assert decide(request).id.startswith("chatcmpl-")
    assert decide({**request, "stream": False}).id == decide({**request, "stream": True}).id


def test_usage_counts_words() -> None:
    reply = decide(ask("one two three"))
    assert reply.input_tokens == 3
    assert reply.output_tokens == len((reply.content or "").split())


def test_error_trigger_is_flagged() -> None:
    assert decide(ask("please trigger-stream-error now")).stream_error
    assert decide(ask("all good")).stream_error is None


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("get_current_weather", {"current", "weather"}),
        ("list_calendar_events", {"calendar", "event"}),
        ("send_email", {"email"}),
        ("getStockPrice", {"stock", "price"}),
        ("set_up", set()),
    ],
)
def test_name_parts(name: str, parts: set[str]) -> None:
    assert name_parts(name) == parts


def test_matching_is_case_insensitive_and_ignores_plural() -> None:
    functions = [{"name": "get_calendar_events"}, {"name": "get_current_weather"}]
    assert matching_functions(functions, "Any EVENT today?") == [functions[0]]
    assert matching_functions(functions, "get me something") == []


def test_arguments_follow_the_schema() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "query": {"type": "string"},
            "when": {"type": "string", "format": "date"},
            "start_date": {"type": "string"},
            "units": {"type": "string", "enum": ["metric", "imperial"]},
            "limit": {"type": "integer"},
            "verbose": {"type": "boolean"},
            "tags": {"type": "array"},
            "filter": {"type": "object", "properties": {"lang": {"default": "en"}}, "required": ["lang"]},
            "optional": {"type": "string"},
        },
        "required": ["city", "query", "when", "start_date", "units", "limit", "verbose", "tags", "filter"],
    }
    message = "Find hotels in New York for me"
    assert json.loads(build_arguments(parameters, message, date="2030-01-02")) == {
        "city": "New York",
        "query": message,
        "when": "2030-01-02",
        "start_date": "2030-01-02",
        "units": "metric",
        "limit": 1,
        "verbose": False,
        "tags": [],
        "filter": {"lang": "en"},
    }


@pytest.mark.parametrize("parameters", [None, {}, {"type": "object"}, "not a schema"])
def test_arguments_of_a_schema_without_required_properties(parameters: Any) -> None:
    assert build_arguments(parameters, "hello") == "{}"


@pytest.mark.parametrize(
    ("message", "noun"),
    [
        ("What's the weather in Sydney, and what's on my calendar today?", "Sydney"),
        ("Is it raining in Sydney's north?", "Sydney"),
        ("Sydney", None),
        ("I am off to Paris. Then Rome.", "Paris"),
        ("no capitals here", None),
    ],
)
def test_proper_noun(message: str, noun: str | None) -> None:
    assert proper_noun(message) == noun
