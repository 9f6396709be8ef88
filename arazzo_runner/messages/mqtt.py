"""MQTT 3.1.1 and 5 through aiomqtt (the `[mqtt]` extra).

aiomqtt is the maintained asyncio client over paho-mqtt (the Eclipse reference client): both MQTT
versions, TLS, and a `subscribe` that returns once the broker acknowledged it (SUBACK), which is what
subscribe-before-send needs. The version is the AsyncAPI server's `protocolVersion` ("5" for MQTT 5),
3.1.1 otherwise (every broker speaks it). Headers are MQTT 5 user properties; an MQTT 3.1.1 message
has none, so a step that sends headers over it fails rather than dropping them. MQTT 5's own
request/response properties are headers too, named as AsyncAPI's MQTT message binding names them
(`correlationData`, `responseTopic`, `contentType`): a header so named sets the property when sent,
and a received property shows as that header (unless a user property has the name). A message sent
over MQTT 5 carries its content type. QoS 1 both ways: a publish returns once the broker has the
message (PUBACK).
"""

from __future__ import annotations

import asyncio
import functools
import socket
from types import MappingProxyType
from typing import Any

from .base import DEFAULT_BUFFER, MessageTransport, Received, Subscription, TransportError

# MQTT 5 properties read and written as headers: header name (AsyncAPI's MQTT binding) -> paho's name
PROPERTIES = MappingProxyType(
    {"contentType": "ContentType", "correlationData": "CorrelationData", "responseTopic": "ResponseTopic"}
)


# Small packets go out at once: with Nagle's algorithm a packet written while another is unacknowledged
# (an UNSUBSCRIBE or the next PUBLISH right after the PUBACK of a reply) waits for the broker's delayed
# ACK, ~40 ms on Linux.
_NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


def _client_library() -> Any:
    import aiomqtt

    return aiomqtt


class MqttTransport(MessageTransport):
    protocol = "mqtt"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.v5 = (self.broker.protocol_version or "").strip() in ("5", "5.0")
        self.headers_supported = self.v5
        self._client: Any = None
        self._reader: asyncio.Task | None = None
        # addresses the broker acknowledged a subscription to, while one of `subscriptions` is on them:
        # a workflow's receive steps on one address then cost one SUBSCRIBE round trip, not one each
        self._acked: set[str] = set()

    async def connect(self) -> None:
        aiomqtt = _client_library()
        version = aiomqtt.ProtocolVersion.V5 if self.v5 else aiomqtt.ProtocolVersion.V311
        broker = self.broker
        client = aiomqtt.Client(
            broker.host,
            broker.port or (8883 if broker.tls else 1883),
            username=broker.username,
            password=broker.password,
            identifier=broker.client_id,
            protocol=version,
            timeout=self.timeout,
            tls_context=self.tls_context if broker.tls else None,
            socket_options=_NO_DELAY,
        )
        try:
            await asyncio.wait_for(client.__aenter__(), self.timeout)
        except (aiomqtt.MqttError, OSError, asyncio.TimeoutError) as exc:
            raise self.fail("connecting", exc) from None
        self._client = client
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        aiomqtt = _client_library()
        try:
            async for message in self._client.messages:
                topic = str(message.topic)
                raw = message.payload  # paho read the packet whole: its size is known before any copy
                over = self.too_large(topic, len(raw) if isinstance(raw, (bytes, bytearray, str)) else 0)
                if over is not None:
                    self.dispatch(topic, over, _matches)
                    continue
                payload = (
                    raw
                    if isinstance(raw, bytes)
                    else bytes(raw)
                    if isinstance(raw, bytearray)
                    else str(raw).encode()
                )
                headers = _headers(getattr(message, "properties", None))
                self.dispatch(topic, Received(topic, payload, headers), _matches)
        except aiomqtt.MqttError:
            return  # the connection ended; waiting steps time out with their own message

    async def publish(
        self, address: str, payload: bytes, headers: list[tuple[str, str]], content_type: str | None = None
    ) -> None:
        if headers and not self.v5:
            raise TransportError(
                f"MQTT 3.1.1 messages carry no headers ({', '.join(n for n, _ in headers)}): "
                "set the AsyncAPI server's protocolVersion to 5 for MQTT 5 user properties"
            )
        properties = _properties(headers, content_type) if self.v5 else None
        try:
            await asyncio.wait_for(
                self._client.publish(address, payload, qos=1, properties=properties), self.timeout
            )
        except (_client_library().MqttError, asyncio.TimeoutError) as exc:
            raise self.fail(f"publishing to {address!r}", exc) from None

    async def subscribe(self, address: str, limit: int = DEFAULT_BUFFER) -> Subscription:
        subscription = Subscription(address, limit)
        self.subscriptions.append(subscription)  # before SUBACK: nothing that arrives is lost
        if address in self._acked:  # the broker routes the address here already: no round trip
            return subscription
        try:
            await asyncio.wait_for(self._client.subscribe(address, qos=1), self.timeout)
        except (_client_library().MqttError, ValueError, asyncio.TimeoutError) as exc:
            self.subscriptions.remove(subscription)
            raise self.fail(f"subscribing to {address!r}", exc) from None
        self._acked.add(address)
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        await super().unsubscribe(subscription)
        if self._client is None:
            return
        if not any(s.address == subscription.address for s in self.subscriptions):
            self._acked.discard(subscription.address)
            try:
                await asyncio.wait_for(self._client.unsubscribe(subscription.address), self.timeout)
            except (_client_library().MqttError, asyncio.TimeoutError):
                pass  # closing anyway: the subscription ends with the connection

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._client is not None:
            try:
                await asyncio.wait_for(self._client.__aexit__(None, None, None), self.timeout)
            except (_client_library().MqttError, asyncio.TimeoutError, OSError):
                pass  # the broker went away first: nothing left to close
            self._client = None


def _properties(headers: list[tuple[str, str]], content_type: str | None) -> Any:
    """An MQTT 5 PUBLISH's properties: user properties, and the headers named like MQTT 5's own."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    properties = Properties(PacketTypes.PUBLISH)
    users = []
    for name, value in headers:
        own = PROPERTIES.get(name)
        if own is None:
            users.append((name, value))
        else:
            setattr(properties, own, value.encode() if own == "CorrelationData" else value)
    if users:
        properties.UserProperty = users
    if content_type and not any(name == "contentType" for name, _ in headers):
        properties.ContentType = content_type
    return properties


def _headers(properties: Any) -> dict[str, str]:
    """A received message's headers: its user properties, then MQTT 5's own properties by name."""
    headers = {str(name): str(value) for name, value in getattr(properties, "UserProperty", None) or ()}
    for name, own in PROPERTIES.items():
        value = getattr(properties, own, None)
        if value is not None and name not in headers:
            headers[name] = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return headers


@functools.lru_cache(maxsize=1024)
def _matches(subscribed: str, topic: str) -> bool:
    """MQTT topic filter matching (`+` one level, `#` the rest), as the broker routes; asked for each
    message and subscription (a workflow's receive steps on one address each have one), so remembered."""
    if subscribed == topic:
        return True
    return _client_library().Topic(topic).matches(subscribed)
