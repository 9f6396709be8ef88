"""Server-side SSE encoding: each event is one `data:` line and a blank line, LF line endings."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

DONE = b"data: [DONE]\n\n"


def encode_event(data: Any) -> bytes:
    """One `data:` event holding `data` as compact JSON (JSON text never contains a raw newline)."""
    return b"data: " + json.dumps(data, separators=(",", ":")).encode("utf-8") + b"\n\n"


def encode_stream(objects: Iterable[Any]) -> Iterator[bytes]:
    """The events of `objects`, then the `[DONE]` sentinel."""
    for obj in objects:
        yield encode_event(obj)
    yield DONE
