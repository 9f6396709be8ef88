"""The Responses and Messages wires (`agents/apis/responses.py`, `anthropic.py`) on their own: requests
rendered from one conversation, answers and streams folded, the edge cases a real server rarely shows
(the end-to-end tests run them over sockets: tests/e2e/test_agent_apis.py and its neighbours)."""

from __future__ import annotations

import json

import pytest

from arazzo_runner.agents.apis import wire
from arazzo_runner.agents.apis.base import (
    Completion,
    Conversation,
    ModelError,
    StreamError,
    ToolCallRequest,
    ToolResult,
)

TOOLS = [
    {
        "type": "function",
        "function": {"name": "pet", "description": "A pet.", "parameters": {"type": "object"}},
    }
]


def conversation() -> Conversation:
    talk = Conversation("Be terse.")
    talk.user("Show pet 1")
    call = ToolCallRequest("call_1", "pet", '{"petId": 1}')
    talk.assistant(Completion("Looking.", None, [call], "tool_calls", None))
    talk.tool_results([ToolResult("call_1", "pet", '{"status": "failed"}', ok=False)])
    return talk


def feed(folder, events) -> list[str]:
    pieces = []
    for position, (name, data) in enumerate(events, 1):
        text = data if isinstance(data, str) else json.dumps({"type": name, **data})
        pieces += folder.feed(name, text, position)
    return pieces


def test_the_responses_request() -> None:
    api = wire("responses", max_tokens=64)
    body = api.body("m", conversation(), api.tools(TOOLS), stream=True)
    assert body["instructions"] == "Be terse." and body["store"] is False and body["max_output_tokens"] == 64
    assert body["tools"] == [
        {
            "type": "function",
            "name": "pet",
            "description": "A pet.",
            "parameters": {"type": "object"},
            "strict": False,
        }
    ]
    assert body["input"] == [
        {"type": "message", "role": "user", "content": "Show pet 1"},
        {"type": "message", "role": "assistant", "content": "Looking."},
        {"type": "function_call", "call_id": "call_1", "name": "pet", "arguments": '{"petId": 1}'},
        {"type": "function_call_output", "call_id": "call_1", "output": '{"status": "failed"}'},
    ]


def test_the_messages_request() -> None:
    api = wire("anthropic")
    body = api.body("m", conversation(), api.tools(TOOLS), stream=False)
    assert body["max_tokens"] == 4096 and body["system"] == "Be terse." and body["stream"] is False
    assert body["tools"] == [{"name": "pet", "description": "A pet.", "input_schema": {"type": "object"}}]
    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "call_1", "name": "pet", "input": {"petId": 1}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": '{"status": "failed"}',
                    "is_error": True,
                }
            ],
        },
    ]
    assert ("x-api-key", "k") in api.headers("k", True) and (
        "anthropic-version",
        "2023-06-01",
    ) in api.headers("k", True)


def test_arguments_that_are_no_object_are_sent_as_an_empty_input() -> None:
    talk = Conversation()
    talk.user("hi")
    talk.assistant(Completion(None, None, [ToolCallRequest("t1", "pet", '{"petId": 1')], "tool_use", None))
    talk.tool_results([ToolResult("t1", "pet", "the arguments are not valid JSON", ok=False)])
    (block,) = wire("anthropic").rendered(talk)[1]["content"]
    assert block["input"] == {}


def test_a_responses_stream_builds_its_items_when_the_end_event_lists_none() -> None:
    folder = wire("responses").folder()
    call = {"type": "function_call", "call_id": "c1", "name": "pet", "arguments": ""}
    events = [
        ("response.output_item.added", {"output_index": 0, "item": call}),
        ("response.function_call_arguments.delta", {"output_index": 0, "delta": '{"petId"'}),
        ("response.function_call_arguments.delta", {"output_index": 0, "delta": ": 1}"}),
        ("response.completed", {"response": {"status": "completed", "output": []}}),
    ]
    assert feed(folder, events) == []
    completion = folder.finish()
    assert completion.tool_calls == [ToolCallRequest("c1", "pet", '{"petId": 1}')]
    assert completion.stop == "tool_calls" and completion.finish_reason == "completed"


def test_the_done_event_wins_over_the_deltas_and_an_unannounced_call_breaks_the_stream() -> None:
    folder = wire("responses").folder()
    call = {"type": "function_call", "call_id": "c1", "name": "pet", "arguments": ""}
    feed(folder, [
        ("response.output_item.added", {"output_index": 0, "item": call}),
        ("response.function_call_arguments.delta", {"output_index": 0, "delta": '{"pe'}),
        ("response.function_call_arguments.done", {"output_index": 0, "arguments": '{"petId": 2}'}),
        ("response.completed", {"response": {"status": "completed", "output": []}}),
    ])  # fmt: skip
    assert folder.finish().tool_calls[0].arguments == '{"petId": 2}'
    with pytest.raises(StreamError, match="names no function_call item"):
        feed(
            wire("responses").folder(),
            [("response.function_call_arguments.delta", {"output_index": 3, "delta": "x"})],
        )


def test_an_incomplete_response_runs_no_call() -> None:
    body = {
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [{"type": "function_call", "call_id": "c1", "name": "pet", "arguments": '{"pe'}],
    }
    completion = wire("responses").completion(body)
    assert completion.tool_calls == [] and completion.stop == "length"
    assert completion.finish_reason == "max_output_tokens"
    with pytest.raises(ModelError, match="not finished"):
        wire("responses").completion({"status": "in_progress", "output": []})


def test_a_messages_stream_without_input_deltas_takes_the_start_input() -> None:
    folder = wire("anthropic").folder()
    use = {"type": "tool_use", "id": "t1", "name": "pet", "input": {}}
    pieces = feed(folder, [
        ("message_start", {"message": {"usage": {"input_tokens": 7, "output_tokens": 1}}}),
        ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "Let me look."}}),
        ("content_block_stop", {"index": 0}),
        ("content_block_start", {"index": 1, "content_block": use}),
        ("content_block_stop", {"index": 1}),
        ("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        ("some_future_event", {}),
        ("message_stop", {}),
    ])  # fmt: skip
    assert pieces == ["Let me look."]
    completion = folder.finish()
    assert completion.content == "Let me look." and completion.tool_calls == [
        ToolCallRequest("t1", "pet", "{}")
    ]
    assert (completion.usage.input_tokens, completion.usage.output_tokens, completion.usage.total_tokens) == (
        7,
        9,
        16,
    )


@pytest.mark.parametrize(
    ("events", "words"),
    [
        ([("content_block_start", {"index": 0, "content_block": {"type": "text"}})], "out of place"),
        (
            [("message_start", {"message": {}}), ("content_block_delta", {"index": 4, "delta": {}})],
            "never started",
        ),
        ([("message_start", {"message": {}}), ("message_stop", {}), ("ping", {})], "came after message_stop"),
        (
            [("message_start", {"message": {}}), ("content_block_delta", "{not json")],
            "event 2 of the stream is not JSON",
        ),
        ([("message_start", {"message": {}}), ("x", "[1, 2]")], "not an event object"),
    ],
)
def test_a_broken_messages_stream(events, words) -> None:
    with pytest.raises(StreamError, match=words):
        feed(wire("anthropic").folder(), events)


def test_a_messages_answer_cut_at_max_tokens_runs_no_call() -> None:
    body = {
        "type": "message",
        "content": [
            {"type": "text", "text": "Partial"},
            {"type": "tool_use", "id": "t1", "name": "pet", "input": {}},
        ],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 3, "output_tokens": 5},
    }
    completion = wire("anthropic").completion(body)
    assert completion.tool_calls == [] and completion.stop == "length" and completion.content == "Partial"
    assert wire("anthropic").completion({**body, "stop_reason": "refusal"}).stop == "content_filter"
    assert wire("anthropic").completion({**body, "stop_reason": "stop_sequence"}).stop == "stop"


def test_unknown_api_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown model API 'gemini'"):
        wire("gemini")
