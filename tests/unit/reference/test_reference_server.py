"""Real HTTP round trips against a started ReferenceServer."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from arazzo_runner.http.sse import decode_event_stream, parse_event_stream
from arazzo_runner.reference import ReferenceServer

AUTH = {"Authorization": "Bearer test-key"}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
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
BOTH = "What's the weather in Sydney, and what's on my calendar today?"


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer(clock=lambda: 1757930000) as running:
        yield running


@pytest.fixture
def client(server: ReferenceServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers=AUTH, timeout=10) as http:
        yield http


def request(text: str, tools: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "agentaus", "messages": [{"role": "user", "content": text}]}
    return {**body, **({"tools": tools} if tools else {}), **extra}


def sse_data(response: httpx.Response) -> list[Any]:
    lines = [line for line in response.text.split("\n") if line]
    assert all(line.startswith("data: ") for line in lines)
    return [line[6:] if line == "data: [DONE]" else json.loads(line[6:]) for line in lines]


def test_url_includes_v1(server: ReferenceServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert server.url.endswith("/v1")


def test_non_streamed_tool_calls(client: httpx.Client) -> None:
    response = client.post("/chat/completions", json=request(BOTH, [WEATHER, CALENDAR], stream=False))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["created"] == 1757930000
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    calls = choice["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_current_weather", "get_calendar_events"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"location": "Sydney"}
    usage = body["usage"]
    assert set(usage) == {"input_tokens", "output_tokens", "total_tokens"}
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_streaming_is_the_default(client: httpx.Client) -> None:
    response = client.post("/chat/completions", json=request("Hello there, how are you?"))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_data(response)
    assert events[-1] == "[DONE]"
    usage_chunk, finish_chunk, *_ = reversed(events[:-1])
    assert usage_chunk["choices"] == [] and usage_chunk["usage"]["output_tokens"] > 0
    assert finish_chunk["choices"][0]["finish_reason"] == "stop"
    content_chunks = events[:-3]
    assert content_chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert all("role" not in c["choices"][0]["delta"] for c in content_chunks[1:])
    words = "".join(c["choices"][0]["delta"]["content"] for c in content_chunks)
    assert len(content_chunks) == len(words.split())
    assert all(c["object"] == "chat.completion.chunk" for c in events[:-1])


def test_streamed_tool_call_fragments(client: httpx.Client) -> None:
    events = sse_data(client.post("/chat/completions", json=request("Weather in Sydney?", [WEATHER])))
    fragments = [c["choices"][0]["delta"]["tool_calls"][0] for c in events[:-3]]
    assert fragments[0]["id"].startswith("call_")
    assert fragments[0]["function"]["name"] == "get_current_weather"
    argument_parts = [f["function"]["arguments"] for f in fragments[1:]]
    assert len(argument_parts) >= 2
    assert json.loads("".join(argument_parts)) == {"location": "Sydney"}
    assert all("id" not in f for f in fragments[1:])


@pytest.mark.parametrize(
    "body",
    [
        request(BOTH, [WEATHER, CALENDAR]),
        request("Tell me a story"),
        request("Find it", [{"type": "agentaus_dataset_search", "dataset_ids": ["ds-1"]}]),
        {
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
                {"role": "tool", "tool_call_id": "c1", "content": "22°C — sunny ☀"},
            ],
        },
    ],
)
def test_the_merged_stream_equals_the_json_answer(client: httpx.Client, body: dict[str, Any]) -> None:
    streamed = client.post("/chat/completions", json={**body, "stream": True})
    # Re-chunk the stream into 5-byte pieces: lines and UTF-8 characters get split.
    pieces = [streamed.content[i : i + 5] for i in range(0, len(streamed.content), 5)]
    merged = decode_event_stream(parse_event_stream(pieces))
    plain = client.post("/chat/completions", json={**body, "stream": False}).json()
    assert merged.pop("stream_complete") is True
    assert merged.pop("error") is None
    assert merged == plain


def test_tool_result_answer_over_http(client: httpx.Client) -> None:
    body = {
        "stream": False,
        "messages": [
            {"role": "user", "content": "Weather in Sydney?"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_current_weather", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "22°C"},
        ],
    }
    answer = client.post("/chat/completions", json=body).json()["choices"][0]
    assert answer["message"]["content"] == "Based on the tool result: 22°C"
    assert answer["finish_reason"] == "stop"


def test_in_stream_error_event(client: httpx.Client) -> None:
    events = sse_data(client.post("/chat/completions", json=request("please trigger-stream-error")))
    assert events[-1] == "[DONE]"
    assert events[-2] == {"error": {"message": "Simulated model failure (trigger-stream-error)"}}
    merged = decode_event_stream(
        parse_event_stream(
            [client.post("/chat/completions", json=request("please trigger-stream-error")).content]
        )
    )
    assert merged["error"]["message"].startswith("Simulated")
    assert merged["choices"][0]["finish_reason"] is None


def test_error_trigger_without_streaming_is_a_500(client: httpx.Client) -> None:
    response = client.post("/chat/completions", json=request("trigger-stream-error", stream=False))
    assert response.status_code == 500
    assert set(response.json()) == {"status", "message", "data"}


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer"}, {"Authorization": "Basic abc"}])
def test_401_without_a_bearer_token(server: ReferenceServer, headers: dict[str, str]) -> None:
    response = httpx.post(server.url + "/chat/completions", json=request("hi"), headers=headers)
    assert response.status_code == 401
    body = response.json()
    assert body["status"] == 401 and isinstance(body["message"], str) and isinstance(body["data"], dict)


def test_400_shape(client: httpx.Client) -> None:
    response = client.post("/chat/completions", json={"model": "agentaus"})
    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "message": "The request cannot be fulfilled",
        "data": {"messages": ["is required"]},
    }


def test_400_for_invalid_json(client: httpx.Client) -> None:
    response = client.post(
        "/chat/completions", content=b'{"messages": [', headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert "body" in response.json()["data"]


def test_path_without_v1_and_unknown_paths(server: ReferenceServer) -> None:
    root = server.url.removesuffix("/v1")
    assert (
        httpx.post(root + "/chat/completions", json=request("hi", stream=False), headers=AUTH).status_code
        == 200
    )
    assert httpx.post(root + "/v1/nothing", json={}, headers=AUTH).status_code == 404
    assert httpx.get(server.url + "/chat/completions").status_code == 405


def test_chunked_request_body(client: httpx.Client) -> None:
    payload = json.dumps(request("hi", stream=False)).encode()
    response = client.post("/chat/completions", content=iter([payload[:10], payload[10:]]))
    assert response.status_code == 200


def test_keep_alive_serves_several_requests_on_one_connection(client: httpx.Client) -> None:
    for _ in range(3):
        assert client.post("/chat/completions", json=request("hi")).status_code == 200
        assert client.post("/chat/completions", json=request("hi", stream=False)).status_code == 200


def test_start_stop_and_port_reuse() -> None:
    server = ReferenceServer().start()
    url = server.url
    assert (
        httpx.post(url + "/chat/completions", json=request("hi", stream=False), headers=AUTH).status_code
        == 200
    )
    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.post(url + "/chat/completions", json=request("hi"), headers=AUTH)


def test_date_option_reaches_the_arguments() -> None:
    with ReferenceServer(date="2031-12-24") as server:
        body = request("My calendar?", [CALENDAR], stream=False)
        answer = httpx.post(server.url + "/chat/completions", json=body, headers=AUTH).json()
    arguments = answer["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments) == {"date": "2031-12-24"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve_one_request(*flags: str) -> tuple[str, str]:
    """Start the command line server, make one request, stop it: its (stdout, stderr)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "arazzo_runner.reference", "--port", str(port), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert f"http://127.0.0.1:{port}/v1" in line
        body = request("hi", stream=False)
        response = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body, headers=AUTH)
        assert response.status_code == 200
    finally:
        process.terminate()
        out, err = process.communicate(timeout=10)
    return line + out, err


def test_command_line_runs_in_the_foreground_and_logs_nothing_by_default() -> None:
    # started with `&` in the terminal a workflow runs in: its log lines would mix with the run's output
    out, err = _serve_one_request()
    assert "POST" not in out + err


def test_command_line_logs_requests_when_asked() -> None:
    out, err = _serve_one_request("--verbose")
    assert '"POST /v1/chat/completions HTTP/1.1" 200' in err
    out, err = _serve_one_request("--quiet")  # the default, still accepted
    assert "POST" not in out + err
