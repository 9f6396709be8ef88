"""Bounds on decoding event streams: the number of events, the estimated size of the decoded body, the
nesting of an event's data; and no step of the decoding grows faster than the stream (a long line in
many chunks, logprobs and tool-call fragments without index over many chunks)."""

from __future__ import annotations

import json
import sys
import tracemalloc

import pytest

from arazzo_runner.http.sse import (
    ChatCompletionMerger,
    Event,
    EventDecoder,
    EventLimits,
    EventStreamError,
    EventStreamParser,
    decode_event_stream,
)
from tests.cputime import cpu_bound

CHUNK = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "x"}}]}


def test_the_limits_follow_the_body_limit() -> None:
    assert EventLimits.for_body(16 * 2**20) == EventLimits(131072, 128 * 2**20)
    assert EventLimits.for_body(1000) == EventLimits(1024, 2**20)  # small limits keep a floor


def test_more_events_than_the_bound_fail() -> None:
    limits = EventLimits(max_events=3, max_decoded=2**20)
    assert len(decode_event_stream([Event("1")] * 3, limits)) == 3
    with pytest.raises(EventStreamError, match=r"^the event stream has more than 3 events$"):
        decode_event_stream([Event("1")] * 4, limits)


def test_the_decoded_size_is_bounded_by_its_estimate() -> None:
    """An event of empty lists is a few bytes of text per list and 56 bytes of list once parsed."""
    data = "[" + ",".join(["[]"] * 1000) + "]"
    decoder = EventDecoder()
    decoder.add([Event(data)])
    one = decoder.spent
    tracemalloc.start()
    parsed = json.loads(data)
    real, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert sys.getsizeof([]) * 1000 <= real <= one  # the estimate is above what the objects take
    assert parsed
    limits = EventLimits(max_events=1000, max_decoded=10 * one)
    assert len(decode_event_stream([Event(data)] * 10, limits)) == 10
    with pytest.raises(
        EventStreamError, match=r"^the event stream decodes to more than 0 MiB \(11 events\)$"
    ):
        decode_event_stream([Event(data)] * 11, limits)


def test_a_chat_stream_is_charged_for_what_the_merge_keeps() -> None:
    """Chunks are folded as they come: 2,000 of them cost their text and a little, not their objects."""
    text = json.dumps(CHUNK)
    decoder = EventDecoder()
    decoder.add([Event(text)] * 2000)
    assert decoder.result()["choices"][0]["message"]["content"] == "x" * 2000
    assert decoder.spent < 2000 * (len(text) + 64) + 512 * 2


def test_the_list_form_is_dropped_once_the_stream_is_a_chat() -> None:
    """Events before the first chunk are folded into the merge (an error event is kept)."""
    events = [
        Event('{"error": {"message": "early"}}'),
        Event("ping", "ping"),
        Event(json.dumps(CHUNK)),
        Event("[DONE]"),
    ]
    merged = decode_event_stream(events, EventLimits(10, 2**20))
    assert merged["error"] == {"message": "early"}
    assert merged["stream_complete"] is True


def test_new_choices_and_tool_calls_are_charged() -> None:
    """A hostile chat stream opening a new choice (or tool call) per chunk pays for each."""
    chunks = [{"choices": [{"index": i, "delta": {}}]} for i in range(100)]
    decoder = EventDecoder()
    decoder.add(Event(json.dumps(c)) for c in chunks)
    assert decoder.spent >= 100 * 512


def test_data_nesting_too_deep_fails_with_the_event_number() -> None:
    events = [Event("1"), Event("[" * 200 + "]" * 200)]
    with pytest.raises(EventStreamError, match=r"^the data of event 2 nests deeper than 128 levels$"):
        decode_event_stream(events)


def test_brackets_in_a_plain_text_event_are_text() -> None:
    assert decode_event_stream([Event("[" * 200)]) == [{"event": "message", "data": "[" * 200, "id": None}]


def test_a_long_line_in_many_chunks_is_parsed_in_linear_time() -> None:
    """8 MiB of one `data:` line in 4 KiB pieces: joining and scanning the whole line per piece would
    take 8 GB of work; it is joined once, when its end arrives."""
    line = b"data: " + b"x" * (8 * 2**20) + b"\n\n"
    parser = EventStreamParser()
    events = []
    with cpu_bound(3, "a long line in 4 KiB pieces"):
        for start in range(0, len(line), 4096):
            events += parser.feed(line[start : start + 4096])
    assert [len(e.data) for e in events] == [8 * 2**20]


def test_logprobs_over_many_chunks_merge_in_linear_time() -> None:
    merger = ChatCompletionMerger()
    chunk = {"choices": [{"index": 0, "delta": {}, "logprobs": {"content": [{"token": "x"}]}}]}
    with cpu_bound(3, "80,000 chunks with logprobs"):
        for _ in range(80_000):
            merger.add(chunk)
        result = merger.result()
    assert len(result["choices"][0]["logprobs"]["content"]) == 80_000


def test_tool_call_fragments_without_index_merge_in_linear_time() -> None:
    merger = ChatCompletionMerger()
    with cpu_bound(3, "80,000 tool calls without index"):
        for i in range(80_000):
            merger.add({"choices": [{"index": 0, "delta": {"tool_calls": [{"id": f"call_{i}"}]}}]})
        calls = merger.result()["choices"][0]["message"]["tool_calls"]
    assert [c["id"] for c in calls[:2]] == ["call_0", "call_1"]
    assert len(calls) == 80_000
