"""Whether the items of an array are unique as JSON Schema compares them, in linear time: `uniqueItems` of
the bounded jsonschema keywords (`schema_keywords.py`) and of the contract checks' subset path
(`http/contract_subset.py`), which imports nothing of jsonschema's side for it."""

from __future__ import annotations

from typing import Any

_LIST, _OBJECT, _BOOL = object(), object(), object()  # tags no JSON value equals


def all_unique(items: list[Any]) -> bool:
    """Whether no two items are equal as JSON Schema compares them (`true` is not `1`, `1` is `1.0`), by
    a hashable form of each; jsonschema's own pairwise check for what has none."""
    try:
        frozen = {_frozen(item) for item in items}
    except TypeError:  # an unhashable leaf (not JSON): compared as jsonschema does
        from jsonschema._utils import uniq

        return bool(uniq(items))
    return len(frozen) == len(items)


def _frozen(value: Any) -> Any:
    if isinstance(value, bool):
        return (_BOOL, value)
    if isinstance(value, dict):
        return (_OBJECT, frozenset((key, _frozen(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return (_LIST, *(_frozen(item) for item in value))
    hash(value)
    return value
