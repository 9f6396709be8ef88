"""Kafka through aiokafka (the `[kafka]` extra), the maintained asyncio Kafka client.

A channel address is a topic. Subscribe-before-send: the consumer is assigned every partition of the
topic and positioned at its end before `subscribe` returns, so a reply produced afterwards is read
(no consumer group: nothing is committed, other consumers are unaffected). A publish waits for the
leader's acknowledgement. Headers are Kafka record headers. SASL with the scheme's user and password:
SCRAM-SHA-256 / -512 for the `scramSha256` / `scramSha512` scheme types, PLAIN for the others; TLS for
`kafka-secure` or the `tls` flag.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import MappingProxyType
from typing import Any

from .base import DEFAULT_BUFFER, MessageTransport, Received, Subscription

# The SASL mechanism of each AsyncAPI user/password scheme type (aiokafka's names); `plain` and
# `userPassword` (and a scheme of another type that yields a user) authenticate with PLAIN.
SASL_MECHANISMS = MappingProxyType({"scramSha256": "SCRAM-SHA-256", "scramSha512": "SCRAM-SHA-512"})


def _client_library() -> Any:
    import aiokafka

    return aiokafka


class KafkaTransport(MessageTransport):
    protocol = "kafka"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._producer: Any = None
        self._consumers: list[tuple[Any, asyncio.Task]] = []

    def _options(self) -> dict[str, Any]:
        broker = self.broker
        options: dict[str, Any] = {"bootstrap_servers": f"{broker.host}:{broker.port or 9092}"}
        if self.timeout:
            options["request_timeout_ms"] = int(self.timeout * 1000)
        sasl = broker.username is not None
        if broker.tls:
            options["ssl_context"] = self.tls_context
        options["security_protocol"] = ("SASL_" if sasl else "") + ("SSL" if broker.tls else "PLAINTEXT")
        if sasl:
            mechanism = SASL_MECHANISMS.get(broker.scheme_type or "", "PLAIN")
            options.update(sasl_mechanism=mechanism, sasl_plain_username=broker.username)
            options["sasl_plain_password"] = broker.password or ""
        return options

    async def connect(self) -> None:
        aiokafka = _client_library()
        producer = aiokafka.AIOKafkaProducer(**self._options())
        try:
            await asyncio.wait_for(producer.start(), self.timeout)
        except Exception as exc:
            await _quietly(producer.stop())
            if type(exc).__name__ == "KafkaConnectionError":  # its text lists socket tuples: say it plainly
                raise self.fail("connecting", ConnectionError("no Kafka broker answered")) from None
            raise self.fail("connecting", exc) from None
        self._producer = producer

    async def publish(
        self, address: str, payload: bytes, headers: list[tuple[str, str]], content_type: str | None = None
    ) -> None:
        records = [(name, value.encode()) for name, value in headers]
        try:
            await asyncio.wait_for(
                self._producer.send_and_wait(address, payload, headers=records), self.timeout
            )
        except Exception as exc:
            raise self.fail(f"producing to {address!r}", exc) from None

    async def subscribe(self, address: str, limit: int = DEFAULT_BUFFER) -> Subscription:
        aiokafka = _client_library()
        subscription = Subscription(address, limit)
        consumer = aiokafka.AIOKafkaConsumer(enable_auto_commit=False, **self._options())
        try:
            await asyncio.wait_for(consumer.start(), self.timeout)
            partitions = consumer.partitions_for_topic(address) or set()
            if not partitions:
                await asyncio.wait_for(self._producer.partitions_for(address), self.timeout)
                partitions = consumer.partitions_for_topic(address) or {0}
            assigned = [aiokafka.TopicPartition(address, p) for p in sorted(partitions)]
            consumer.assign(assigned)
            await asyncio.wait_for(consumer.seek_to_end(*assigned), self.timeout)
            for partition in assigned:  # resolve the end offsets now, not at the first fetch
                await asyncio.wait_for(consumer.position(partition), self.timeout)
        except Exception as exc:
            await _quietly(consumer.stop())
            raise self.fail(f"subscribing to {address!r}", exc) from None
        self.subscriptions.append(subscription)
        self._consumers.append((consumer, asyncio.create_task(self._read(consumer, subscription))))
        return subscription

    async def _read(self, consumer: Any, subscription: Subscription) -> None:
        try:
            async for record in consumer:
                over = self.too_large(record.topic, len(record.value or b""))
                if over is not None:  # before its headers are decoded or it is kept
                    subscription.deliver(over)
                    continue
                headers = {k: v.decode("utf-8", "replace") for k, v in record.headers or ()}
                subscription.deliver(Received(record.topic, record.value or b"", headers))
        except Exception:
            return

    async def close(self) -> None:
        for consumer, task in self._consumers:
            task.cancel()
            await _quietly(consumer.stop())
        self._consumers.clear()
        if self._producer is not None:
            await _quietly(self._producer.stop())
            self._producer = None


async def _quietly(closing: Any) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(closing, 10)
