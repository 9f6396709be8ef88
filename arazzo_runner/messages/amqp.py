"""AMQP 0-9-1 (RabbitMQ) through aio-pika (the `[amqp]` extra), the maintained asyncio AMQP client.

A channel address is a routing key on the default exchange (a queue of that name receives it), or
`exchange/routing-key` for a named exchange. A subscription to `exchange/key` declares an exclusive,
auto-deleted queue bound to the key before `subscribe` returns, so a reply published afterwards is
routed to it, and every subscription gets its own copy. A queue of the default exchange is the
service's own: the run takes its messages with one consumer per queue and hands each to every
subscription on the address (two consumers on one queue would share the messages out between them,
and a reply could land in the other step's buffer). Unsubscribing cancels the consumer once no
subscription needs it, so the queue's later messages stay there for others.

What may not exist is looked up on a channel of its own first, because RabbitMQ closes the channel a
failed declaration was made on, and with the run's channel every consumer of the run: an exchange that
does not exist fails its step with the broker's words (404) and the run goes on; a default-exchange
queue that exists is consumed as it is (a service's durable queue: declaring it again non-durable
would be refused, 406); one that does not is declared (non-durable, kept after the run, so that a
reply sent to it is kept until read).

Headers are AMQP message headers, and the message properties AsyncAPI's AMQP examples read as headers
(`$message.header#/correlation_id`): a received message's `PROPERTIES` (and `user_id`, `timestamp`)
show as headers of those names, unless its headers table has one so named; a header sent under one of
those names sets the property. A message sent carries the step's content type. Publisher confirms: a
publish returns once the broker took it; one the broker routed to no queue comes back (mandatory) and
the send fails, since nothing could ever receive it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .base import DEFAULT_BUFFER, MessageTransport, Received, Subscription

# message properties a header of the same name sets when sent (`user_id` is checked by RabbitMQ
# against the connection's user, so it stays in the headers table)
PROPERTIES = (
    "correlation_id",
    "message_id",
    "reply_to",
    "type",
    "app_id",
    "content_type",
    "content_encoding",
)
_READ = (*PROPERTIES, "user_id", "timestamp")


def _client_library() -> Any:
    import aio_pika

    return aio_pika


class AmqpTransport(MessageTransport):
    protocol = "amqp"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._connection: Any = None
        self._channel: Any = None
        self._queues: dict[str, tuple[Any, str]] = {}  # default-exchange queue -> (queue, consumer tag)
        self._exchanges: set[str] = set()  # named exchanges known to exist

    async def connect(self) -> None:
        aio_pika = _client_library()
        broker = self.broker
        try:
            self._connection = await asyncio.wait_for(
                aio_pika.connect(
                    host=broker.host,
                    port=broker.port or (5671 if broker.tls else 5672),
                    login=broker.username or "guest",
                    password=broker.password or "guest",
                    virtualhost=broker.path.strip("/") or "/",
                    ssl=broker.tls,
                    ssl_context=self.tls_context if broker.tls else None,
                    timeout=self.timeout,
                ),
                self.timeout,
            )
            self._channel = await self._connection.channel(publisher_confirms=True, on_return_raises=True)
        except Exception as exc:
            raise self.fail("connecting", exc) from None

    async def _exists(self, kind: str, name: str) -> bool:
        """Does exchange or queue `name` exist? Asked on a channel of its own (see the docstring)."""
        channel = await asyncio.wait_for(self._connection.channel(publisher_confirms=False), self.timeout)
        try:
            declare = channel.declare_exchange if kind == "exchange" else channel.declare_queue
            await asyncio.wait_for(declare(name, passive=True), self.timeout)
        except Exception as exc:
            from aiormq.exceptions import ChannelNotFoundEntity  # aio-pika's protocol layer

            if isinstance(exc, ChannelNotFoundEntity):
                return False
            raise
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(channel.close(), self.timeout)
        return True

    async def _exchange(self, name: str) -> Any:
        if not name:
            return self._channel.default_exchange
        if name not in self._exchanges:
            if not await self._exists("exchange", name):
                raise LookupError(f"NOT_FOUND - no exchange {name!r} on the broker")
            self._exchanges.add(name)
        return await self._channel.get_exchange(name, ensure=False)

    async def publish(
        self, address: str, payload: bytes, headers: list[tuple[str, str]], content_type: str | None = None
    ) -> None:
        aio_pika = _client_library()
        name, slash, key = address.partition("/")
        if not slash:
            name, key = "", address
        properties = {n: v for n, v in headers if n in PROPERTIES}
        table = {n: v for n, v in headers if n not in PROPERTIES}
        if content_type:
            properties.setdefault("content_type", content_type)
        try:
            exchange = await self._exchange(name)
            message = aio_pika.Message(body=payload, headers=table or None, **properties)
            await asyncio.wait_for(exchange.publish(message, routing_key=key), self.timeout)
        except Exception as exc:
            if _returned(exc):
                where = f"exchange {name!r}" if name else "the default exchange (no queue of that name)"
                exc = LookupError(f"the broker routed it to no queue: nothing bound to {key!r} on {where}")
            raise self.fail(f"publishing to {address!r}", exc) from None

    async def subscribe(self, address: str, limit: int = DEFAULT_BUFFER) -> Subscription:
        subscription = Subscription(address, limit)
        name, slash, key = address.partition("/")
        self.subscriptions.append(subscription)
        try:
            if slash:
                exchange = await self._exchange(name)
                queue = await self._channel.declare_queue(exclusive=True, auto_delete=True)
                await queue.bind(exchange, routing_key=key)
                consumer = _deliverer(address, subscription.deliver, self.too_large)
                subscription.cancel = (queue, await queue.consume(consumer))
            elif address not in self._queues:
                exists = await self._exists("queue", address)
                queue = await self._channel.declare_queue(address, passive=exists, auto_delete=False)
                tag = await queue.consume(
                    _deliverer(address, lambda message: self.dispatch(address, message), self.too_large)
                )
                self._queues[address] = (queue, tag)
        except Exception as exc:
            self.subscriptions.remove(subscription)
            raise self.fail(f"subscribing to {address!r}", exc) from None
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        await super().unsubscribe(subscription)
        consumer = subscription.cancel
        if consumer is None and not any(s.address == subscription.address for s in self.subscriptions):
            consumer = self._queues.pop(subscription.address, None)
        if consumer is not None and self._connection is not None:
            queue, tag = consumer
            with contextlib.suppress(Exception):
                await asyncio.wait_for(queue.cancel(tag), self.timeout)

    async def close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._connection.close(), self.timeout)
            self._connection = None


def _returned(exc: BaseException) -> bool:
    """Did the broker return the message (mandatory: it was routed to no queue)?"""
    from aiormq.exceptions import DeliveryError

    return isinstance(exc, DeliveryError)


def _headers(message: Any) -> dict[str, str]:
    """The headers table, then the message properties by name (see the docstring)."""
    headers = {str(k): str(v) for k, v in (message.headers or {}).items()}
    for name in _READ:
        value = getattr(message, name, None)
        if value is not None and value != "" and name not in headers:
            headers[name] = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return headers


def _deliverer(address: str, deliver: Any, too_large: Any) -> Any:
    """The consumer callback: acknowledge the message and hand it on as a `Received` (one over the size
    limit as the error that says so, before its body is copied or its headers decoded)."""

    async def on_message(message: Any) -> None:
        async with message.process():
            over = too_large(address, len(message.body))
            if over is not None:
                deliver(over)
                return
            deliver(Received(address, bytes(message.body), _headers(message)))

    return on_message
