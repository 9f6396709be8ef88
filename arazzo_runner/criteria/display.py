"""Short, readable renderings of values for failure messages, cut by the one cutting rule (`clip`), whose
marker lets masking hide the start of a secret a cut leaves."""

from __future__ import annotations

import json
from typing import Any

from ..masking.secrets import clip
from .runtime import Missing

LIMIT = 80


def show(value: Any, limit: int = LIMIT) -> str:
    """A value as it would be written in a condition: 'text', 200, true, null, {"a":1} (truncated)."""
    if isinstance(value, Missing):
        return f"nothing ({value.reason})"
    if value is None or isinstance(value, (bool, int, float)):
        return _scalar(value)
    if isinstance(value, str):
        return "'" + clip(value, limit).replace("'", "''") + "'"
    return clip(compact_json(value), limit)


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
