"""The engine-side event-stream parser and the decoding of streams into `$response.body`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arazzo_runner.http.sse import (
    ChatCompletionMerger,
    Event,
    EventStreamError,
    EventStreamParser,
    decode_event_stream,
    is_chat_chunk,
    parse_event_stream,
)


def split_every(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def events_of(text: str | bytes, size: int | None = None) -> list[Event]:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_event_stream(split_every(data, size) if size else [data])


# --- parsing -------------------------------------------------------------------------------------


def test_a_simple_event() -> None:
    assert events_of("data: hello\n\n") == [Event("hello")]


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_any_chunk_boundary_gives_the_same_events(size: int) -> None:
    stream = "event: a\r\ndata: héllo ☀ 😀\r\nid: 7\r\n\r\ndata: x\rdata: y\r\rdata: z\n\n"
    expected = [Event("héllo ☀ 😀", "a", "7"), Event("x\ny", "message", "7"), Event("z", "message", "7")]
    assert events_of(stream) == expected
    assert events_of(stream, size) == expected


def test_multibyte_character_split_across_feeds() -> None:
    parser = EventStreamParser()
    encoded = "data: €\n\n".encode()
    assert parser.feed(encoded[:7]) == []  # inside the 3-byte euro sign
    assert parser.feed(encoded[7:]) == [Event("€")]


def test_crlf_split_between_feeds_is_one_line_end() -> None:
    parser = EventStreamParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"\n\r") == [Event("a")]
    assert parser.feed(b"\ndata: b\r\n\r\n") == [Event("b")]


def test_cr_only_line_endings() -> None:
    assert events_of("data: a\r\rdata: b\r\r") == [Event("a"), Event("b")]


def test_multi_line_data_is_joined_with_newlines() -> None:
    assert events_of("data: one\ndata:two\ndata\ndata:  four\n\n") == [Event("one\ntwo\n\n four")]


def test_comments_and_unknown_fields_are_ignored() -> None:
    assert events_of(": ping\nfoo: bar\ndata: x\n: more\n\n:only a comment\n\n") == [Event("x")]


def test_an_event_without_data_is_not_dispatched() -> None:
    assert events_of("event: nothing\n\nid: 3\n\ndata: later\n\n") == [Event("later", "message", "3")]


def test_event_type_resets_but_id_persists() -> None:
    events = events_of("event: first\nid: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n")
    assert events == [Event("a", "first", "1"), Event("b", "message", "1"), Event("c", "message", "")]


def test_id_with_nul_is_ignored_and_retry_needs_digits() -> None:
    parser = EventStreamParser()
    events = parser.feed(b"id: a\x00b\nretry: 12x\ndata: 1\n\nretry: 3000\ndata: 2\n\n")
    assert [e.id for e in events] == [None, None]
    assert [e.retry for e in events] == [None, 3000]
    assert parser.retry == 3000


def test_leading_bom_is_dropped_once() -> None:
    bom = "\ufeff".encode()
    assert events_of(bom + b"data: x\n\n", 1) == [Event("x")]
    # A second BOM is not at the start of the stream: it is part of the field name.
    assert events_of(bom + bom + b"data: x\n\n") == []


def test_a_final_unterminated_event_is_not_dispatched() -> None:
    parser = EventStreamParser()
    assert parser.feed(b"data: complete\n\ndata: partial\n") == [Event("complete")]
    assert parser.close() == []
    assert parser.incomplete is True


def test_a_cleanly_ended_stream_is_not_incomplete() -> None:
    parser = EventStreamParser()
    parser.feed(b"data: x\n\n")
    assert parser.close() == []
    assert parser.incomplete is False


def test_invalid_utf8_becomes_replacement_characters() -> None:
    assert events_of(b"data: a\xffb\n\n") == [Event("a\ufffdb")]


def test_space_after_colon_is_removed_once() -> None:
    assert events_of("data:  two spaces\n\n") == [Event(" two spaces")]


# --- decoding: other streams -------------------------------------------------------------------


def test_other_streams_become_a_list_of_events() -> None:
    stream = 'event: update\nid: 1\ndata: {"n": 1}\n\ndata: plain text\n\ndata: 42\n\n'
    assert decode_event_stream(events_of(stream)) == [
        {"event": "update", "data": {"n": 1}, "id": "1"},
        {"event": "message", "data": "plain text", "id": "1"},
        {"event": "message", "data": 42, "id": "1"},
    ]


def test_an_empty_stream_is_an_empty_list() -> None:
    assert decode_event_stream([]) == []


# --- decoding: chat-completion streams ---------------------------------------------------------


def chunk(delta: dict[str, Any], finish: str | None = None, **top: Any) -> str:
    body = {"id": "resp_42", "object": "chat.completion.chunk", "created": 1757930000, "model": "agentaus"}
    body.update(top)
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    return "data: " + json.dumps(body) + "\n\n"


USAGE = (
    'data: {"id":"resp_42","object":"chat.completion.chunk","choices":[],'
    '"usage":{"input_tokens":14,"output_tokens":21}}\n\n'
)
DONE = "data: [DONE]\n\n"


def test_the_notes_text_stream_merges_into_a_completion() -> None:
    stream = (
        chunk({"role": "assistant", "content": "A "})
        + chunk({"role": "assistant", "content": "function "})
        + chunk({}, "stop", usage=None)
        + USAGE
        + DONE
    )
    assert decode_event_stream(events_of(stream)) == {
        "id": "resp_42",
        "object": "chat.completion",
        "created": 1757930000,
        "model": "agentaus",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "A function ", "refusal": None, "tool_calls": []},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"input_tokens": 14, "output_tokens": 21},
        "error": None,
        "stream_complete": True,
    }


def test_the_notes_single_chunk_tool_call() -> None:
    call = {
        "index": 0,
        "id": "call_abc123",
        "type": "function",
        "function": {"name": "get_current_weather", "arguments": '{"location": "Sydney, NSW"}'},
    }
    merged = decode_event_stream(
        events_of(chunk({"role": "assistant", "tool_calls": [call]}, "tool_calls") + DONE)
    )
    choice = merged["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    assert choice["message"]["tool_calls"] == [
        {
            "id": "call_abc123",
            "type": "function",
            "function": {"name": "get_current_weather", "arguments": '{"location": "Sydney, NSW"}'},
        }
    ]
    assert merged["usage"] is None


def test_tool_call_fragments_merge_by_index() -> None:
    stream = (
        chunk(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c0",
                        "type": "function",
                        "function": {"name": "weather", "arguments": ""},
                    }
                ],
            }
        )
        + chunk(
            {"tool_calls": [{"index": 1, "id": "c1", "type": "function", "function": {"name": "calendar"}}]}
        )
        + chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"loc'}}]})
        + chunk({"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]})
        # Some servers repeat the name in every fragment: it must not be concatenated.
        + chunk({"tool_calls": [{"index": 0, "function": {"name": "weather", "arguments": 'ation": "X"}'}}]})
        + chunk({}, "tool_calls")
        + DONE
    )
    calls = decode_event_stream(events_of(stream, 9))["choices"][0]["message"]["tool_calls"]
    assert calls == [
        {"id": "c0", "type": "function", "function": {"name": "weather", "arguments": '{"location": "X"}'}},
        {"id": "c1", "type": "function", "function": {"name": "calendar", "arguments": "{}"}},
    ]


def test_fragments_without_index_continue_the_last_call_or_start_a_new_one() -> None:
    stream = (
        chunk({"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{"}}]})
        + chunk({"tool_calls": [{"function": {"arguments": "}"}}]})
        + chunk({"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": "[]"}}]})
        + DONE
    )
    calls = decode_event_stream(events_of(stream))["choices"][0]["message"]["tool_calls"]
    assert [(c["id"], c["type"], c["function"]["arguments"]) for c in calls] == [
        ("a", "function", "{}"),
        ("b", "function", "[]"),
    ]


def test_several_choices_are_kept_apart_and_sorted() -> None:
    def choice_chunk(index: int, content: str, finish: str | None = None) -> str:
        body = {
            "object": "chat.completion.chunk",
            "choices": [{"index": index, "delta": {"content": content}, "finish_reason": finish}],
        }
        return "data: " + json.dumps(body) + "\n\n"

    stream = (
        choice_chunk(1, "b1")
        + choice_chunk(0, "a1")
        + choice_chunk(1, "b2", "length")
        + choice_chunk(0, "a2", "stop")
    )
    choices = decode_event_stream(events_of(stream))["choices"]
    assert [(c["index"], c["message"]["content"], c["finish_reason"]) for c in choices] == [
        (0, "a1a2", "stop"),
        (1, "b1b2", "length"),
    ]


def test_the_last_non_null_finish_reason_wins() -> None:
    stream = chunk({"content": "x"}, "length") + chunk({}, None) + DONE
    assert decode_event_stream(events_of(stream))["choices"][0]["finish_reason"] == "length"


def test_usage_in_the_last_choice_chunk_is_used_too() -> None:
    stream = (
        chunk({"role": "assistant", "content": "hi"}, "stop", usage={"input_tokens": 1, "output_tokens": 1})
        + DONE
    )
    assert decode_event_stream(events_of(stream))["usage"] == {"input_tokens": 1, "output_tokens": 1}


def test_the_error_event_is_exposed() -> None:
    stream = (
        chunk({"role": "assistant", "content": "Par"}) + 'data: {"error": {"message": "boom"}}\n\n' + DONE
    )
    merged = decode_event_stream(events_of(stream))
    assert merged["error"] == {"message": "boom"}
    assert merged["choices"][0]["message"]["content"] == "Par"
    assert merged["stream_complete"] is True


def test_an_error_only_stream_with_done_is_a_completion() -> None:
    merged = decode_event_stream(events_of('data: {"error": {"message": "boom"}}\n\n' + DONE))
    assert merged["error"] == {"message": "boom"}
    assert merged["choices"] == []


def test_a_stream_without_done_is_marked_incomplete() -> None:
    merged = decode_event_stream(events_of(chunk({"content": "half"})))
    assert merged["stream_complete"] is False
    assert merged["choices"][0]["message"]["content"] == "half"


def test_pings_and_named_text_events_are_ignored_in_a_chat_stream() -> None:
    stream = "event: ping\ndata: {}\n\nevent: ping\ndata: keep-alive\n\n" + chunk({"content": "x"}) + DONE
    assert decode_event_stream(events_of(stream))["choices"][0]["message"]["content"] == "x"


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_data_line_that_is_not_json_fails_a_chat_stream_with_its_place(where) -> None:
    """Skipping it would lose a piece of the answer (a word, a tool call's arguments) and the merged
    completion would read as whole: the stream fails, naming the event, its line and its start."""
    broken = 'data: {"choices": [{"index": 0, "delta": {"content": "wor\n\n'
    first = chunk({"content": "Hello "})
    stream = first + broken + chunk({"content": "ld"}) + DONE if where == "after" else broken + first + DONE
    with pytest.raises(EventStreamError) as caught:
        decode_event_stream(events_of(stream))
    number, line = (2, 3) if where == "after" else (1, 1)
    assert str(caught.value) == (
        f"event {number} of the chat-completion stream (line {line}) is not JSON: "
        '\'{"choices": [{"index": 0, "delta": {"content": "wor\''
    )


def test_a_generic_stream_keeps_data_that_is_not_json_as_text() -> None:
    assert decode_event_stream(events_of('data: hello\n\ndata: {"a": 1}\n\n')) == [
        {"event": "message", "data": "hello", "id": None},
        {"event": "message", "data": {"a": 1}, "id": None},
    ]


def test_chunks_are_recognised_by_their_delta_without_object() -> None:
    stream = 'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n'
    merged = decode_event_stream(events_of(stream))
    assert merged["object"] == "chat.completion"
    assert merged["choices"][0]["message"]["content"] == "hi"
    assert merged["id"] is None


def test_refusal_and_logprobs_are_merged() -> None:
    merger = ChatCompletionMerger()
    merger.add(
        {"choices": [{"index": 0, "delta": {"refusal": "I can"}, "logprobs": {"content": [{"t": 1}]}}]}
    )
    merger.add({"choices": [{"index": 0, "delta": {"refusal": "not."}, "logprobs": {"content": [{"t": 2}]}}]})
    merger.add_done()
    choice = merger.result()["choices"][0]
    assert choice["message"]["refusal"] == "I cannot."
    assert choice["logprobs"] == {"content": [{"t": 1}, {"t": 2}]}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"object": "chat.completion.chunk", "choices": []}, True),
        ({"choices": [{"delta": {}}]}, True),
        ({"choices": [{"message": {}}]}, False),
        ({"error": {"message": "x"}}, False),
        ("[DONE]", False),
        ([1, 2], False),
    ],
)
def test_is_chat_chunk(data: Any, expected: bool) -> None:
    assert is_chat_chunk(data) is expected
