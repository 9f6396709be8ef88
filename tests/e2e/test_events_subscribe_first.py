"""Subscribe-before-send holds whatever the network: a transport's `subscribe` returns only once the
broker has the subscription, and `publish` once it has the message. Over a link that delays what the
engine sends (tests/servers/lagging_link.py), a message another client publishes straight to the broker
the moment `subscribe` returns must arrive; and once `publish` returns, a client that talks to the
broker directly has the message after one round trip of its own. (With one connection for both, the
broker's order would hide the difference; a reply triggered by an HTTP step, or sent through another
connection, does not wait for the link.)

NATS confirms with PING/PONG round trips after the SUB or PUB (its commands cross the link a line at a
time, so the PING nats-py writes ahead of a queued SUB reaches the server first, as it can on a real
network); MQTT with the broker's SUBACK / PUBACK."""

from __future__ import annotations

import asyncio

import pytest

from arazzo_runner.messages.base import Broker
from tests.e2e.eventkit import mqtt_broker, nats_server
from tests.servers.lagging_link import LaggingLink

LAG = 1.0  # seconds what the engine sends takes to reach the broker (each line, over NATS)
SUBJECT = {"nats": "lag.replies", "mqtt": "lag/replies"}


class Direct:
    """A client of the broker itself (no lag): subscribe, publish, and what it has received."""

    def __init__(self, protocol: str, host: str, port: int) -> None:
        self.protocol, self.host, self.port = protocol, host, port
        self.received: list[bytes] = []

    async def __aenter__(self) -> Direct:
        if self.protocol == "nats":
            import nats

            self.client = await nats.connect(f"nats://{self.host}:{self.port}")
        else:
            import aiomqtt

            self.client = aiomqtt.Client(self.host, self.port)
            await self.client.__aenter__()
            self.reader = asyncio.create_task(self._read_mqtt())
        return self

    async def __aexit__(self, *exc) -> None:
        if self.protocol == "nats":
            await self.client.close()
        else:
            self.reader.cancel()
            await self.client.__aexit__(None, None, None)

    async def _read_mqtt(self) -> None:
        async for message in self.client.messages:
            self.received.append(bytes(message.payload))

    async def subscribe(self, address: str) -> None:
        if self.protocol == "nats":

            async def keep(msg) -> None:
                self.received.append(msg.data)

            await self.client.subscribe(address, cb=keep)
            await self.client.flush()
        else:
            await self.client.subscribe(address, qos=1)

    async def publish(self, address: str, payload: bytes) -> None:
        if self.protocol == "nats":
            await self.client.publish(address, payload)
            await self.client.flush()
        else:
            await self.client.publish(address, payload, qos=1)

    async def round_trip(self) -> None:
        """Whatever the broker sent this client before answering is read when this returns."""
        if self.protocol == "nats":
            await self.client.flush()
        else:  # a message to itself: the broker delivers in order
            await self.client.subscribe("lag/echo", qos=1)
            await self.client.publish("lag/echo", b"echo", qos=1)
            while b"echo" not in self.received:
                await asyncio.sleep(0.01)


def _transport(protocol: str, host: str, port: int, version: str | None):
    if protocol == "nats":
        from arazzo_runner.messages.nats import NatsTransport

        return NatsTransport(Broker(protocol="nats", host=host, port=port), timeout=30)
    from arazzo_runner.messages.mqtt import MqttTransport

    broker = Broker(protocol="mqtt", host=host, port=port, protocol_version=version)
    return MqttTransport(broker, timeout=30)


def _broker(protocol: str):
    return nats_server() if protocol == "nats" else mqtt_broker()


CASES = [("nats", None), ("mqtt", None), ("mqtt", "5")]


@pytest.mark.parametrize(("protocol", "version"), CASES)
def test_subscribe_returns_once_the_broker_has_the_subscription(protocol, version):
    async def scenario(host: str, port: int, link: LaggingLink) -> tuple[bool, bytes]:
        transport = _transport(protocol, link.host, link.port, version)
        await transport.connect()
        try:
            subscription = await transport.subscribe(SUBJECT[protocol])
            async with Direct(protocol, host, port) as direct:
                await direct.publish(SUBJECT[protocol], b'{"n": 1}')
            arrived = await subscription.wait(30)
            return arrived, subscription.take().payload if arrived else b""
        finally:
            await transport.close()

    with _broker(protocol) as (host, port), LaggingLink(host, port, LAG, protocol == "nats") as link:
        assert asyncio.run(scenario(host, port, link)) == (True, b'{"n": 1}')


@pytest.mark.parametrize(("protocol", "version"), CASES)
def test_publish_returns_once_the_broker_has_the_message(protocol, version):
    async def scenario(host: str, port: int, link: LaggingLink) -> list[bytes]:
        transport = _transport(protocol, link.host, link.port, version)
        await transport.connect()
        try:
            async with Direct(protocol, host, port) as direct:
                await direct.subscribe(SUBJECT[protocol])
                await transport.publish(SUBJECT[protocol], b'{"n": 2}', [])
                await direct.round_trip()
                return [m for m in direct.received if m != b"echo"]
        finally:
            await transport.close()

    with _broker(protocol) as (host, port), LaggingLink(host, port, LAG, protocol == "nats") as link:
        assert asyncio.run(scenario(host, port, link)) == [b'{"n": 2}']
