"""Server-sent events through the engine: streamed chat completions merge into one completion object at
`$response.body`; other event streams become a list of events."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import ROOT, only_workflow, op_step, run_json, step, workflow

CHAT_OPENAPI = ROOT / "openapi" / "chatgpt-chat-completions-api-openapi.yml"
CHAT_SOURCE = [{"name": "chat", "url": str(CHAT_OPENAPI), "type": "openapi"}]
MESSAGE = "What's the weather in Sydney today?"
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "The weather at a place.",
        "parameters": {
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
        },
    },
}
OUTPUTS = {
    "object": "$response.body#/object",
    "id": "$response.body#/id",
    "role": "$response.body#/choices/0/message/role",
    "content": "$response.body#/choices/0/message/content",
    "toolCallId": "$response.body#/choices/0/message/tool_calls/0/id",
    "toolName": "$response.body#/choices/0/message/tool_calls/0/function/name",
    "arguments": "$response.body#/choices/0/message/tool_calls/0/function/arguments",
    "finishReason": "$response.body#/choices/0/finish_reason",
    "usage": "$response.body#/usage",
    "contentType": "$response.header.content-type",
}


@pytest.fixture(params=["reference", "independent"])
def chat_server(request, reference_server, compat_server):
    return request.param, reference_server if request.param == "reference" else compat_server


def _chat_step(step_id: str, payload: dict, **fields: Any) -> dict:
    auth = {"name": "Authorization", "in": "header", "value": "Bearer test-key"}
    return op_step(
        step_id, "createChatCompletion", parameters=[auth], requestBody={"payload": payload}, **fields
    )


def _run_chat(capsys, write, chat_server, *steps: dict):
    path = write(arazzo_doc(workflow("chat", *steps), sources=CHAT_SOURCE), openapi=None)
    return run_json(capsys, path, server=chat_server[1], source="chat")


def test_a_streamed_tool_call_is_merged_like_the_non_streamed_answer(capsys, write, chat_server):
    kind, _ = chat_server
    request = {"model": "m-1", "messages": [{"role": "user", "content": MESSAGE}], "tools": [WEATHER_TOOL]}
    streamed = _chat_step("streamed", request, outputs=OUTPUTS)  # `stream` defaults to true
    plain = _chat_step("plain", {**request, "stream": False}, outputs=OUTPUTS)
    result = _run_chat(capsys, write, chat_server, streamed, plain)
    assert result.code == 0, result.out
    got, expected = step(result, 0)["outputs"], step(result, 1)["outputs"]
    assert got["contentType"].startswith("text/event-stream")
    assert expected["contentType"].startswith("application/json")
    assert got["object"] == expected["object"] == "chat.completion"
    assert got["role"] == "assistant"
    assert got["content"] is None
    assert got["toolName"] == "get_current_weather"
    assert got["arguments"] == expected["arguments"] == json.dumps({"location": "Sydney"})
    assert got["finishReason"] == expected["finishReason"] == "tool_calls"
    assert got["usage"] == expected["usage"]
    assert {"input_tokens", "output_tokens"} <= set(got["usage"])
    assert all(isinstance(v, int) and v > 0 for v in got["usage"].values())
    if kind == "reference":
        assert got["id"] == expected["id"]
        assert got["id"].startswith("chatcmpl-")
        assert got["toolCallId"] == expected["toolCallId"]
        assert got["toolCallId"].startswith("call_")
    else:  # a counter per request: resp_<n>, fc_<n>_<index>
        number = re.fullmatch(r"resp_(\d+)", got["id"]).group(1)
        assert got["toolCallId"] == f"fc_{number}_0"
        assert expected["id"] == f"resp_{int(number) + 1}"


def test_a_streamed_text_answer_joins_its_fragments(capsys, write, chat_server):
    kind, _ = chat_server
    request = {
        "messages": [{"role": "user", "content": MESSAGE}],
        "tools": [WEATHER_TOOL],
        "tool_choice": "none",
    }
    outputs = {
        **OUTPUTS,
        "streamComplete": "$response.body#/stream_complete",
        "error": "$response.body#/error",
    }
    result = _run_chat(capsys, write, chat_server, _chat_step("text", request, outputs=outputs))
    assert result.code == 0, result.out
    got = step(result)["outputs"]
    expected = {
        "reference": f'You asked: "{MESSAGE}". This is the reference server\'s scripted answer.',
        "independent": f"Echo: {MESSAGE}",
    }[kind]
    assert got["content"] == expected
    assert got["finishReason"] == "stop"
    assert got["toolCallId"] is None
    assert got["streamComplete"] is True
    assert got["error"] is None


def test_an_in_stream_error_event_fails_the_step(capsys, write, chat_server):
    kind, _ = chat_server
    request = {"messages": [{"role": "user", "content": "please trigger-stream-error now"}]}
    result = _run_chat(capsys, write, chat_server, _chat_step("boom", request))
    assert result.code == 1
    got = step(result)
    assert got["statusCode"] == 200
    message = {
        "reference": "Simulated model failure (trigger-stream-error)",
        "independent": "the compat server failed on purpose",
    }[kind]
    assert got["error"] == f"HTTP 200: the event stream reported an error: {message}"


def test_a_chat_stream_split_at_awkward_byte_boundaries(capsys, write, server):
    chunks = [
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant"}}],
        },
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_9",
                                "type": "function",
                                "function": {"name": "f", "arguments": ""},
                            }
                        ]
                    },
                }
            ],
        },
        *[
            {
                "id": "c1",
                "object": "chat.completion.chunk",
                "choices": [
                    {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": part}}]}}
                ],
            }
            for part in ['{"city"', ': "Zürich', '"}']
        ],
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        },
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": {"input_tokens": 3, "output_tokens": 4},
        },
    ]
    stream = (
        "".join(f"data: {json.dumps(c, ensure_ascii=False)}\r\n\r\n" for c in chunks) + "data: [DONE]\r\n\r\n"
    )
    data = stream.encode()

    @server.route("GET", "/pets")
    def events(_):
        def body(write):
            for start in range(0, len(data), 5):  # splits CRLF pairs and the UTF-8 bytes of "ü"
                write(data[start : start + 5])

        return 200, body, {"Content-Type": "text/event-stream; charset=utf-8"}

    listing = op_step("list", "listPets", outputs={"body": "$response.body"})
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 0, result.out
    assert step(result)["outputs"]["body"] == {
        "id": "c1",
        "object": "chat.completion",
        "created": None,
        "model": None,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "tool_calls": [
                        {
                            "id": "call_9",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"city": "Zürich"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
                "logprobs": None,
            }
        ],
        "usage": {"input_tokens": 3, "output_tokens": 4},
        "error": None,
        "stream_complete": True,
    }


def test_a_non_chat_event_stream_becomes_a_list_of_events(capsys, write, server):
    stream = (
        b": a comment\n\n"
        b"event: ping\ndata: 1\n\n"
        b'id: 7\ndata: {"a": [1, 2]}\n\n'
        b"data: line one\ndata: line two\n\n"
        b"event: bye\ndata: not json {\n\n"
        b"data: unterminated"
    )

    @server.route("GET", "/pets")
    def events(_):
        return 200, lambda write: write(stream), {"Content-Type": "text/event-stream"}

    listing = op_step(
        "list",
        "listPets",
        successCriteria=[
            {"context": "$response.body", "condition": "$[?@.event == 'bye']", "type": "jsonpath"}
        ],
        outputs={
            "events": "$response.body",
            "second": "$response.body#/1/data/a/1",
            "count": "$response.body#/3/id",
        },
    )
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 0, result.out
    assert step(result)["outputs"] == {
        "events": [
            {"event": "ping", "data": 1, "id": None},
            {"event": "message", "data": {"a": [1, 2]}, "id": "7"},
            {"event": "message", "data": "line one\nline two", "id": "7"},
            {"event": "bye", "data": "not json {", "id": "7"},
        ],
        "second": 2,
        "count": "7",
    }
    assert only_workflow(result)["status"] == "passed"


def test_a_chat_stream_with_a_data_line_that_is_not_json_fails_the_step_with_its_place(capsys, write, server):
    """The arguments chunk of a tool call is cut: skipping it would pass `{"city"` on as the model's
    arguments. The step fails with the stream's fault, whatever its criteria say; a named event whose
    data is text (a keep-alive) is no chunk and is ignored."""
    head = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant"}}]}
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"city"'}}
    first = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
    stream = (
        f"data: {json.dumps(head)}\n\nevent: ping\ndata: keep-alive\n\ndata: {json.dumps(first)}\n\n"
        'data: {"object": "chat.completion.chunk", "choices": [{"index": 0, '
        '"delta": {"tool_calls": [{"ind\n\n'
        "data: [DONE]\n\n"
    )

    @server.route("GET", "/pets")
    def events(_):
        return 200, lambda write: write(stream.encode()), {"Content-Type": "text/event-stream"}

    listing = op_step(
        "list",
        "listPets",
        successCriteria=[{"condition": "$statusCode == 200"}],
        outputs={"arguments": "$response.body#/choices/0/message/tool_calls/0/function/arguments"},
    )
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 1
    failed = step(result)
    assert failed["status"] == "failed"
    assert failed["error"] == (
        "HTTP 200: event 4 of the chat-completion stream (line 8) is not JSON: "
        """'{"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_cal...'"""
        ": reading stopped, the body was not decoded"
    )
