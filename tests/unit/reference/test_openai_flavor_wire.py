"""The OpenAI flavour's wire shapes, over real HTTP with httpx (no client library in between)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from arazzo_runner.http.sse import decode_event_stream, parse_event_stream
from arazzo_runner.reference import ReferenceServer
from tests.unit.reference.openai_kit import BOTH, CALENDAR, TEXT_ANSWER, WEATHER, follow_up, user

AUTH = {"Authorization": "Bearer test-key"}
ENVELOPE = {"id", "object", "created", "model", "service_tier", "system_fingerprint"}


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer(flavor="openai", clock=lambda: 1757930000) as running:
        yield running


@pytest.fixture
def client(server: ReferenceServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers=AUTH, timeout=10) as http:
        yield http


def body(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-4o-mini", "messages": user(text), **extra}


def events(response: httpx.Response) -> list[Any]:
    assert response.headers["content-type"].startswith("text/event-stream")
    lines = [line for line in response.text.split("\n") if line]
    assert all(line.startswith("data: ") for line in lines)
    return [line[6:] if line == "data: [DONE]" else json.loads(line[6:]) for line in lines]


def test_json_is_the_default_and_has_openais_shape(client: httpx.Client, server: ReferenceServer) -> None:
    assert server.flavor == "openai" and server.streams_by_default is False
    response = client.post("/chat/completions", json=body("Hello there"))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    answer = response.json()
    assert set(answer) == ENVELOPE | {"choices", "usage"}
    assert answer["object"] == "chat.completion" and answer["model"] == "gpt-4o-mini"
    assert answer["service_tier"] == "default"
    assert answer["choices"] == [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": TEXT_ANSWER.format("Hello there"),
                "refusal": None,
                "annotations": [],
            },
            "logprobs": None,
            "finish_reason": "stop",
        }
    ]
    assert answer["usage"] == {
        "prompt_tokens": 2,
        "completion_tokens": 11,
        "total_tokens": 13,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def test_a_stream_without_include_usage_has_no_usage_at_all(client: httpx.Client) -> None:
    chunks = events(client.post("/chat/completions", json=body("Hello there", stream=True)))
    assert chunks[-1] == "[DONE]"
    chunks = chunks[:-1]
    assert all(set(chunk) == ENVELOPE | {"choices"} for chunk in chunks)
    assert all(len(chunk["choices"]) == 1 for chunk in chunks)  # `chunk.choices[0]` never fails
    assert chunks[0]["choices"][0] == {
        "index": 0,
        "delta": {"role": "assistant", "content": "", "refusal": None},
        "logprobs": None,
        "finish_reason": None,
    }
    words = [chunk["choices"][0]["delta"] for chunk in chunks[1:-1]]
    assert all(set(delta) == {"content"} for delta in words)
    assert "".join(delta["content"] for delta in words) == TEXT_ANSWER.format("Hello there")
    assert chunks[-1]["choices"][0] == {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}
    assert all("text" not in chunk["choices"][0] for chunk in chunks)  # the notes' extra is seed-only
    assert len({chunk["id"] for chunk in chunks}) == 1


def test_include_usage_adds_usage_null_then_a_usage_chunk(client: httpx.Client) -> None:
    request = body("Hello there", stream=True, stream_options={"include_usage": True})
    *chunks, usage_chunk, done = events(client.post("/chat/completions", json=request))
    assert done == "[DONE]"
    assert all(chunk["usage"] is None and len(chunk["choices"]) == 1 for chunk in chunks)
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["prompt_tokens"] == 2 and usage_chunk["usage"]["completion_tokens"] == 11
    plain = client.post("/chat/completions", json=body("Hello there")).json()
    assert usage_chunk["usage"] == plain["usage"] and usage_chunk["id"] == plain["id"]


def test_streamed_tool_call_fragments(client: httpx.Client) -> None:
    request = body(BOTH, stream=True, tools=[WEATHER, CALENDAR])
    chunks = events(client.post("/chat/completions", json=request))[:-1]
    deltas = [chunk["choices"][0]["delta"] for chunk in chunks[:-1]]
    first = deltas[0]
    assert (first["role"], first["content"], first["refusal"]) == ("assistant", None, None)
    heads = [d["tool_calls"][0] for d in deltas if "id" in d["tool_calls"][0]]
    assert [(h["index"], h["type"], h["function"]) for h in heads] == [
        (0, "function", {"name": "get_current_weather", "arguments": ""}),
        (1, "function", {"name": "get_calendar_events", "arguments": ""}),
    ]
    fragments = [d["tool_calls"][0] for d in deltas if "id" not in d["tool_calls"][0]]
    assert all(set(f) == {"index", "function"} and set(f["function"]) == {"arguments"} for f in fragments)
    by_index = ["".join(f["function"]["arguments"] for f in fragments if f["index"] == i) for i in (0, 1)]
    assert [json.loads(a) for a in by_index] == [{"location": "Sydney"}, {"date": "2026-09-16"}]
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


@pytest.mark.parametrize(
    "request_body",
    [
        body(BOTH, tools=[WEATHER, CALENDAR]),
        body("Tell me a story"),
        {"model": "m", "messages": follow_up(result="22°C — sunny ☀"), "tools": [WEATHER]},
    ],
)
def test_the_engines_merge_of_the_stream_equals_the_json_answer(
    client: httpx.Client, request_body: dict[str, Any]
) -> None:
    streamed = client.post(
        "/chat/completions", json={**request_body, "stream": True, "stream_options": {"include_usage": True}}
    )
    pieces = [streamed.content[i : i + 5] for i in range(0, len(streamed.content), 5)]
    merged = decode_event_stream(parse_event_stream(pieces))
    plain = client.post("/chat/completions", json=request_body).json()
    assert merged["stream_complete"] is True and merged["error"] is None
    for key in ("id", "created", "model", "usage", "service_tier", "system_fingerprint"):
        assert merged[key] == plain[key], key
    got, want = merged["choices"][0], plain["choices"][0]
    assert got["finish_reason"] == want["finish_reason"]
    assert got["message"]["content"] == want["message"]["content"]
    assert got["message"]["tool_calls"] == want["message"].get("tool_calls", [])


def test_developer_messages_and_forced_function_choice(client: httpx.Client) -> None:
    request = {
        "model": "m",
        "messages": [{"role": "developer", "content": "Use the tools."}, *user("Sydney")],
        "tools": [WEATHER, CALENDAR],
        "tool_choice": {"type": "function", "function": {"name": "get_calendar_events"}},
    }
    answer = client.post("/chat/completions", json=request).json()
    calls = answer["choices"][0]["message"]["tool_calls"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("get_calendar_events", {"date": "2026-09-16"})
    ]
    assert answer["usage"]["prompt_tokens"] == 4  # the developer message counts like a system message


def test_nulls_are_not_given(client: httpx.Client) -> None:
    request = body("Hello there", stream=None, temperature=None, tool_choice=None, stop=None, n=None)
    response = client.post("/chat/completions", json=request)
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"


def test_stop_and_json_object(client: httpx.Client) -> None:
    cut = client.post("/chat/completions", json=body("Hello there", stop=["scripted", "reference"])).json()
    assert cut["choices"][0]["message"]["content"] == 'You asked: "Hello there". This is the '
    assert cut["choices"][0]["finish_reason"] == "stop"
    as_json = client.post(
        "/chat/completions", json=body("Answer in JSON", response_format={"type": "json_object"})
    )
    content = as_json.json()["choices"][0]["message"]["content"]
    assert json.loads(content) == {"answer": TEXT_ANSWER.format("Answer in JSON")}


def error_of(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    payload = response.json()
    assert set(payload) == {"error"} and set(payload["error"]) == {"message", "type", "param", "code"}
    assert isinstance(payload["error"]["message"], str) and payload["error"]["message"]
    return payload["error"]


@pytest.mark.parametrize(
    ("request_body", "param", "code"),
    [
        ({"messages": user("hi")}, "model", "missing_required_parameter"),
        ({"model": "m"}, "messages", "missing_required_parameter"),
        ({"model": "m", "messages": [{"role": "function", "content": "x"}]}, "messages[0].role",
         "invalid_value"),
        (body("hi", stream_options={"include_usage": True}), "stream_options", "invalid_value"),
        (body("hi", tool_choice="auto"), "tool_choice", "invalid_value"),
        (body("hi", stream="yes"), "stream", "invalid_type"),
        (body("hi", max_tokens=0), "max_tokens", "invalid_value"),
        (body("hi", stop=["a", "b", "c", "d", "e"]), "stop", "invalid_value"),
        (body("hi", response_format={"type": "json_object"}), "messages", "invalid_value"),
        (body("hi", response_format={"type": "json_schema"}), "response_format.json_schema",
         "missing_required_parameter"),
        (body("hi", functions=[{"name": "f"}]), "functions", "unsupported_parameter"),
        (body("hi", logprobs=True), "logprobs", "unsupported_parameter"),
        (body("hi", frobnicate=1), "frobnicate", "unknown_parameter"),
        ({"model": "m", "messages": follow_up()[:2]}, "messages[1].tool_calls", "invalid_value"),
    ],
)  # fmt: skip
def test_400_names_the_parameter(client: httpx.Client, request_body: Any, param: str, code: str) -> None:
    error = error_of(client.post("/chat/completions", json=request_body), 400)
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", param, code)
    assert error["message"].startswith(f"Invalid request: '{param}' ")


def test_400_lists_every_problem(client: httpx.Client) -> None:
    error = error_of(client.post("/chat/completions", json={"temperature": 9}), 400)
    assert error["param"] == "model"
    assert "Also: 'messages' is required; 'temperature' must be a number between 0 and 2." in error["message"]


def test_400_for_invalid_json(client: httpx.Client) -> None:
    response = client.post(
        "/chat/completions", content=b'{"messages": [', headers={"Content-Type": "application/json"}
    )
    error = error_of(response, 400)
    assert (error["param"], error["code"]) == (None, "invalid_json")


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer"}, {"Authorization": "Basic abc"}])
def test_401_without_a_bearer_token(server: ReferenceServer, headers: dict[str, str]) -> None:
    for response in (
        httpx.post(server.url + "/chat/completions", json=body("hi"), headers=headers),
        httpx.get(server.url + "/models", headers=headers),
    ):
        error = error_of(response, 401)
        assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", None, None)
        assert "didn't provide an API key" in error["message"]


def test_404_and_405(server: ReferenceServer) -> None:
    root = server.url.removesuffix("/v1")
    error = error_of(httpx.post(root + "/v1/nothing", json={}, headers=AUTH), 404)
    assert error["message"] == "Invalid URL (POST /v1/nothing)" and error["param"] is None
    assert (
        error_of(httpx.get(root + "/v1/nothing", headers=AUTH), 404)["message"]
        == "Invalid URL (GET /v1/nothing)"
    )
    assert (
        error_of(httpx.get(server.url + "/chat/completions", headers=AUTH), 405)["type"]
        == "invalid_request_error"
    )
    missing = error_of(httpx.get(server.url + "/models/gpt-9", headers=AUTH), 404)
    assert (missing["param"], missing["code"]) == ("model", "model_not_found")


def test_the_model_endpoints(server: ReferenceServer) -> None:
    root = server.url.removesuffix("/v1")
    model = {"id": "agentaus", "object": "model", "created": 1757930000, "owned_by": "arazzo-reference"}
    for url in (server.url + "/models", root + "/models", server.url + "/models/"):
        assert httpx.get(url, headers=AUTH).json() == {"object": "list", "data": [model]}
    assert httpx.get(server.url + "/models/agentaus", headers=AUTH).json() == model


def test_500_and_the_in_stream_error(client: httpx.Client) -> None:
    error = error_of(client.post("/chat/completions", json=body("trigger-stream-error")), 500)
    assert error == {
        "message": "Simulated model failure (trigger-stream-error)",
        "type": "server_error",
        "param": None,
        "code": None,
    }
    streamed = events(client.post("/chat/completions", json=body("trigger-stream-error", stream=True)))
    assert streamed[1] == {"error": error} and streamed[2] == "[DONE]" and len(streamed) == 3


def test_413_for_a_body_over_the_limit(server: ReferenceServer) -> None:
    host, port = server.url.removeprefix("http://").removesuffix("/v1").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 20000000\r\n\r\n")
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            data = sock.recv(4096)
            if not data:
                break
            reply += data
    head, _, payload = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413")
    assert json.loads(payload)["error"]["message"] == "Request body too large"


def test_stream_default_knob_and_bad_flavour() -> None:
    with ReferenceServer(flavor="openai", stream_default=True) as server:
        response = httpx.post(server.url + "/chat/completions", json=body("hi"), headers=AUTH)
        assert response.headers["content-type"].startswith("text/event-stream")
    with pytest.raises(ValueError, match="unknown flavour 'gemini'"):
        ReferenceServer(flavor="gemini")


def test_json_nested_too_deeply_is_a_400_in_both_flavours(server: ReferenceServer) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000  # (openers alone: "its brackets do not balance")
    error = error_of(httpx.post(server.url + "/chat/completions", content=deep, headers=AUTH), 400)
    assert error["message"] == "The request body is not valid JSON: nested too deeply"
    with ReferenceServer() as seed:
        response = httpx.post(seed.url + "/chat/completions", content=deep, headers=AUTH)
    assert response.status_code == 400 and response.json()["data"] == {
        "body": ["is not valid JSON: nested too deeply"]
    }
