"""The one base class every message transport implements, and the bounded subscription buffer.

As httpx keeps its transports behind `BaseTransport`, the engine keeps each broker protocol behind
`MessageTransport`: connect once per run and broker, publish, subscribe (the subscription is active at
the broker when `subscribe` returns, so a reply to a message sent afterwards is never missed), close.
The protocol modules (`mqtt`, `nats`, `websocket`, `kafka`, `amqp`) import their client library only
when a run opens one (each is an optional extra). A received message larger than `max_message` bytes
(`--max-response-bytes`) is never decoded or kept: its subscription gets a `Received` whose `error`
says so, and the receive step that takes it fails with that cause (`too_large`).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

from ..bounds.limits import DEFAULT_MAX_BODY
from ..records import Record, field

DEFAULT_BUFFER = 1000  # messages a subscription keeps before the oldest is dropped (and counted)


class TransportError(Exception):
    """A broker could not be reached, refused the client, or a message could not be published."""


class MissingExtra(TransportError):
    """The client library of a protocol is not installed: the message names the extra to install."""


class Broker(Record, frozen=True):
    """Where to connect: protocol, host, port, path; credentials apart (never in a displayed URL)."""

    protocol: str  # the AsyncAPI server's protocol, lower-cased: mqtt, secure-mqtt, nats, ws, kafka...
    host: str
    port: int | None = None
    path: str = ""
    tls: bool = False
    protocol_version: str | None = None
    username: str | None = None
    password: str | None = None
    client_id: str | None = None
    scheme_type: str | None = None  # the AsyncAPI security scheme the user and password came from

    @property
    def url(self) -> str:
        """The broker's URL for messages and reports (no credentials)."""
        port = f":{self.port}" if self.port is not None else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.protocol}://{host}{port}{self.path}"


class Received(Record):
    """A message as it came off the broker; `error` when it could not be taken (larger than the size
    limit: then nothing of it is kept)."""

    address: str
    payload: bytes
    headers: dict[str, str] = field(default_factory=dict)
    at: float = 0.0
    error: str | None = None

    def __init__(
        self,
        address: str,
        payload: bytes,
        headers: dict[str, str] | None = None,
        at: float = 0.0,
        error: str | None = None,
    ) -> None:
        self.address, self.payload = address, payload
        self.headers = {} if headers is None else headers
        self.at = at or time.time()
        self.error = error
        # what `$message.payload` reads of it, by content type: the message is delivered to every
        # subscription on its address (each receive step of a workflow has one) and decoded once
        self.decoded: dict[str | None, Any] = {}


class Subscription:
    """The messages on one address since it was subscribed, oldest first, at most `limit` kept: when
    full, the oldest is dropped and counted (`dropped`), so a flood cannot grow the run's memory."""

    def __init__(self, address: str, limit: int = DEFAULT_BUFFER) -> None:
        self.address = address
        self.limit = limit
        self.dropped = 0
        self.seen = 0
        self._buffer: deque[Received] = deque()
        self._waiter: asyncio.Event = asyncio.Event()
        self.closed = False
        self.cancel: Any = None  # what the transport needs to unsubscribe

    def deliver(self, message: Received) -> None:
        """Called by the transport for each message on the address (from the event loop's thread)."""
        if self.closed:
            return
        self.seen += 1
        if len(self._buffer) >= self.limit:
            self._buffer.popleft()
            self.dropped += 1
        self._buffer.append(message)
        self._waiter.set()

    def take(self) -> Received | None:
        """The oldest buffered message, or None."""
        if not self._buffer:
            self._waiter.clear()
            return None
        return self._buffer.popleft()

    async def wait(self, timeout: float | None) -> bool:
        """Wait until a message is buffered; False when `timeout` seconds passed first."""
        if self._buffer:
            return True
        self._waiter.clear()
        try:
            await asyncio.wait_for(self._waiter.wait(), timeout)
        except asyncio.TimeoutError:
            return bool(self._buffer)
        return True


class MessageTransport:
    """A connection to one broker for one run. Subclasses implement the five methods below; every
    failure is a `TransportError` with a message naming the broker (never its credentials)."""

    protocol = ""
    headers_supported = True  # False: the protocol's messages carry no headers (MQTT 3.1.1, WebSocket)

    def __init__(
        self,
        broker: Broker,
        *,
        timeout: float | None,
        tls_context: Any = None,
        max_message: int = DEFAULT_MAX_BODY,
    ) -> None:
        self.broker = broker
        self.timeout = timeout
        self.tls_context = tls_context
        self.max_message = max_message  # bytes of one received message (`--max-response-bytes`)
        self.subscriptions: list[Subscription] = []

    def too_large(self, address: str, size: int | None) -> Received | None:
        """For a message of `size` bytes on `address` over `max_message` (None: over it, size unknown):
        what is delivered instead of it (nothing of it kept, decoded or shown), which fails the receive
        that takes it; else None. Each transport asks before it copies or decodes a payload (WebSocket:
        its client refuses the frame from its length, before reading it)."""
        if size is not None and size <= self.max_message:
            return None
        what = "a message" if size is None else f"a message of {size} bytes"
        why = (
            f"{what} on '{address}' is larger than the limit of {self.max_message} bytes "
            "(max-response-bytes): it was not read"
        )
        return Received(address, b"", error=why)

    async def connect(self) -> None:
        raise NotImplementedError

    async def publish(
        self, address: str, payload: bytes, headers: list[tuple[str, str]], content_type: str | None = None
    ) -> None:
        """Publish and return once the broker has the message. `content_type`: the payload's media type,
        for protocols whose messages carry one (MQTT 5, AMQP); the others leave it to the document."""
        raise NotImplementedError

    async def subscribe(self, address: str, limit: int = DEFAULT_BUFFER) -> Subscription:
        """Subscribe and return once the broker has the subscription."""
        raise NotImplementedError

    async def unsubscribe(self, subscription: Subscription) -> None:
        subscription.closed = True
        if subscription in self.subscriptions:
            self.subscriptions.remove(subscription)

    async def close(self) -> None:
        raise NotImplementedError

    def dispatch(self, address: str, message: Received, matches: Any = None) -> None:
        """Hand a received message to every subscription on its address (`matches(sub, address)` for
        protocols with wildcards)."""
        for subscription in list(self.subscriptions):
            if matches(subscription.address, address) if matches else subscription.address == address:
                subscription.deliver(message)

    def fail(self, doing: str, exc: BaseException) -> TransportError:
        detail = str(exc) or type(exc).__name__
        return TransportError(f"{self.protocol} broker {self.broker.url}: {doing} failed: {detail}")
