"""Short, readable renderings of values for failure messages."""

from __future__ import annotations

import json
from typing import Any

from .runtime import Missing

LIMIT = 80


def show(value: Any, limit: int = LIMIT) -> str:
    """A value as it would be written in a condition: 'text', 200, true, null, {"a":1} (truncated)."""
    if isinstance(value, Missing):
        return f"nothing ({value.reason})"
    if value is None or isinstance(value, (bool, int, float)):
        return _scalar(value)
    if isinstance(value, str):
        return "'" + _cut(value, limit).replace("'", "''") + "'"
    return _cut(compact_json(value), limit)


def compact_json(value: Any) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # circular structures and the like
        return repr(value)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return repr(value)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
