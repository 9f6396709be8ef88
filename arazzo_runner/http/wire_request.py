"""Writing a request on a `wire.Wire` connection: its head as h11 writes it (request line, Host first, the
other headers in their order and case) and its body, chunk-encoded when it says so.

The checks h11 makes of what it writes are made here too, with h11's words (a `LocalProtocolError`, which
httpx raises as its own): a header name or value, a method or a target that would let a line break or
another request into the bytes sent (a value from a response or a row reaching a header), a
Transfer-Encoding other than chunked, a body longer or shorter than its Content-Length.
"""

from __future__ import annotations

import re
from typing import Any

import httpcore
from httpx import ByteStream

_NAME = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")  # h11's token
_VALUE = re.compile(rb"(?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?")  # h11's field_value
_LINE = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+: (?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?\r\n")  # both
_TARGET = re.compile(rb"[\x21-\x7e]+")
_LENGTH = re.compile(rb"[0-9]{1,20}")


class Written:
    """A request whose head is written and checked already (`wire_direct.py`): httpcore.Request's fields
    as the pool and the connection read them, the head's bytes and the body's length (it never says
    `Connection: close`); `parts`: what its httpx.Request is made of when something asks for it."""

    __slots__ = ("extensions", "head", "length", "method", "parts", "stream", "url")

    def __init__(
        self,
        method: bytes,
        url: Any,
        stream: Any,
        extensions: dict,
        head: bytes,
        length: int | None,
        parts: Any,
    ) -> None:
        self.method, self.url, self.stream, self.extensions = method, url, stream, extensions
        self.head, self.length, self.parts = head, length, parts


def request_head(request: httpcore.Request) -> tuple[bytes, int | None, bool]:
    """(the head's bytes, the body's length: -1 when chunked, None when unsaid, whether the request lets
    the connection stay open); `LocalProtocolError` as h11 raises it."""
    if type(request) is Written:
        return request.head, request.length, True
    method, target = request.method, request.url.target
    if not _NAME.fullmatch(method):
        raise httpcore.LocalProtocolError("Illegal method characters")
    if not _TARGET.fullmatch(target):
        raise httpcore.LocalProtocolError("Illegal target characters")
    host: list[bytes] = []
    lines = [b"%s %s HTTP/1.1\r\n" % (method, target)]
    length: int | None = None
    keep_alive = True
    for name, value in request.headers:
        line = b"%s: %s\r\n" % (name, value)
        # one match for both, then which one failed; a name holding `: ` would pass it as a line of a
        # name and a value (`Transfer-Encoding: chunked\t` a name), which h11 refuses as a name
        if b":" in name or not _LINE.fullmatch(line):
            if not _NAME.fullmatch(name):
                raise httpcore.LocalProtocolError(f"Illegal header name {name!r}")
            raise httpcore.LocalProtocolError(f"Illegal header value {value!r}")
        lower = name.lower()
        if lower == b"host":
            host.append(line)
            continue
        if lower == b"content-length":
            length = _content_length(value, length)
        elif lower == b"transfer-encoding":
            if value.lower() != b"chunked" or length == -1:
                raise httpcore.LocalProtocolError(
                    "Only Transfer-Encoding: chunked is supported"
                    if length != -1
                    else "multiple Transfer-Encoding headers"
                )
            length = -1
        elif lower == b"connection" and b"close" in value.lower():
            keep_alive = False
        lines.append(line)
    if not host:
        raise httpcore.LocalProtocolError("Missing mandatory Host: header")
    lines[1:1] = host
    lines.append(b"\r\n")
    return b"".join(lines), length, keep_alive


def _content_length(value: bytes, seen: int | None) -> int:
    lengths = {part.strip() for part in value.split(b",")}
    if len(lengths) != 1:
        raise httpcore.LocalProtocolError("conflicting Content-Length headers")
    text = lengths.pop()
    if not _LENGTH.fullmatch(text):
        raise httpcore.LocalProtocolError("bad Content-Length")
    if seen is not None and seen != int(text):
        raise httpcore.LocalProtocolError("conflicting Content-Length headers")
    return int(text)


async def send_body(wire: Any, stream: Any, length: int | None, write_timeout: float | None) -> None:
    """Write the body from `stream` (httpcore's: an async iterable of bytes), waiting for the kernel to
    take it when the transport's buffer is full (`pause_writing`): `WriteTimeout` past `write_timeout`,
    `WriteError` when the connection is lost."""
    if type(stream) is ByteStream:  # httpx's body of bytes: its one piece, not through its async generator
        write_bytes(wire, stream, length)
    else:
        sent = 0
        async for part in stream:
            if part:
                sent += len(part)
                write(wire, framed(part, sent, length))
                if wire.write_paused:
                    await drain(wire, write_timeout)
        end = ending(sent, length)
        if end:
            write(wire, end)
    if wire.write_paused:
        await drain(wire, write_timeout)


def write_bytes(wire: Any, stream: ByteStream, length: int | None) -> None:
    """A body of bytes (httpx's `ByteStream`: its one piece) written whole, with its ending; the caller
    then waits while the transport's buffer is full (`drain`)."""
    part = stream._stream
    sent = 0
    if part:
        sent = len(part)
        write(wire, framed(part, sent, length))
    end = ending(sent, length)
    if end:
        write(wire, end)


def framed(part: bytes, sent: int, length: int | None) -> bytes:
    """The bytes to write for a body's `part` (not empty), `sent` bytes in with it: a chunk when the
    body is chunked (`length` -1); `LocalProtocolError` past a Content-Length."""
    if length == -1:
        return b"%x\r\n%s\r\n" % (len(part), part)
    if length is not None and sent > length:
        raise httpcore.LocalProtocolError("Too much data for declared Content-Length")
    return part


def ending(sent: int, length: int | None) -> bytes:
    """The bytes ending a body of `sent` bytes (the last chunk); `LocalProtocolError` short of a
    Content-Length."""
    if length == -1:
        return b"0\r\n\r\n"
    if length is not None and sent < length:
        raise httpcore.LocalProtocolError("Too little data for declared Content-Length")
    return b""


def write(wire: Any, data: bytes) -> None:
    """`data` on `wire` (a `wire.Wire`), or `WriteError` when it is closed (asyncio's transport would
    drop the bytes without a word)."""
    if wire.lost:
        cause = wire.closed_by or ConnectionResetError("the connection was closed")
        raise httpcore.WriteError(cause) from cause
    wire.transport.write(data)


async def drain(wire: Any, write_timeout: float | None) -> None:
    # one limit for the wait, as httpcore's per write: response bytes arriving meanwhile wake the wait
    # but do not start the time again (a server trickling them would keep a deaf write going for ever)
    deadline = None if write_timeout is None else wire.loop.time() + write_timeout
    while wire.write_paused:
        if wire.lost:
            write(wire, b"")  # raises
        left = None if deadline is None else max(0.0, deadline - wire.loop.time())
        await wire.wait(left, httpcore.WriteTimeout)
