"""A broker message larger than `--max-response-bytes` is never decoded or kept (issue 23, point 6): the
receive that takes it fails, saying how large it was and which limit it broke; a message within the
limit is received as before. Real brokers, started by the tests (MQTT: mosquitto; NATS: nats-server; AMQP:
RabbitMQ; Kafka: tansu; WebSocket: a websockets server).

The workflow sends a 200 KB order request and receives it back on the same channel (its subscription
is made before the send, as every receive's is), under a limit of 4 KiB; the same workflow under the
default limit passes. Over WebSocket the order service answers on the connection: under a 40-byte
limit its first answer is already too large, and the client refuses the frame from its length, before
reading it.
"""

from __future__ import annotations

import contextlib
import json
import re

import pytest

import arazzo_runner
from tests.e2e.eventkit import (
    events_doc,
    kafka_broker,
    kafka_broker_binary,
    mqtt_broker,
    nats_server,
    nats_server_binary,
    orders_asyncapi,
    receive_step,
    responder,
    send_step,
    websocket_server,
    write_events,
)
from tests.untested import skip_untested

BIG = 200_000  # bytes of the request's `mode` member
LIMIT = 4096


@contextlib.contextmanager
def _broker(protocol: str, request: pytest.FixtureRequest):
    if protocol == "mqtt":
        with mqtt_broker() as (host, port):
            yield f"mqtt://{host}:{port}"
    elif protocol == "nats":
        if not nats_server_binary():
            skip_untested("nats-server is not installed (the test extra)", "the NATS message-size bound")
        with nats_server() as (host, port):
            yield f"nats://{host}:{port}"
    elif protocol == "amqp":  # the session's RabbitMQ (tests/e2e/conftest.py)
        yield request.getfixturevalue("rabbitmq_broker").url
    else:
        if not kafka_broker_binary():
            skip_untested(
                "the Kafka-compatible broker is not installed (the test extra)",
                "the Kafka message-size bound",
            )
        with kafka_broker() as (host, port):
            _create_topic(host, port, _channel("kafka"))
            yield f"kafka://{host}:{port}"


def _create_topic(host: str, port: int, topic: str) -> None:
    """The topic made before the tests: a receive subscribed to a topic the broker does not have yet
    can miss the first record produced to it (noticed here, not what these tests are about)."""
    import asyncio

    import aiokafka

    async def produce() -> None:
        for attempt in range(5):  # a broker that just said it is ready may still refuse a first client
            producer = aiokafka.AIOKafkaProducer(bootstrap_servers=f"{host}:{port}")
            try:
                await producer.start()
                await producer.send_and_wait(topic, b"{}")
                return
            except Exception:
                if attempt == 4:
                    raise
                await asyncio.sleep(1)
            finally:
                await producer.stop()

    asyncio.run(produce())


@pytest.fixture(scope="module", params=["mqtt", "nats", "amqp", "kafka"])
def broker(request):
    with _broker(request.param, request) as url:
        yield request.param, url


def _channel(protocol: str) -> str:
    # a Kafka topic has no `/`; over AMQP a queue of the default exchange (no exchange to declare first)
    return "orders.requests" if protocol in ("kafka", "amqp") else "orders/requests"


def _echo_asyncapi(protocol: str) -> dict:
    """The order service's description, plus an operation on the request channel itself: a receive step
    of the workflow listens where its send step publishes."""
    doc = orders_asyncapi(protocol)
    doc["channels"]["orderRequests"]["address"] = _channel(protocol)
    doc["operations"]["watchRequests"] = {"action": "send", "channel": {"$ref": "#/channels/orderRequests"}}
    return doc


def _run(tmp_path, protocol: str, url: str, **options):
    watch = {
        "stepId": "watch",
        "operationId": "watchRequests",
        "action": "receive",
        "timeout": 20000,
        "outputs": {"size": "$message.payload#/mode"},
    }
    doc = events_doc(send_step("place", mode="$inputs.mode"), watch)
    path = write_events(tmp_path, doc, _echo_asyncapi(protocol))
    inputs = {"requestId": "r-big", "mode": "m" * BIG}
    result = arazzo_runner.run(str(path), inputs=inputs, servers={"orders": url}, timeout=20, **options)
    return result.to_dict()["workflows"][0]


def test_a_message_over_the_limit_fails_the_receive_with_its_cause(tmp_path, broker):
    protocol, url = broker
    workflow = _run(tmp_path, protocol, url, max_body=LIMIT)
    place, watch = workflow["steps"]
    assert place["status"] == "passed", place
    assert watch["status"] == "failed"
    channel = _channel(protocol)
    found = re.fullmatch(
        rf"message not received on channel '{channel}' \({re.escape(url)}\): a message of (\d+) bytes on "
        rf"'{channel}' is larger than the limit of {LIMIT} bytes \(max-response-bytes\): it was not read",
        watch["error"],
    )
    assert found and BIG < int(found.group(1)) < BIG + 200, watch["error"]
    assert "mmmm" not in json.dumps(watch)  # nothing of it was kept


def test_a_message_within_the_limit_is_received(tmp_path, broker):
    protocol, url = broker
    workflow = _run(tmp_path, protocol, url)  # the default limit: 16 MiB
    assert [s["status"] for s in workflow["steps"]] == ["passed", "passed"], workflow
    assert len(workflow["steps"][1]["outputs"]["size"]) == BIG


def test_a_websocket_frame_over_the_limit_is_refused_before_it_is_read(tmp_path):
    with websocket_server() as (host, port):
        url = f"ws://{host}:{port}"
        asyncapi = orders_asyncapi("ws")
        for channel in asyncapi["channels"].values():
            channel["address"] = "orders"  # requests and replies share the service's one socket
        path = write_events(tmp_path, events_doc(send_step("place"), receive_step("confirm")), asyncapi)
        servers = {"orders": url}
        small = arazzo_runner.run(str(path), inputs={"requestId": "w-1"}, servers=servers, max_body=40)
        fits = arazzo_runner.run(str(path), inputs={"requestId": "w-2"}, servers=servers)
    place, confirm = small.to_dict()["workflows"][0]["steps"]
    assert place["status"] == "passed" and confirm["status"] == "failed", confirm
    assert re.fullmatch(
        rf"message not received on channel 'orders' \({re.escape(url)}\): a message of \d+ bytes on "
        r"'orders' is larger than the limit of 40 bytes \(max-response-bytes\): it was not read",
        confirm["error"],
    ), confirm["error"]
    assert fits.status == "passed"


def test_an_mqtt_reply_over_the_limit_from_a_real_responder(tmp_path):
    """The order service answers over MQTT: its first answer (for another request) is over the limit."""
    with mqtt_broker() as (host, port), responder("mqtt", host, port, "orders/requests", "orders/replies"):
        path = write_events(
            tmp_path, events_doc(send_step("place"), receive_step("confirm")), orders_asyncapi("mqtt")
        )
        result = arazzo_runner.run(
            str(path), inputs={"requestId": "m-1"}, servers={"orders": f"mqtt://{host}:{port}"}, max_body=40
        )
    confirm = result.to_dict()["workflows"][0]["steps"][1]
    assert confirm["status"] == "failed"
    assert "is larger than the limit of 40 bytes (max-response-bytes): it was not read" in confirm["error"]
