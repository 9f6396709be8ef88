"""The streamed read (`bounds/json_stream.py`) where a key comes again or an array holds no use: what an
earlier value did (selected, spent, ran out of its budget) is gone with it, as json.loads keeps the last."""

from __future__ import annotations

import pytest

from arazzo_runner.bounds import json_stream, limits
from tests.unit.test_json_stream import uses
from tests.untested import not_installed

pytest.importorskip("ijson", reason=not_installed("ijson", "big bodies read as a stream (bigjson)"))


@pytest.fixture(autouse=True)
def _every_size(monkeypatch):
    monkeypatch.setattr(json_stream, "STREAM_FROM", 0)


def test_a_filter_out_of_its_budget_on_an_earlier_duplicate_key_is_not_answered(monkeypatch):
    """The first `items` runs the filter out of its time; the last one, which json.loads keeps, is small.
    The stream does not answer (the document is parsed, whose query gets its budget for the last value
    alone), rather than say the filter was stopped."""
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.05)
    many = ",".join(f'{{"p":{i % 3}}}' for i in range(200_000))
    text = ('{"items":[' + many + '],"items":[{"p":2}]}').encode()
    assert json_stream.read(text, uses([], ["$.items[?@.p > 1]"])) is None


def test_a_filter_that_spent_time_on_an_earlier_duplicate_key_answers_for_the_last():
    many = ",".join(f'{{"p":{i % 3}}}' for i in range(5_000))
    text = ('{"items":[' + many + '],"items":[{"p":2},{"p":0}]}').encode()
    streamed = json_stream.read(text, uses([], ["$.items[?@.p > 1]"]))
    assert streamed is not None
    assert streamed.selected("$.items[?@.p > 1]") == [{"p": 2}]


def test_an_array_holding_no_use_is_passed():
    """A root array, the uses under an object key it does not have, or none at all: nothing reached,
    nothing refused (the document was parsed whole for nothing)."""
    assert json_stream.read(b"[1, [2], 3]", uses([], [])) is not None
    streamed = json_stream.read(b'[{"a": 1}, [2, 3], 4]', uses([("a",)], ["$.a[?@ > 1]"]))
    assert streamed is not None
    assert streamed.at(("a",)) is json_stream.MISSING
    assert streamed.selected("$.a[?@ > 1]") == []
