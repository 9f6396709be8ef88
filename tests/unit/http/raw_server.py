"""A real asyncio HTTP/1.1 server answering each request with fixed bytes, keeping every request's bytes:
for the tests that compare the engine's own connection with httpx's transport byte for byte
(test_lean_exchange.py, test_wire_direct.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping


def answer(status: bytes, headers: list[bytes], body: bytes) -> bytes:
    """A response's bytes: the status line, the header lines as given, the body."""
    return b"HTTP/1.1 " + status + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


async def raw_server(
    answers: Mapping[bytes, bytes | None], default: bytes, closing: Collection[bytes]
) -> tuple[asyncio.AbstractServer, str, list[bytes]]:
    """(the server, its URL, the requests' bytes as received). A request's path (without its query)
    picks its answer (`default` for another path; None: nothing written); the server closes the
    connection after answering a path of `closing`."""
    received: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.lower().split(b"\r\n"):
                    if line.startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                received.append(head + await reader.readexactly(length))
                path = head.split(b" ")[1].split(b"?")[0]
                written = answers.get(path, default)
                if written is not None:
                    writer.write(written)
                    await writer.drain()
                if path in closing:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client closed it, or the test ended with it idle
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", received
