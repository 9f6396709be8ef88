"""OpenAI-style validation of chat-completions requests by the reference server."""

from __future__ import annotations

from typing import Any

import pytest

from arazzo_runner.reference.validation import error_body, validate_request

USER = {"role": "user", "content": "What's the weather in Sydney?"}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
ASSISTANT_CALLS = {"role": "assistant", "content": None, "tool_calls": [CALL]}
TOOL_ANSWER = {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


def test_a_valid_tool_round_trip_has_no_problems() -> None:
    body = {
        "model": "m",
        "messages": [{"role": "system", "content": "be terse"}, USER, ASSISTANT_CALLS, TOOL_ANSWER],
        "tools": [
            WEATHER,
            {"type": "agentaus_web_fetch"},
            {"type": "agentaus_dataset_search", "dataset_ids": ["a"]},
        ],
        "tool_choice": {
            "type": "allowed_tools",
            "mode": "auto",
            "tools": [{"type": "function", "name": "get_weather"}],
        },
        "stream": False,
    }
    assert validate_request(body) == {}


def test_content_parts_are_accepted() -> None:
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    assert validate_request(body) == {}


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ({}, "messages", "is required"),
        ({"messages": []}, "messages", "at least one"),
        ({"messages": "hi"}, "messages", "array"),
        ({"messages": [42]}, "messages[0]", "object"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0].role", "must be one of"),
        ({"messages": [{"role": "user"}]}, "messages[0].content", "is required"),
        ({"messages": [{"role": "user", "content": 3}]}, "messages[0].content", "string"),
        (
            {"messages": [USER, {"role": "assistant", "content": None}]},
            "messages[1]",
            "content or tool_calls",
        ),
        (
            {"messages": [USER, {"role": "assistant", "tool_calls": []}]},
            "messages[1]",
            "content or tool_calls",
        ),
        ({"messages": [USER, {"role": "tool", "content": "x"}]}, "messages[1].tool_call_id", "is required"),
        (
            {"messages": [USER, {"role": "tool", "tool_call_id": "call_1", "content": "x"}]},
            "messages[1].tool_call_id",
            "does not answer",
        ),
        (
            {"messages": [USER, ASSISTANT_CALLS, {**TOOL_ANSWER, "tool_call_id": "call_9"}]},
            "messages[2].tool_call_id",
            "does not answer",
        ),
        # A tool message must follow its assistant message (only tool messages in between).
        (
            {"messages": [USER, ASSISTANT_CALLS, TOOL_ANSWER, USER, TOOL_ANSWER]},
            "messages[4].tool_call_id",
            "does not answer",
        ),
        ({"messages": [USER, ASSISTANT_CALLS]}, "messages[1].tool_calls", "call_1"),
        ({"messages": [USER, ASSISTANT_CALLS, USER]}, "messages[1].tool_calls", "without a tool message"),
        (
            {
                "messages": [
                    USER,
                    {
                        "role": "assistant",
                        "tool_calls": [{**CALL, "function": {"name": "f", "arguments": {}}}],
                    },
                ]
            },
            "messages[1].tool_calls[0].function.arguments",
            "string",
        ),
        ({"messages": [USER], "tools": {}}, "tools", "array"),
        ({"messages": [USER], "tools": [{"type": "code_interpreter"}]}, "tools[0].type", "must be one of"),
        ({"messages": [USER], "tools": [{"type": "function"}]}, "tools[0].function", "is required"),
        (
            {"messages": [USER], "tools": [{"type": "function", "function": {"name": "bad name"}}]},
            "tools[0].function.name",
            "must match",
        ),
        ({"messages": [USER], "tools": [WEATHER, WEATHER]}, "tools[1].function.name", "duplicate"),
        (
            {"messages": [USER], "tools": [{"type": "agentaus_dataset_search"}]},
            "tools[0].dataset_ids",
            "non-empty",
        ),
        ({"messages": [USER], "tool_choice": "sometimes"}, "tool_choice", "must be"),
        ({"messages": [USER], "tool_choice": "required"}, "tool_choice", "needs at least one"),
        ({"messages": [USER], "tool_choice": {"type": "function"}}, "tool_choice", "must be"),
        (
            {
                "messages": [USER],
                "tools": [WEATHER],
                "tool_choice": {
                    "type": "allowed_tools",
                    "mode": "none",
                    "tools": [{"type": "function", "name": "get_weather"}],
                },
            },
            "tool_choice.mode",
            "auto",
        ),
        (
            {
                "messages": [USER],
                "tools": [WEATHER],
                "tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []},
            },
            "tool_choice.tools",
            "non-empty",
        ),
        (
            {
                "messages": [USER],
                "tools": [WEATHER],
                "tool_choice": {
                    "type": "allowed_tools",
                    "mode": "auto",
                    "tools": [{"type": "function", "name": "send_email"}],
                },
            },
            "tool_choice.tools[0].name",
            "not a function tool",
        ),
        ({"messages": [USER], "stream": "yes"}, "stream", "boolean"),
        ({"messages": [USER], "model": 4}, "model", "string"),
        ([], "body", "JSON object"),
    ],
)
def test_problems(body: Any, field: str, fragment: str) -> None:
    problems = validate_request(body)
    assert field in problems, problems
    assert any(fragment in problem for problem in problems[field]), problems


def test_the_seed_workflows_uncorrected_follow_up_is_rejected() -> None:
    # The seed replays the assistant's (null) content and omits the tool call and its id.
    body = {
        "messages": [USER, {"role": "assistant", "content": None}, {"role": "tool", "content": "sunny"}],
    }
    assert set(validate_request(body)) == {"messages[1]", "messages[2].tool_call_id"}


def test_error_body_shape() -> None:
    assert error_body(400, "The request cannot be fulfilled", {"messages": ["is required"]}) == {
        "status": 400,
        "message": "The request cannot be fulfilled",
        "data": {"messages": ["is required"]},
    }
