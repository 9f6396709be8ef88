"""What the JSON readers' differential tests share (the jiter path `test_json_fast.py`, the stream
`test_json_stream.py`): generated JSON texts, and a form of a value equal only for equal values."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st


def json_texts(scalars: Any, keys: Any, *, max_items: int, max_leaves: int) -> Any:
    """JSON texts as UTF-8 bytes (surrogates passed), nesting arrays of up to `max_items` and objects
    of up to 5 members named from `keys` (duplicates included) over `scalars` (JSON texts)."""
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=max_items).map(lambda items: "[" + ",".join(items) + "]")
            | st.lists(st.tuples(keys, inner), max_size=5).map(_object)
        ),
        max_leaves=max_leaves,
    ).map(lambda text: text.encode("utf-8", "surrogatepass"))


def _object(members: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f'"{key}":{value}' for key, value in members) + "}"


def canonical(value: Any) -> Any:
    """Equal only for equal values: types kept (1 is not 1.0, 0.0 not -0.0), key order kept."""
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else value.hex())
    if isinstance(value, dict):
        return ("object", [(key, canonical(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("array", [canonical(item) for item in value])
    return (type(value).__name__, value)
