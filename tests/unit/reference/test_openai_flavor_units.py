"""Unit tests of the OpenAI flavour's parts: request checks, the request the model sees, answer shaping,
error codes; and the argument builder's `$ref` / `anyOf` handling both flavours share."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.types.chat import completion_create_params

from arazzo_runner.reference.arguments import build_arguments
from arazzo_runner.reference.model import decide
from arazzo_runner.reference.openai_answer import cut_at_stop, shape_reply
from arazzo_runner.reference.openai_request import (
    KNOWN_PARAMETERS,
    OpenAIOptions,
    answer_options,
    check_request,
    model_request,
)
from arazzo_runner.reference.wire_openai import invalid_request, problem_code
from tests.unit.reference.openai_kit import BOTH, CALENDAR, WEATHER, user


def request(text: str = "hi", **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": user(text), **extra}


def test_every_parameter_of_the_official_client_is_known() -> None:
    sent = set(completion_create_params.CompletionCreateParamsBase.__annotations__) | {"stream"}
    assert sent <= KNOWN_PARAMETERS, sorted(sent - KNOWN_PARAMETERS)


def test_ordinary_requests_pass() -> None:
    ordinary = request(
        temperature=0.7, top_p=0.9, max_tokens=50, max_completion_tokens=40, n=1, user="u", seed=3,
        parallel_tool_calls=True, response_format={"type": "text"}, frequency_penalty=0,
        presence_penalty=-1.5, metadata={"k": "v"}, store=False, logit_bias={"50256": -100}, stop="\n",
        service_tier="auto",
        reasoning_effort="low", logprobs=False, modalities=["text"], tools=[WEATHER], tool_choice="auto",
    )  # fmt: skip
    assert check_request(ordinary) == {}


def test_model_request_uses_the_seed_forms() -> None:
    forced = {"type": "function", "function": {"name": "get_calendar_events"}}
    body = {
        "model": "m",
        "messages": [{"role": "developer", "content": "d"}, *user("x")],
        "tools": [WEATHER, CALENDAR],
        "tool_choice": forced,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    seen = model_request(body)
    assert seen["messages"][0] == {"role": "system", "content": "d"}
    assert seen["tool_choice"] == {
        "type": "allowed_tools",
        "mode": "required",
        "tools": [{"type": "function", "name": "get_calendar_events"}],
    }
    assert "stream" not in seen and "stream_options" not in seen
    assert body["messages"][0]["role"] == "developer"  # the body itself is left alone
    allowed = {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [{"type": "function",
               "function": {"name": "get_current_weather"}}]}}  # fmt: skip
    assert model_request({**body, "tool_choice": allowed})["tool_choice"]["mode"] == "auto"
    assert "tool_choice" not in model_request({**body, "tool_choice": None})


def test_answer_options() -> None:
    assert answer_options(request()) == OpenAIOptions()
    options = answer_options(
        request(stream=True, stream_options={"include_usage": True}, max_tokens=9, max_completion_tokens=5,
                stop="END", parallel_tool_calls=False, response_format={"type": "text"}, service_tier="flex")
    )  # fmt: skip
    assert options == OpenAIOptions(
        stream=True, include_usage=True, max_tokens=5, stop=("END",), parallel_tool_calls=False,
        response_format=None, service_tier="flex",
    )  # fmt: skip


def test_shaping_tool_calls_and_failures() -> None:
    reply = decide(request(BOTH, tools=[WEATHER, CALENDAR]))
    one = shape_reply(reply, OpenAIOptions(parallel_tool_calls=False, max_tokens=1), date="2026-09-16")
    assert [call.name for call in one.tool_calls] == ["get_current_weather"]
    assert one.output_tokens == 1 + len(one.tool_calls[0].arguments.split())  # not cut by max_tokens
    failing = decide(request("trigger-stream-error"))
    assert shape_reply(failing, OpenAIOptions(max_tokens=1), date="2026-09-16") == failing


def test_json_schema_answers_fill_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "when": {"type": "string", "format": "date"},
            "detail": {"$ref": "#/$defs/Detail"},
            "note": {"anyOf": [{"type": "null"}, {"type": "integer"}]},
        },
        "required": ["city", "when", "detail", "note"],
        "$defs": {
            "Detail": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
        },
    }
    fmt = {"type": "json_schema", "json_schema": {"name": "out", "schema": schema, "strict": True}}
    reply = decide(request("Weather for New York please"))
    shaped = shape_reply(
        reply, OpenAIOptions(response_format=fmt), date="2030-01-01", user_text="For New York"
    )
    assert json.loads(shaped.content or "") == {
        "city": "New York",
        "when": "2030-01-01",
        "detail": {"ok": False},
        "note": 1,
    }
    assert shaped.output_tokens == len((shaped.content or "").split())


def test_stop_and_length() -> None:
    assert cut_at_stop("abc. def", (".", "", "zz")) == "abc"
    assert cut_at_stop("abc", ()) == "abc"
    reply = decide(request("Hello there"))
    cut = shape_reply(reply, OpenAIOptions(max_tokens=2), date="2026-09-16")
    assert (cut.content, cut.finish_reason, cut.output_tokens) == ("You asked:", "length", 2)
    whole = shape_reply(reply, OpenAIOptions(max_tokens=11), date="2026-09-16")
    assert (whole.content, whole.finish_reason) == (reply.content, "stop")


def test_arguments_follow_local_refs_and_any_of() -> None:
    parameters = {
        "type": "object",
        "properties": {"where": {"$ref": "#/definitions/Place"}, "count": {"oneOf": [{"type": "integer"}]}},
        "required": ["where", "count"],
        "definitions": {
            "Place": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
            }
        },
    }
    assert json.loads(build_arguments(parameters, "Weather in Sydney")) == {
        "where": {"location": "Sydney"},
        "count": 1,
    }
    looping = {"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}, "required": ["a"]}
    assert json.loads(build_arguments(looping, "x")) == {"a": "x"}  # a `$ref` cycle ends, typeless: a string
    dangling = {"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}, "required": ["a"]}
    assert json.loads(build_arguments(dangling, "x")) == {"a": "x"}


@pytest.mark.parametrize(
    ("problem", "code"),
    [
        ("is required", "missing_required_parameter"),
        ("is an unknown parameter", "unknown_parameter"),
        ("is not supported by the reference server", "unsupported_parameter"),
        ("must be a boolean", "invalid_type"),
        ("must be an array", "invalid_type"),
        ("must be a string or an array of content parts", "invalid_type"),
        ("must be a number between 0 and 2", "invalid_value"),
        ("must be an integer of at least 1", "invalid_value"),
        ("must be a non-empty string", "invalid_value"),
        ("must be one of system, user", "invalid_value"),
    ],
)
def test_problem_codes(problem: str, code: str) -> None:
    assert problem_code(problem) == code


def test_a_body_problem_has_no_param() -> None:
    error = invalid_request(check_request([1, 2]))["error"]
    assert error == {
        "message": "Invalid request: 'body' must be a JSON object.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_type",
    }
