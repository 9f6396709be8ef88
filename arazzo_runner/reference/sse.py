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


def encode_named(events: Iterable[tuple[str, Any]]) -> Iterator[bytes]:
    """Named events (the Responses and Messages APIs): `event: <name>` then the `data:` line; no
    sentinel, the last event says the answer is complete."""
    for name, data in events:
        yield b"event: " + name.encode("utf-8") + b"\n" + encode_event(data)
