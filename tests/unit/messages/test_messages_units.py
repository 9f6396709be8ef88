"""Units of the message path: the bounded subscription buffer, the transport registry and its missing
extras, AsyncAPI 2.6 read as 3.0, correlation values, broker URLs."""

from __future__ import annotations

import asyncio
import sys

import pytest
import yaml

from arazzo_runner import messages
from arazzo_runner.executor.brokers import BrokerError, _from_url, _split_host
from arazzo_runner.executor.message_values import correlation_of, decode_payload, same_value
from arazzo_runner.extras import install_hint
from arazzo_runner.loader.pointer import ABSENT
from arazzo_runner.messages import MissingExtra, Received, Subscription, TransportError, transport_class
from arazzo_runner.sources.asyncapi import load_asyncapi


def test_a_full_subscription_drops_the_oldest_and_counts_it() -> None:
    subscription = Subscription("a", limit=3)
    for n in range(5):
        subscription.deliver(Received("a", str(n).encode()))
    assert (subscription.dropped, subscription.seen) == (2, 5)
    assert [subscription.take().payload for _ in range(3)] == [b"2", b"3", b"4"]
    assert subscription.take() is None


def test_waiting_ends_with_a_message_or_the_timeout() -> None:
    async def scenario() -> tuple[bool, bool]:
        subscription = Subscription("a")
        empty = await subscription.wait(0.01)
        asyncio.get_running_loop().call_soon(subscription.deliver, Received("a", b"x"))
        return empty, await subscription.wait(5)

    assert asyncio.run(scenario()) == (False, True)


def test_a_missing_client_library_names_its_extra(monkeypatch) -> None:
    monkeypatch.setattr(messages, "find_spec", lambda name: None)
    monkeypatch.delitem(sys.modules, "aiokafka", raising=False)  # (an imported library is installed)
    with pytest.raises(MissingExtra) as caught:
        transport_class("kafka")
    assert str(caught.value) == (
        f"protocol 'kafka' needs the aiokafka client: {install_hint('kafka')} (or [events] for every broker)"
    )
    assert "\n" not in str(caught.value)


def test_an_unknown_protocol_says_which_are_known() -> None:
    with pytest.raises(
        TransportError, match=r"protocol 'pigeon' has no transport in this engine \(known: amqp"
    ):
        transport_class("pigeon")


@pytest.mark.parametrize("protocol", ["mqtt", "secure-mqtt", "nats", "ws", "wss", "kafka", "amqp", "amqps"])
def test_every_listed_protocol_has_its_transport(protocol: str) -> None:
    entry = messages.protocol_entry(protocol)
    assert entry is not None
    _, name, _, extra, _ = entry
    assert name.endswith("Transport") and extra in ("mqtt", "nats", "websocket", "kafka", "amqp")


def test_asyncapi_2_6_publish_and_subscribe_map_to_receive_and_send(tmp_path) -> None:
    doc = {
        "asyncapi": "2.6.0",
        "info": {"title": "t", "version": "1"},
        "servers": {
            "prod": {"url": "mqtt://broker.example:1883", "protocol": "mqtt", "protocolVersion": "5"}
        },
        "channels": {
            "orders/{id}": {
                "parameters": {"id": {"schema": {"type": "string"}}},
                "publish": {
                    "operationId": "placeOrder",
                    "message": {"name": "Order", "payload": {"type": "object"}},
                },
                "subscribe": {
                    "operationId": "orderPlaced",
                    "message": {
                        "oneOf": [{"name": "A", "correlationId": {"location": "$message.header#/cid"}}]
                    },
                },
            }
        },
    }
    path = tmp_path / "a.yaml"
    path.write_text(yaml.safe_dump(doc))
    description = load_asyncapi(str(path))
    assert description.operation("placeOrder").action == "receive"
    placed = description.operation("orderPlaced")
    assert placed.action == "send"
    assert placed.channel.address == "orders/{id}"
    assert [m.correlation_location for m in placed.messages] == ["$message.header#/cid"]
    server = description.servers["prod"]
    assert (server.host, server.protocol_version) == ("broker.example:1883", "5")
    assert description.channel_at("#/channels/orders~1{id}").key == "orders/{id}"


def test_correlation_values_at_header_and_payload_locations() -> None:
    headers = {"Order-Request-Id": "r-1"}
    assert correlation_of("$message.header#/order-request-id", headers, None) == "r-1"
    assert correlation_of("$message.payload#/meta/id", {}, {"meta": {"id": 5}}) == 5
    assert correlation_of("$message.payload#/nope", {}, {}) is ABSENT
    assert same_value(5, "5") and not same_value(ABSENT, None) and not same_value("a", "b")


def test_payloads_are_decoded_as_json_else_text_with_a_note() -> None:
    assert decode_payload(b'{"a": 1}', "application/json") == ({"a": 1}, None)
    text, note = decode_payload(b"not json", "application/json")
    assert text == "not json" and "not JSON" in note
    assert decode_payload(b"\xff", "application/octet-stream") == (b"\xff", None)


def test_a_received_payload_is_read_by_the_rule_for_json_from_outside() -> None:
    """128 levels at most (a broker's message is JSON from outside, not a document: not 500), a lone
    surrogate as U+FFFD."""
    deep = b"[" * 129 + b"]" * 129
    assert decode_payload(deep, "application/json") == (
        deep.decode(),
        "the message payload nests deeper than 128 levels: read as text",
    )
    assert decode_payload(deep, None) == (deep.decode(), None)
    assert decode_payload(b'{"a": "x\\ud800"}', "application/json") == ({"a": "x\ufffd"}, None)


def test_broker_urls() -> None:
    broker = _from_url("mqtts://[::1]:8883/base", None)
    assert (broker.protocol, broker.host, broker.port, broker.path, broker.tls) == (
        "mqtts",
        "::1",
        8883,
        "/base",
        True,
    )
    assert broker.url == "mqtts://[::1]:8883/base"
    assert _split_host("localhost:1883") == ("localhost", 1883)
    with pytest.raises(BrokerError):
        _from_url("nope", None)


def test_broker_credentials_are_keyed_by_the_source_s_family_name() -> None:
    """A nested document's AsyncAPI source `a` is `kid/a`: the top document's `--auth a:user...` is not
    its credential (as for HTTP sources, `tests/e2e/test_credentials_family.py`)."""
    from types import SimpleNamespace

    from arazzo_runner.executor.brokers import _credentials

    scheme = {"type": "userPassword"}
    target = SimpleNamespace(
        source="a",
        operation=SimpleNamespace(security=["user"]),
        description=SimpleNamespace(security_schemes={"user": scheme}),
    )
    auth = {"a:user.username": "top", "a:user.password": "top-pw", "kid/a:user": "kid:kid-pw"}
    options = SimpleNamespace(auth=auth, environ={}, secrets=set())
    assert _credentials(options, {}, target, None, "a") == ("top", "top-pw", "userPassword")
    assert _credentials(options, {}, target, None, "kid/a") == ("kid", "kid-pw", "userPassword")
    assert "top-pw" in options.secrets and "kid-pw" in options.secrets


@pytest.mark.parametrize(
    "scheme_type, mechanism",
    [
        ("scramSha256", "SCRAM-SHA-256"),
        ("scramSha512", "SCRAM-SHA-512"),
        ("plain", "PLAIN"),
        ("userPassword", "PLAIN"),
    ],
)
def test_kafka_authenticates_with_the_mechanism_of_the_scheme_type(scheme_type, mechanism):
    """The AsyncAPI scheme a user and password come from says which SASL mechanism the broker expects: a
    SCRAM cluster refuses PLAIN."""
    from types import SimpleNamespace

    from arazzo_runner.executor.brokers import choose_broker
    from arazzo_runner.messages.kafka import KafkaTransport

    scheme = {"type": scheme_type}
    server = SimpleNamespace(
        name="b",
        protocol="kafka",
        host="127.0.0.1:9092",
        pathname="",
        bindings={},
        protocol_version=None,
        variables={},
        security=["user"],
    )
    target = SimpleNamespace(
        source="a",
        channel=SimpleNamespace(servers=["b"], key="c"),
        operation=SimpleNamespace(security=[]),
        description=SimpleNamespace(servers={"b": server}, security_schemes={"user": scheme}),
    )
    options = SimpleNamespace(
        servers={}, server_variables={}, environ={}, secrets=set(), auth={"a:user": "alice:s3cret"}
    )
    broker, _ = choose_broker(options, {}, target)
    assert (broker.username, broker.password, broker.scheme_type) == ("alice", "s3cret", scheme_type)
    settings = KafkaTransport(broker, timeout=5)._options()
    assert settings["security_protocol"] == "SASL_PLAINTEXT"
    assert (settings["sasl_mechanism"], settings["sasl_plain_username"]) == (mechanism, "alice")
    assert "s3cret" in options.secrets


def test_mqtt5_properties_are_headers_unless_a_user_property_has_the_name() -> None:
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    from arazzo_runner.messages.mqtt import _headers, _properties

    received = Properties(PacketTypes.PUBLISH)
    received.UserProperty = [("contentType", "mine"), ("traceId", "t-1")]
    received.ContentType = "application/json"
    received.CorrelationData = b"cd-1"
    received.ResponseTopic = "replies/1"
    assert _headers(received) == {
        "contentType": "mine",  # the user property the sender named so
        "traceId": "t-1",
        "correlationData": "cd-1",
        "responseTopic": "replies/1",
    }
    sent = _properties([("correlationData", "cd-2"), ("traceId", "t-2")], "application/json")
    assert (sent.CorrelationData, sent.UserProperty, sent.ContentType) == (
        b"cd-2",
        [("traceId", "t-2")],
        "application/json",
    )
    assert _properties([("contentType", "text/plain")], "application/json").ContentType == "text/plain"
