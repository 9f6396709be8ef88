"""Both test servers (the bundled reference server and the independent one) against the OpenAPI description.

Every JSON answer and every streamed JSON event must match the component schemas of
`openapi/chatgpt-chat-completions-api-openapi.yml`, so the description, the reference server and the
second server cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import yaml

from arazzo_runner.http.sse import decode_event_stream, parse_event_stream
from arazzo_runner.reference import ReferenceServer
from tests.servers.openai_compat import OpenAICompatServer
from tests.untested import importorskip_untested

ROOT = Path(__file__).resolve().parents[3]
SPEC_PATH = ROOT / "openapi" / "chatgpt-chat-completions-api-openapi.yml"
AUTH = {"Authorization": "Bearer k"}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
        },
    },
}
CALENDAR = {
    "type": "function",
    "function": {
        "name": "get_calendar_events",
        "parameters": {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]},
    },
}
EMAIL = {"type": "function", "function": {"name": "send_email", "parameters": {}}}
BOTH = "What's the weather in Sydney, and what's on my calendar today?"


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))


def conforms(spec: dict[str, Any], schema_name: str, instance: Any) -> None:
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": spec["components"]}
    jsonschema.Draft202012Validator(schema).validate(instance)


@pytest.fixture(scope="module", params=["reference", "compat"])
def base_url(request: pytest.FixtureRequest) -> Iterator[str]:
    server = ReferenceServer() if request.param == "reference" else OpenAICompatServer()
    with server:
        yield server.url


def test_the_description_is_openapi_3_1_with_the_operation(spec: dict[str, Any]) -> None:
    assert spec["openapi"].startswith("3.1")
    operation = spec["paths"]["/chat/completions"]["post"]
    assert operation["operationId"] == "createChatCompletion"
    assert spec["security"] == [{"bearerAuth": []}]
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {
        **spec["components"]["securitySchemes"]["bearerAuth"],
        "type": "http",
        "scheme": "bearer",
    }
    assert set(operation["responses"]["200"]["content"]) == {"application/json", "text/event-stream"}
    assert spec["servers"][1]["variables"]["baseUrl"]["default"] == "http://127.0.0.1:8765/v1"
    request_schema = spec["components"]["schemas"]["ChatCompletionRequest"]
    assert request_schema["properties"]["stream"]["default"] is True


def test_the_description_passes_openapi_spec_validator(spec: dict[str, Any]) -> None:
    validator = importorskip_untested(
        "openapi_spec_validator", "the reference server's description is valid OpenAPI"
    )
    validator.validate(spec)


def test_the_request_examples_match_the_request_schema(spec: dict[str, Any]) -> None:
    media = spec["paths"]["/chat/completions"]["post"]["requestBody"]["content"]["application/json"]
    for example in media["examples"].values():
        conforms(spec, "ChatCompletionRequest", example["value"])


SCENARIOS = {
    "text": {"messages": [{"role": "user", "content": "Hello"}]},
    "auto-parallel": {
        "messages": [{"role": "user", "content": BOTH}],
        "tools": [WEATHER, CALENDAR],
        "tool_choice": "auto",
    },
    "required": {
        "messages": [{"role": "user", "content": "Sydney"}],
        "tools": [WEATHER],
        "tool_choice": "required",
    },
    "none": {
        "messages": [{"role": "user", "content": "Sydney weather in general?"}],
        "tools": [WEATHER],
        "tool_choice": "none",
    },
    "allowed-tools": {
        "messages": [{"role": "user", "content": BOTH}],
        "tools": [WEATHER, CALENDAR, EMAIL],
        "tool_choice": {
            "type": "allowed_tools",
            "mode": "required",
            "tools": [
                {"type": "function", "name": "get_current_weather"},
                {"type": "function", "name": "get_calendar_events"},
            ],
        },
    },
    "server-side": {
        "messages": [{"role": "user", "content": "Summarise the docs"}],
        "tools": [
            {"type": "agentaus_web_fetch"},
            {"type": "agentaus_dataset_search", "dataset_ids": ["ds-1"]},
        ],
    },
    "tool-result": {
        "messages": [
            {"role": "user", "content": "Weather in Sydney?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_current_weather", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "22°C and sunny"},
        ],
    },
}
EXPECTED_CALLS = {
    "text": [],
    "auto-parallel": ["get_current_weather", "get_calendar_events"],
    "required": ["get_current_weather"],
    "none": [],
    "allowed-tools": ["get_current_weather", "get_calendar_events"],
    "server-side": [],
    "tool-result": [],
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_json_answers_conform_and_decide_alike(spec: dict[str, Any], base_url: str, scenario: str) -> None:
    body = {**SCENARIOS[scenario], "stream": False}
    response = httpx.post(base_url + "/chat/completions", json=body, headers=AUTH)
    assert response.status_code == 200
    answer = response.json()
    conforms(spec, "ChatCompletion", answer)
    conforms(spec, "ChatCompletionRequest", body)
    message = answer["choices"][0]["message"]
    assert [c["function"]["name"] for c in message["tool_calls"]] == EXPECTED_CALLS[scenario]
    assert answer["choices"][0]["finish_reason"] == ("tool_calls" if EXPECTED_CALLS[scenario] else "stop")
    if scenario == "tool-result":
        assert "22°C and sunny" in message["content"]


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_streamed_events_conform_and_merge_like_the_json(
    spec: dict[str, Any], base_url: str, scenario: str
) -> None:
    response = httpx.post(base_url + "/chat/completions", json=SCENARIOS[scenario], headers=AUTH)
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_event_stream([response.content])
    assert events[-1].data == "[DONE]"
    for event in events[:-1]:
        conforms(spec, "ChatCompletionStreamEvent", json.loads(event.data))
    merged = decode_event_stream(events)
    conforms(
        spec, "ChatCompletion", {k: v for k, v in merged.items() if k not in ("error", "stream_complete")}
    )
    calls = merged["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == EXPECTED_CALLS[scenario]
    assert all(c["id"] and json.loads(c["function"]["arguments"]) is not None for c in calls)
    assert merged["usage"]["input_tokens"] >= 1


@pytest.mark.parametrize(
    ("body", "headers", "status"),
    [
        ({"messages": []}, AUTH, 400),
        (
            {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None}]},
            AUTH,
            400,
        ),
        ({"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}]}, AUTH, 400),
        ({"messages": [{"role": "user", "content": "hi"}], "tool_choice": "sometimes"}, AUTH, 400),
        ({"messages": [{"role": "user", "content": "hi"}]}, {}, 401),
    ],
)
def test_errors_conform(
    spec: dict[str, Any], base_url: str, body: Any, headers: dict[str, str], status: int
) -> None:
    response = httpx.post(base_url + "/chat/completions", json=body, headers=headers)
    assert response.status_code == status
    conforms(spec, "Error", response.json())
    assert response.json()["status"] == status


def test_the_in_stream_error_event_conforms(spec: dict[str, Any], base_url: str) -> None:
    body = {"messages": [{"role": "user", "content": "trigger-stream-error"}]}
    events = parse_event_stream([httpx.post(base_url + "/chat/completions", json=body, headers=AUTH).content])
    error = json.loads(events[-2].data)
    conforms(spec, "StreamErrorEvent", error)
    assert decode_event_stream(events)["error"] == error["error"]
