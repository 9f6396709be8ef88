"""AsyncAPI steps over RabbitMQ (from the system's package, one node for the session: tests/e2e/
conftest.py) with a real responder process using aio-pika, written as a RabbitMQ service is: durable
queues, replies to a request's `reply_to` with its `correlation_id`.

Over a named exchange (`orders/requests`, `orders/replies`: the direct exchange `orders`) the reply
carries the request id in the payload, in the `orderRequestId` AMQP header and in the `correlation_id`
property; over the default exchange (`order-requests`, `order-replies`: the service's durable queues)
the payload is correlated."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

import arazzo_runner
from tests.e2e.eventkit import (
    events_doc,
    immediate_reply_statuses,
    orders_asyncapi,
    receive_step,
    responder,
    run_events,
    send_step,
    with_user_scheme,
    write_events,
)

HEADER = "$message.header#/orderRequestId"


@pytest.fixture(scope="module")
def broker(rabbitmq_broker):
    host, port = rabbitmq_broker.host, rabbitmq_broker.port
    with (
        responder("amqp", host, port, "orders/requests", "orders/replies"),
        responder("amqp", host, port, "order-requests", "order-replies"),
    ):
        yield rabbitmq_broker.url


def amqp_asyncapi(correlation: str = "$message.payload#/requestId", default_exchange: bool = False) -> dict:
    doc = orders_asyncapi("amqp", correlation=correlation)
    if default_exchange:
        doc["channels"]["orderRequests"]["address"] = "order-requests"
        doc["channels"]["orderReplies"]["address"] = "order-replies"
    return doc


def run(tmp_path, broker, doc, asyncapi=None, **inputs):
    return run_events(tmp_path, asyncapi or amqp_asyncapi(), {"orders": broker}, doc, **inputs)


def test_amqp_send_with_headers_then_receive_correlated_by_header(tmp_path, broker):
    place = send_step(
        "place", parameters=[{"name": "orderRequestId", "in": "header", "value": "$inputs.requestId"}]
    )
    place["outputs"] = {"sentId": "$message.header.orderRequestId"}
    confirm = receive_step("confirm", correlation="$steps.place.outputs.sentId")
    doc = events_doc(place, confirm, outputs={"orderId": "$steps.confirm.outputs.orderId"})
    workflow = run(tmp_path, broker, doc, amqp_asyncapi(correlation=HEADER), requestId="a-1")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    assert workflow["steps"][0]["outputs"] == {"sentId": "a-1"}
    sent, received = workflow["steps"][0]["messages"][0], workflow["steps"][1]["messages"][0]
    assert (sent["direction"], sent["channel"], sent["server"]) == ("send", "orders/requests", broker)
    assert sent["headers"] == [{"name": "orderRequestId", "value": "a-1"}]
    assert json.loads(sent["payload"]) == {"requestId": "a-1", "petId": 7, "mode": "ok", "delayMs": 0}
    assert (received["direction"], received["channel"], received["correlationId"]) == (
        "receive",
        "orders/replies",
        "a-1",
    )
    # every header of the reply: its headers table and its message properties (aio-pika gives each
    # message it publishes with publisher confirms a `message_id`, a random one here)
    headers = [(h["name"], h["value"]) for h in received["headers"]]
    assert [(n, v) for n, v in headers if n != "message_id"] == [
        ("content_type", "application/json"),
        ("correlation_id", "a-1"),
        ("orderRequestId", "a-1"),
    ]
    assert [n for n, _ in headers].count("message_id") == 1
    # the reply for another request id, published first, was passed over
    reply = json.loads(received["payload"])
    assert {k: reply[k] for k in ("requestId", "orderId", "status")} == {
        "requestId": "a-1",
        "orderId": 71,
        "status": "confirmed",
    }
    # what the service got: the header in the headers table, the step's content type as the property
    assert reply["requestHeaders"] == {"orderRequestId": "a-1"}
    assert reply["requestProperties"].pop("message_id")
    assert reply["requestProperties"] == {"content_type": "application/json"}


def test_amqp_default_exchange_queues_correlated_by_payload(tmp_path, broker):
    doc = events_doc(
        send_step("place"), receive_step("confirm"), outputs={"orderId": "$steps.confirm.outputs.orderId"}
    )
    workflow = run(tmp_path, broker, doc, amqp_asyncapi(default_exchange=True), requestId="q-1")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    sent, received = workflow["steps"][0]["messages"][0], workflow["steps"][1]["messages"][0]
    assert (sent["channel"], received["channel"], received["correlationId"]) == (
        "order-requests",
        "order-replies",
        "q-1",
    )
    assert json.loads(received["payload"])["requestId"] == "q-1"


def test_amqp_two_receives_in_flight_on_one_channel_and_three_sends(tmp_path, broker):
    """Three publishes on the run's one channel, with deliveries between them (each publish waits for
    its confirm), and two subscriptions to the same exchange and key at once, joined by dependsOn."""
    summary = send_step(
        "summary",
        request_id="s-1",
        mode="never",
        dependsOn=["confirmA", "confirmB"],
        requestBody={
            "payload": {
                "requestId": "s-1",
                "mode": "never",
                "orders": ["$steps.confirmA.outputs.orderId", "$steps.confirmB.outputs.orderId"],
            }
        },
    )
    doc = events_doc(
        send_step("placeA", request_id="a-late", mode="late"),
        receive_step("confirmA", correlation="a-late", timeout=5000),
        send_step("placeB", request_id="b-now", mode="ok"),
        receive_step("confirmB", correlation="b-now", timeout=5000),
        summary,
    )
    workflow = run(tmp_path, broker, doc, delayMs=400)
    assert workflow["status"] == "passed", workflow
    order = [s["stepId"] for s in workflow["steps"]]
    assert order.index("placeB") < order.index("confirmA")  # placeB went out while confirmA waited
    assert order[-1] == "summary"
    assert json.loads(workflow["steps"][-1]["messages"][0]["payload"])["orders"] == [71, 71]


def test_amqp_reply_that_never_comes(tmp_path, broker):
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=300))
    workflow = run(tmp_path, broker, doc, requestId="a-never", mode="never")
    assert workflow["status"] == "failed"
    assert workflow["error"]["stepId"] == "confirm"
    assert (
        "no message with correlationId 'a-never' on channel 'orders/replies'" in workflow["error"]["message"]
    )
    assert [s["status"] for s in workflow["steps"]] == ["passed", "failed"]


def test_amqp_error_payload_fails_the_criteria(tmp_path, broker):
    doc = events_doc(send_step("place"), receive_step("confirm"))
    workflow = run(tmp_path, broker, doc, requestId="a-err", mode="error")
    assert workflow["status"] == "failed"
    confirm = workflow["steps"][1]
    assert confirm["error"].startswith("successCriteria failed: ")
    assert confirm["outputs"]["status"] == "error"
    assert json.loads(confirm["messages"][0]["payload"])["error"] == "out of stock"


def test_amqp_a_sub_millisecond_reply_is_never_missed(tmp_path, broker):
    """Subscribe-before-send: the exclusive queue is bound before the request goes out, so the reply
    published the moment the request arrives is routed to it. Twenty runs, every one passes."""
    statuses = immediate_reply_statuses(tmp_path, amqp_asyncapi(), {"orders": broker}, "ar")
    assert statuses == ["passed"] * 20


def test_amqp_a_broker_that_is_not_there_fails_the_step_naming_it(tmp_path):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    doc = events_doc(send_step("place"))
    path = write_events(tmp_path, doc, amqp_asyncapi())
    result = arazzo_runner.run(str(path), servers={"orders": f"amqp://127.0.0.1:{port}"}, timeout=5)
    workflow = result.to_dict()["workflows"][0]
    assert workflow["status"] == "failed"
    message = workflow["error"]["message"]
    assert f"amqp broker amqp://127.0.0.1:{port}: connecting failed" in message
    assert "connect" in message.lower().split("connecting failed", 1)[1]  # the cause, not just a type


def test_amqp_two_receives_on_one_default_exchange_queue_both_see_every_message(tmp_path, broker):
    """Two receive steps on one queue of the default exchange: one consumer of the run's connection takes
    the queue's messages and every subscription on the address sees each one (two consumers would share
    the messages out between them, and a reply could land in the other step's buffer)."""
    doc = events_doc(
        send_step("placeA", request_id="qa-late", mode="late"),
        receive_step("confirmA", correlation="qa-late", timeout=5000),
        send_step("placeB", request_id="qb-now", mode="ok"),
        receive_step("confirmB", correlation="qb-now", timeout=5000),
        outputs={"a": "$steps.confirmA.outputs.orderId", "b": "$steps.confirmB.outputs.orderId"},
    )
    workflow = run(tmp_path, broker, doc, amqp_asyncapi(default_exchange=True), delayMs=300)
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"a": 71, "b": 71}
    channels = [m["channel"] for s in workflow["steps"] for m in s["messages"]]
    assert channels == ["order-requests", "order-requests", "order-replies", "order-replies"]


def test_amqp_unsubscribing_leaves_the_queues_later_messages_for_others(broker):
    """The transport itself: once its last subscription on a default-exchange queue is gone, the run's
    consumer is cancelled, so a message published afterwards waits in the queue for the next consumer
    instead of being taken and acknowledged into a closed buffer."""
    from arazzo_runner.messages.amqp import AmqpTransport
    from arazzo_runner.messages.base import Broker

    host, port = broker.removeprefix("amqp://").rsplit(":", 1)
    target = Broker(protocol="amqp", host=host, port=int(port))

    async def scenario() -> tuple[list[dict], list[dict], int]:
        first, second = AmqpTransport(target, timeout=10), AmqpTransport(target, timeout=10)
        await first.connect()
        await second.connect()
        try:
            subscription = await first.subscribe("handover")
            await first.publish("handover", b'{"n": 1}', [])
            assert await subscription.wait(10)
            taken = [json.loads(subscription.take().payload)]
            await first.unsubscribe(subscription)
            await first.publish("handover", b'{"n": 2}', [])
            later = await second.subscribe("handover")
            assert await later.wait(10), "the message published after unsubscribe was taken by the run"
            return taken, [json.loads(later.take().payload)], subscription.seen
        finally:
            await first.close()
            await second.close()

    taken, later, seen = asyncio.run(scenario())
    assert (taken, later, seen) == ([{"n": 1}], [{"n": 2}], 1)


def test_amqp_rpc_with_reply_to_and_correlation_id_properties(tmp_path, broker):
    """RabbitMQ's request/reply: the request names its reply queue (`reply_to`) and carries a
    `correlation_id`, both message properties set by headers of those names; the service answers
    there with the same `correlation_id`, which the receive reads as `$message.header#/correlation_id`
    (as AsyncAPI's AMQP examples do). The reply queue does not exist before the run: the receive
    step declares it before the request goes out."""
    asyncapi = amqp_asyncapi(correlation="$message.header#/correlation_id", default_exchange=True)
    asyncapi["channels"]["orderReplies"]["address"] = "rpc-replies-1"
    place = send_step(
        "place",
        parameters=[
            {"name": "correlation_id", "in": "header", "value": "$inputs.requestId"},
            {"name": "reply_to", "in": "header", "value": "rpc-replies-1"},
            {"name": "traceId", "in": "header", "value": "t-9"},
        ],
    )
    doc = events_doc(place, receive_step("confirm"), outputs={"orderId": "$steps.confirm.outputs.orderId"})
    workflow = run(tmp_path, broker, doc, asyncapi, requestId="rpc-1")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    received = workflow["steps"][1]["messages"][0]
    assert (received["channel"], received["correlationId"]) == ("rpc-replies-1", "rpc-1")
    reply = json.loads(received["payload"])
    assert reply["requestProperties"].pop("message_id")
    assert reply["requestProperties"] == {
        "content_type": "application/json",
        "correlation_id": "rpc-1",
        "reply_to": "rpc-replies-1",
    }
    assert reply["requestHeaders"] == {"traceId": "t-9"}  # the properties are not in the table


def _doc_with_missing_exchange() -> tuple[dict, dict]:
    asyncapi = amqp_asyncapi()
    asyncapi["channels"]["nowhere"] = {"address": "nowhere/requests"}
    asyncapi["operations"]["lostOrder"] = {"action": "receive", "channel": {"$ref": "#/channels/nowhere"}}
    lost = {
        "stepId": "lost",
        "operationId": "lostOrder",
        "action": "send",
        "requestBody": {"payload": {"requestId": "$inputs.requestId"}},
        "onFailure": [{"name": "carryOn", "type": "goto", "stepId": "place"}],
    }
    return asyncapi, events_doc(lost, send_step("place"), receive_step("confirm"))


def test_amqp_a_missing_exchange_fails_its_step_and_the_run_goes_on(tmp_path, broker):
    """RabbitMQ closes the channel a 404 happens on: the run looks exchanges up on a channel of its own,
    so the receive step subscribed before (on the run's channel) still gets its reply."""
    asyncapi, doc = _doc_with_missing_exchange()
    workflow = run(tmp_path, broker, doc, asyncapi, requestId="x-1")
    assert [(s["stepId"], s["status"]) for s in workflow["steps"]] == [
        ("lost", "failed"),
        ("place", "passed"),
        ("confirm", "passed"),
    ]
    error = workflow["steps"][0]["error"]
    assert f"amqp broker {broker}: publishing to 'nowhere/requests' failed: NOT_FOUND" in error
    assert "'nowhere'" in error


def test_amqp_a_message_routed_to_no_queue_fails_the_send(tmp_path, broker):
    """Nothing is bound to the key: RabbitMQ would drop it, so the send fails instead of passing."""
    asyncapi = amqp_asyncapi()
    asyncapi["channels"]["orderRequests"]["address"] = "orders/nobody-listens"
    workflow = run(tmp_path, broker, events_doc(send_step("place")), asyncapi, requestId="x-2")
    assert workflow["status"] == "failed"
    assert workflow["error"]["message"] == (
        f"message not sent: amqp broker {broker}: publishing to 'orders/nobody-listens' failed: the broker "
        "routed it to no queue: nothing bound to 'nobody-listens' on exchange 'orders'"
    )


def test_amqp_a_user_the_broker_requires(capsys, tmp_path, broker):
    from tests.e2e.helpers import cli

    asyncapi = with_user_scheme(amqp_asyncapi())
    path = write_events(tmp_path, events_doc(send_step("place", mode="never")), asyncapi)
    server = ["--server", f"orders={broker}", "--format", "json"]
    wrong = cli(capsys, "run", path, *server, "--auth", "user=alice:nope")
    given = cli(capsys, "run", path, *server, "--auth", "user=alice:s3cret")
    assert wrong.code == 1
    error = wrong.json["workflows"][0]["steps"][0]["error"]
    assert f"amqp broker {broker}: connecting failed" in error and "ACCESS_REFUSED" in error, error
    assert given.code == 0, given.out
    assert "s3cret" not in given.out and "nope" not in wrong.out


def test_amqp_a_queue_s_consumer_stays_while_another_subscription_needs_it(broker):
    """Two subscriptions of one run on a default-exchange queue share its one consumer: the first one
    gone (a nested workflow's receive ending, say), the other still gets the queue's messages."""
    from arazzo_runner.messages.amqp import AmqpTransport
    from arazzo_runner.messages.base import Broker

    host, port = broker.removeprefix("amqp://").rsplit(":", 1)

    async def scenario() -> list[dict]:
        transport = AmqpTransport(Broker(protocol="amqp", host=host, port=int(port)), timeout=10)
        await transport.connect()
        try:
            inner, outer = await transport.subscribe("shared-q"), await transport.subscribe("shared-q")
            await transport.unsubscribe(inner)
            await transport.publish("shared-q", b'{"n": 3}', [])
            assert await outer.wait(10), "the message went nowhere: the queue's consumer was cancelled"
            return [json.loads(outer.take().payload)]
        finally:
            await transport.close()

    assert asyncio.run(scenario()) == [{"n": 3}]
