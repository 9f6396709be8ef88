"""Message transports for AsyncAPI steps, beside the HTTP one (`arazzo_runner.http`).

Chosen by the AsyncAPI server's `protocol`; each protocol's client library is an optional extra,
imported only when a run opens a connection with it:

| protocol (AsyncAPI)            | module      | library    | extra         |
|--------------------------------|-------------|------------|---------------|
| mqtt, secure-mqtt, mqtts       | `mqtt`      | aiomqtt    | `[mqtt]`      |
| nats, secure-nats              | `nats`      | nats-py    | `[nats]`      |
| ws, wss                        | `websocket` | websockets | `[websocket]` |
| kafka, kafka-secure            | `kafka`     | aiokafka   | `[kafka]`     |
| amqp, amqps                    | `amqp`      | aio-pika   | `[amqp]`      |

`[events]` installs all of them.
"""

from __future__ import annotations

import sys
from importlib.util import find_spec
from typing import Any

from .base import (
    DEFAULT_BUFFER,
    Broker,
    MessageTransport,
    MissingExtra,
    Received,
    Subscription,
    TransportError,
)

__all__ = [
    "DEFAULT_BUFFER",
    "Broker",
    "MessageTransport",
    "MissingExtra",
    "Received",
    "Subscription",
    "TransportError",
    "protocol_entry",
    "transport_class",
]

# protocol -> (module, class, import name of the library, extra, TLS)
PROTOCOLS = {
    "mqtt": ("mqtt", "MqttTransport", "aiomqtt", "mqtt", False),
    "mqtts": ("mqtt", "MqttTransport", "aiomqtt", "mqtt", True),
    "secure-mqtt": ("mqtt", "MqttTransport", "aiomqtt", "mqtt", True),
    "nats": ("nats", "NatsTransport", "nats", "nats", False),
    "secure-nats": ("nats", "NatsTransport", "nats", "nats", True),
    "tls": ("nats", "NatsTransport", "nats", "nats", True),
    "ws": ("websocket", "WebSocketTransport", "websockets", "websocket", False),
    "wss": ("websocket", "WebSocketTransport", "websockets", "websocket", True),
    "kafka": ("kafka", "KafkaTransport", "aiokafka", "kafka", False),
    "kafka-secure": ("kafka", "KafkaTransport", "aiokafka", "kafka", True),
    "amqp": ("amqp", "AmqpTransport", "aio_pika", "amqp", False),
    "amqps": ("amqp", "AmqpTransport", "aio_pika", "amqp", True),
}


def protocol_entry(protocol: str) -> tuple[str, str, str, str, bool] | None:
    return PROTOCOLS.get(protocol.lower())


def transport_class(protocol: str) -> type[MessageTransport]:
    """The transport for an AsyncAPI protocol; `MissingExtra` (one line, naming the extra) when its
    client library is not installed, `TransportError` for a protocol no transport speaks."""
    entry = protocol_entry(protocol)
    if entry is None:
        known = ", ".join(sorted(PROTOCOLS))
        raise TransportError(f"protocol '{protocol}' has no transport in this engine (known: {known})")
    module, _, library, extra, _ = entry
    if sys.modules.get(library) is None and find_spec(library) is None:  # (a path search: ~80 µs)
        from ..extras import install_hint

        raise MissingExtra(
            f"protocol '{protocol}' needs the {library} client: {install_hint(extra)} "
            "(or [events] for every broker)"
        )
    return _load(module)


def _load(module: str) -> type[MessageTransport]:
    """The transport class of a module, imported now (each module imports its client when used)."""
    if module == "mqtt":
        from .mqtt import MqttTransport

        return MqttTransport
    if module == "nats":
        from .nats import NatsTransport

        return NatsTransport
    if module == "websocket":
        from .websocket import WebSocketTransport

        return WebSocketTransport
    if module == "kafka":
        from .kafka import KafkaTransport

        return KafkaTransport
    from .amqp import AmqpTransport

    return AmqpTransport


def uses_tls(protocol: str) -> bool:
    entry = protocol_entry(protocol)
    return bool(entry and entry[4])


def new_transport(
    broker: Broker, *, timeout: float | None, tls_context: Any = None, max_message: int | None = None
) -> MessageTransport:
    kind = transport_class(broker.protocol)
    if max_message is None:
        return kind(broker, timeout=timeout, tls_context=tls_context)
    return kind(broker, timeout=timeout, tls_context=tls_context, max_message=max_message)
