"""AMQP 0-9-1 (RabbitMQ) through aio-pika (the `[amqp]` extra), the maintained asyncio AMQP client.

A channel address is a routing key on the default exchange (a queue of that name receives it), or
`exchange/routing-key` for a named exchange. A subscription to `exchange/key` declares an exclusive,
auto-deleted queue bound to the key before `subscribe` returns, so a reply published afterwards is
routed to it, and every subscription gets its own copy. A queue of the default exchange is the
service's own: the run takes its messages with one consumer per queue and hands each to every
subscription on the address (two consumers on one queue would share the messages out between them,
and a reply could land in the other step's buffer). Unsubscribing cancels the consumer once no
subscription needs it, so the queue's later messages stay there for others. Headers are AMQP message
headers. Publisher confirms: a publish returns once the broker took it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .base import DEFAULT_BUFFER, MessageTransport, Received, Subscription


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
            self._channel = await self._connection.channel(publisher_confirms=True)
        except Exception as exc:
            raise self.fail("connecting", exc) from None

    async def _exchange(self, address: str) -> tuple[Any, str]:
        name, slash, key = address.partition("/")
        if not slash:
            return self._channel.default_exchange, address
        return await self._channel.get_exchange(name), key

    async def publish(
        self, address: str, payload: bytes, headers: list[tuple[str, str]], content_type: str | None = None
    ) -> None:
        aio_pika = _client_library()
        try:
            exchange, key = await self._exchange(address)
            message = aio_pika.Message(body=payload, headers=dict(headers) or None, content_type=content_type)
            await asyncio.wait_for(exchange.publish(message, routing_key=key), self.timeout)
        except Exception as exc:
            raise self.fail(f"publishing to {address!r}", exc) from None

    async def subscribe(self, address: str, limit: int = DEFAULT_BUFFER) -> Subscription:
        subscription = Subscription(address, limit)
        name, slash, key = address.partition("/")
        self.subscriptions.append(subscription)
        try:
            if slash:
                queue = await self._channel.declare_queue(exclusive=True, auto_delete=True)
                await queue.bind(await self._channel.get_exchange(name), routing_key=key)
                subscription.cancel = (queue, await queue.consume(_deliverer(address, subscription.deliver)))
            elif address not in self._queues:
                queue = await self._channel.declare_queue(address, passive=False, auto_delete=False)
                tag = await queue.consume(
                    _deliverer(address, lambda message: self.dispatch(address, message))
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


def _deliverer(address: str, deliver: Any) -> Any:
    """The consumer callback: acknowledge the message and hand it on as a `Received`."""

    async def on_message(message: Any) -> None:
        async with message.process():
            headers = {str(k): str(v) for k, v in (message.headers or {}).items()}
            deliver(Received(address, bytes(message.body), headers))

    return on_message
