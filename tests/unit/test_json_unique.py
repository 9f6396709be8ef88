"""`uniqueItems`' linear check (`sources/json_unique.py`) answers for items nesting as deep as a document
or a body may (the loader's 500 levels), where its recursive form exceeds Python's recursion limit."""

from __future__ import annotations

import json

from arazzo_runner.http.contract_schema import BodyChecker
from arazzo_runner.sources.json_unique import all_unique


def _deep(levels: int, leaf: str = "") -> object:
    return json.loads("[" * levels + leaf + "]" * levels)


def test_deep_items_are_compared_without_the_stack() -> None:
    deep = {"a": [_deep(499), True]}
    assert all_unique([deep, json.loads(json.dumps(deep))]) is False
    assert all_unique([_deep(499, "1"), _deep(499, "true"), _deep(499, "1.5")]) is True
    assert all_unique([_deep(499, "1"), _deep(499, "1.0")]) is False  # 1 is 1.0, as before


def test_the_contract_subset_checks_a_deep_body_as_the_general_path() -> None:
    schema = {"type": "array", "uniqueItems": True}
    for version in ("3.0.3", "3.1.0"):
        general = BodyChecker(schema, version, None)
        general.subset = False
        assert BodyChecker(schema, version, None).check(_deep(499)) == general.check(_deep(499)) == []
