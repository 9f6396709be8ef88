"""WebSocket channels through websockets (the `[websocket]` extra), the reference asyncio implementation.

A channel is a WebSocket at the server's URL plus the channel address (`ws://host:port/pathname/address`);
one connection per address per run, opened by the first step that sends or subscribes there, so a
subscription exists as soon as the connection is open. A message is one frame: text when the payload
is UTF-8, binary otherwise. Frames carry no headers: a step that sends headers fails, as it should.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .base import DEFAULT_BUFFER, MessageTransport, Received, Subscription


def _client_library() -> Any:
    import websockets.asyncio.client

    return websockets.asyncio.client


class WebSocketTransport(MessageTransport):
    protocol = "ws"
    headers_supported = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sockets: dict[str, Any] = {}
        self._readers: list[asyncio.Task] = []

    async def connect(self) -> None:
        """Connections are per channel, opened on first use."""

    def _url(self, address: str) -> str:
        broker = self.broker
        scheme = "wss" if broker.tls else "ws"
        port = f":{broker.port}" if broker.port else ""
        path = "/".join(p.strip("/") for p in (broker.path, address) if p.strip("/"))
        return f"{scheme}://{broker.host}{port}/{path}"

    async def _socket(self, address: str) -> Any:
        socket = self._sockets.get(address)
        if socket is not None:
            return socket
        client = _client_library()
        url = self._url(address)
        headers = None
        if self.broker.username is not None:
            import base64

            token = f"{self.broker.username}:{self.broker.password or ''}".encode()
            headers = {"Authorization": "Basic " + base64.b64encode(token).decode()}
        try:
            socket = await asyncio.wait_for(
                client.connect(
                    url,
                    additional_headers=headers,
                    ssl=self.tls_context if self.broker.tls else None,
                    max_size=self.max_message,  # refused from the frame's length, before it is read
                    open_timeout=self.timeout,
                ),
                self.timeout,
            )
        except Exception as exc:
            raise self.fail(f"opening {url}", exc) from None
        self._sockets[address] = socket
        self._readers.append(asyncio.create_task(self._read(address, socket)))
        return socket

    async def _read(self, address: str, socket: Any) -> None:
        try:
            async for frame in socket:
                payload = frame.encode() if isinstance(frame, str) else bytes(frame)
                self.dispatch(address, Received(address, payload))
        except Exception as exc:
            sent = getattr(exc, "sent", None)
            # the client closed it: a frame over `max_size`
            if sent is not None and getattr(sent, "code", None) == 1009:
                over = self.too_large(address, _announced(sent.reason))
                if over is not None:
                    self.dispatch(address, over)
            return

    async def publish(
        self, address: str, payload: bytes, headers: list[tuple[str, str]], content_type: str | None = None
    ) -> None:
        if headers:
            names = ", ".join(n for n, _ in headers)
            raise self.fail(
                f"sending to {address!r}", ValueError(f"WebSocket frames carry no headers ({names})")
            )
        socket = await self._socket(address)
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        try:
            await asyncio.wait_for(socket.send(payload if text is None else text), self.timeout)
        except Exception as exc:
            raise self.fail(f"sending to {address!r}", exc) from None

    async def subscribe(self, address: str, limit: int = DEFAULT_BUFFER) -> Subscription:
        subscription = Subscription(address, limit)
        self.subscriptions.append(subscription)
        try:
            await self._socket(address)
        except Exception:
            self.subscriptions.remove(subscription)
            raise
        return subscription

    async def close(self) -> None:
        for task in self._readers:
            task.cancel()
        for socket in self._sockets.values():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(socket.close(), self.timeout)
        self._sockets.clear()


def _announced(reason: str) -> int | None:
    """The size websockets gives in its close reason (`frame with 5000 bytes exceeds limit of 1000
    bytes`), or None."""
    import re

    found = re.search(r"^frame with (\d+) bytes exceeds", reason or "")
    return int(found.group(1)) if found else None
