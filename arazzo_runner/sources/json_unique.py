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
        try:
            frozen = {_frozen(item) for item in items}
        except RecursionError:  # an item nesting as deep as documents may (500 levels): without the stack
            frozen = {_frozen_deep(item) for item in items}
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


def _frozen_deep(root: Any) -> Any:
    """`_frozen(root)` with an explicit stack: two Python frames a level made a document of 500 levels,
    which the loader accepts, exceed the interpreter's recursion limit."""
    done: list[Any] = []  # the frozen form of each finished value, in order
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        value, expanded = stack.pop()
        if isinstance(value, bool):
            done.append((_BOOL, value))
        elif isinstance(value, (dict, list, tuple)):
            children = list(value.values()) if isinstance(value, dict) else list(value)
            if not expanded:  # its children first (each leaves one form in `done`), then itself again
                stack.append((value, True))
                stack.extend((child, False) for child in reversed(children))
                continue
            forms = done[len(done) - len(children) :]
            del done[len(done) - len(children) :]
            if isinstance(value, dict):
                done.append((_OBJECT, frozenset(zip(value.keys(), forms, strict=True))))
            else:
                done.append((_LIST, *forms))
        else:
            hash(value)
            done.append(value)
    return done[0]
