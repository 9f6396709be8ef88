"""NATS through nats-py (the `[nats]` extra), the client the NATS maintainers publish.

A subscription is confirmed with a round trip (PING/PONG): once `subscribe` returns the server has it,
so a reply to a message sent afterwards is never missed, even one triggered by an HTTP step or sent
through another connection. Headers are NATS message headers (NATS 2.2+); a publish is confirmed the
same way, so the step completes once the server has the message. (`_confirm` flushes twice: nats-py
writes a flush's PING at once but the SUB or PUB before it only when its flusher task next runs, so the
first PONG can come back before the server has read them; the second PING follows them on the wire.)
TLS for `tls://` / `secure-nats`, or the server's `tls` binding; user and password from the scheme's
credentials.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .base import DEFAULT_BUFFER, MessageTransport, Received, Subscription


def _client_library() -> Any:
    import nats

    return nats


class NatsTransport(MessageTransport):
    protocol = "nats"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._client: Any = None

    async def connect(self) -> None:
        nats = _client_library()
        broker = self.broker
        scheme = "tls" if broker.tls else "nats"
        url = f"{scheme}://{broker.host}:{broker.port or 4222}"
        options: dict[str, Any] = {
            "connect_timeout": self.timeout or 10,
            "allow_reconnect": False,
            "max_reconnect_attempts": 0,
            "error_cb": _ignore,
            "disconnected_cb": _ignore_cb,
            "closed_cb": _ignore_cb,
        }
        if broker.username is not None:
            options["user"], options["password"] = broker.username, broker.password or ""
        if broker.tls:
            options["tls"] = self.tls_context
        try:
            self._client = await asyncio.wait_for(nats.connect(servers=[url], **options), self.timeout)
        except Exception as exc:
            raise self.fail("connecting", exc) from None

    async def publish(
        self, address: str, payload: bytes, headers: list[tuple[str, str]], content_type: str | None = None
    ) -> None:
        try:
            await self._client.publish(address, payload, headers=dict(headers) or None)
            await self._confirm()
        except Exception as exc:
            raise self.fail(f"publishing to {address!r}", exc) from None

    async def subscribe(self, address: str, limit: int = DEFAULT_BUFFER) -> Subscription:
        subscription = Subscription(address, limit)

        async def deliver(msg: Any) -> None:
            over = self.too_large(msg.subject, len(msg.data))
            if over is not None:  # before the payload is copied or its headers decoded
                subscription.deliver(over)
                return
            headers = {str(k): str(v) for k, v in (msg.headers or {}).items()}
            subscription.deliver(Received(msg.subject, bytes(msg.data), headers))

        try:
            subscription.cancel = await self._client.subscribe(address, cb=deliver)
            await self._confirm()
        except Exception as exc:
            raise self.fail(f"subscribing to {address!r}", exc) from None
        self.subscriptions.append(subscription)
        return subscription

    async def _confirm(self) -> None:
        """Return once the server has read every command sent before (see the module's docstring)."""
        for _ in range(2):
            await self._client.flush(timeout=self.timeout or 10)

    async def unsubscribe(self, subscription: Subscription) -> None:
        await super().unsubscribe(subscription)
        if subscription.cancel is not None:
            with contextlib.suppress(Exception):
                await subscription.cancel.unsubscribe()

    async def close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._client.close(), self.timeout)
            self._client = None


async def _ignore(exc: Exception) -> None:
    """nats-py reports connection errors to a callback (and logs them without one): the transport
    raises its own errors, and a waiting step times out with its own message."""


async def _ignore_cb() -> None:
    """See `_ignore`."""
