"""`uniqueItems` in the bounded validators (`schema_keywords.unique_items`): jsonschema's verdicts, in
linear time (jsonschema compares objects pairwise)."""

from __future__ import annotations

import time

import jsonschema
import pytest
from jsonschema._utils import uniq

from arazzo_runner.sources.schema_keywords import bounded

CASES = [
    [1, 1.0],
    [1, True],
    [0, False],
    [True, True],
    [{"a": 1, "b": 2}, {"b": 2, "a": 1}],
    [{"a": 1}, {"a": True}],
    [[1, 2], [2, 1]],
    [[1, [True]], [1, [1]]],
    [[1, [1.0]], [1, [1]]],
    ["1", 1],
    [None, None],
    [{"a": [1, {"b": None}]}, {"a": [1, {"b": None}]}],
    [[], {}],
    [],
]


@pytest.mark.parametrize("items", CASES, ids=[repr(c) for c in CASES])
def test_unique_items_says_what_jsonschema_says(items: list) -> None:
    validator = bounded(jsonschema.Draft202012Validator)({"uniqueItems": True})
    assert validator.is_valid(items) is bool(uniq(items))


def _cost(count: int) -> float:
    validator = bounded(jsonschema.Draft202012Validator)({"uniqueItems": True})
    items = [{"stepId": f"s{i}", "n": i} for i in range(count)]
    started = time.process_time()
    assert validator.is_valid(items)
    return time.process_time() - started


def test_unique_items_over_many_objects_is_linear() -> None:
    _cost(100)
    small = min(_cost(2000) for _ in range(3))
    large = min(_cost(16000) for _ in range(2))
    assert large < 24 * max(small, 0.02), (small, large)  # linear 8x, quadratic 64x
    assert large < 2.0  # jsonschema's pairwise check: 1.3 * 10^8 comparisons
