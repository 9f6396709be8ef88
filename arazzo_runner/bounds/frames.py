"""The evaluation worker's protocol: length-prefixed JSON frames (never pickle), the same on both sides
(`isolated.py` in the engine's process, `worker.py` in the worker's).
"""

from __future__ import annotations

import json
import struct
from typing import IO, Any

HEADER = struct.Struct(">I")


def read_frame(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    body = stream.read(size)
    if len(body) < size:
        return None
    return json.loads(body.decode("utf-8", "surrogatepass"))


def encode(message: Any) -> bytes:
    """A message as the bytes of one frame's body (TypeError / ValueError for what JSON cannot hold)."""
    return json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")


def write_frame(stream: IO[bytes], message: Any) -> None:
    write_bytes(stream, encode(message))


def write_bytes(stream: IO[bytes], body: bytes) -> None:
    stream.write(HEADER.pack(len(body)) + body)
    stream.flush()
