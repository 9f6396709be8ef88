"""A small case-insensitive header mapping (RFC 9110: field names are case-insensitive)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any


class Headers(Mapping[str, Any]):
    """Insertion-ordered, case-insensitive; keeps the spelling of the first writer of a name."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[tuple[str, Any]] | Mapping[str, Any] = ()) -> None:
        self._items: dict[str, tuple[str, Any]] = {}
        if type(items) is tuple and not items:  # (empty, as each request's view starts: no Mapping check)
            return
        pairs = items if type(items) is list else items.items() if isinstance(items, Mapping) else items
        own = self._items
        for name, value in pairs:  # `add`, written out: every request and response makes one
            key = name.lower()
            found = own.get(key)
            own[key] = (name, value) if found is None else (found[0], f"{found[1]}, {value}")

    def __setitem__(self, name: str, value: Any) -> None:
        key = name.lower()
        spelled = self._items[key][0] if key in self._items else name
        self._items[key] = (spelled, value)

    def add(self, name: str, value: Any) -> None:
        """Append a value; repeated fields are combined with ', ' as RFC 9110 allows."""
        key = name.lower()
        if key in self._items:
            spelled, old = self._items[key]
            self._items[key] = (spelled, f"{old}, {value}")
        else:
            self._items[key] = (name, value)

    def __getitem__(self, name: str) -> Any:
        return self._items[name.lower()][1]

    def get(self, name: str, default: Any = None) -> Any:  # Mapping's, without a KeyError when absent
        found = self._items.get(name.lower()) if isinstance(name, str) else None
        return default if found is None else found[1]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __delitem__(self, name: str) -> None:
        del self._items[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return (spelled for spelled, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return list(self._items.values())

    def __repr__(self) -> str:
        return f"Headers({self.items()!r})"
