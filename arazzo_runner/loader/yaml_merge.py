"""YAML merge keys (`<<: *base` or `<<: [*a, *b]`): copy members that the mapping does not set itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from .positions import Children

Merge = tuple[Any, Children, int]  # merged value, its positions, location of the `<<` key
Source = tuple[dict[str, Any], Children]  # a mapping to merge and its positions
Fail = Callable[[str, int], NoReturn]  # raises a DocumentError at a location
_BAD_MERGE = "the value of a merge key '<<' must be a mapping or a sequence of mappings"


def merge_into(
    data: dict[str, Any],
    pos: dict[str, Any] | None,
    merges: list[Merge],
    fail: Fail,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The mapping with merged members first; explicit keys win, then earlier merged mappings win."""
    merged: dict[str, Any] = {}
    merged_pos: dict[str, Any] | None = {} if pos is not None else None
    for source, source_pos in _sources(merges, fail):
        for key, value in source.items():
            if key not in merged:
                merged[key] = value
                if merged_pos is not None and isinstance(source_pos, dict):
                    merged_pos[key] = source_pos[key]
    merged.update(data)
    if merged_pos is not None and pos is not None:
        merged_pos.update(pos)
    return merged, merged_pos


def _sources(merges: list[Merge], fail: Fail) -> list[Source]:
    sources: list[Source] = []
    for value, pos, key_loc in merges:
        if isinstance(value, dict):
            sources.append((value, pos))
        elif isinstance(value, list) and all(isinstance(item, dict) for item in value):
            entries = pos if isinstance(pos, list) else [None] * len(value)
            sources.extend((item, entry and entry[2]) for item, entry in zip(value, entries, strict=True))
        else:
            fail(_BAD_MERGE, key_loc)
    return sources
