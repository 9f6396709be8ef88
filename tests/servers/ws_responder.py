"""A WebSocket order service for the event-driven tests: on `/orders`, each JSON request frame is
answered on the same connection (`tests.servers.responder.answers` decides what and when); each answer
says the kind of frame the request came in (`"frame": "text"` or `"binary"`).

    python -m tests.servers.ws_responder      prints `PORT <n>` once it listens on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import logging
import sys

from tests.servers.responder import answers


async def main() -> None:
    from websockets.asyncio.server import serve

    async def handle(connection) -> None:
        if connection.request.path != "/orders":
            await connection.close(code=4404, reason="no such channel")
            return
        async for frame in connection:
            delay, payloads = answers(json.loads(frame))
            if delay:
                await asyncio.sleep(delay)
            kind = "text" if isinstance(frame, str) else "binary"
            for payload in payloads:
                await connection.send(json.dumps({**payload, "frame": kind}))

    async with serve(handle, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"PORT {port}", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    logging.disable(logging.CRITICAL)
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
