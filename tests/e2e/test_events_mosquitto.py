"""MQTT 5 against mosquitto (the broker from the system's package, tests/install-system-packages.sh), with an
MQTT 5 responder: user properties both ways, QoS 1, MQTT 5's own request/response properties
(response topic, correlation data, content type), a listener that requires a user, and an AsyncAPI 2.6
document run end to end."""

from __future__ import annotations

import json

import pytest

from tests.e2e.eventkit import (
    events_doc,
    orders_asyncapi,
    receive_step,
    responder,
    run_events,
    send_step,
    with_user_scheme,
    write_events,
)
from tests.e2e.helpers import cli
from tests.e2e.system_brokers import mosquitto

HEADER = "$message.header#/orderRequestId"


@pytest.fixture(scope="module")
def broker():
    with (
        mosquitto({"alice": "s3cret"}) as running,
        responder("mqtt5", running.host, running.port, "orders/requests", "orders/replies"),
    ):
        yield running


def mqtt5_asyncapi(correlation: str = HEADER) -> dict:
    return orders_asyncapi("mqtt", correlation=correlation, protocolVersion="5")


def headered(step_id: str, **headers: str) -> dict:
    parameters = [{"name": name, "in": "header", "value": value} for name, value in headers.items()]
    return send_step(step_id, parameters=parameters)


def pairs(headers: list[dict]) -> list[tuple[str, str]]:
    return [(h["name"], h["value"]) for h in headers]


def test_user_properties_go_out_and_come_back_every_one_of_them(tmp_path, broker):
    place = headered("place", orderRequestId="$inputs.requestId", traceId="t-77")
    doc = events_doc(place, receive_step("confirm"), outputs={"orderId": "$steps.confirm.outputs.orderId"})
    workflow = run_events(tmp_path, mqtt5_asyncapi(), {"orders": broker.url}, doc, requestId="m-1")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    sent, received = workflow["steps"][0]["messages"][0], workflow["steps"][1]["messages"][0]
    assert pairs(sent["headers"]) == [("orderRequestId", "m-1"), ("traceId", "t-77")]
    reply = json.loads(received["payload"])
    # what the responder got: both user properties, at QoS 1 (it subscribed at QoS 2)
    assert reply["requestHeaders"] == {"orderRequestId": "m-1", "traceId": "t-77"}
    assert reply["requestQos"] == 1
    # every header of the reply is reported (two user properties and the content type property)
    assert pairs(received["headers"]) == [
        ("contentType", "application/json"),
        ("orderRequestId", "m-1"),
        ("service", "orders"),
    ]
    assert received["correlationId"] == "m-1"


def test_a_reply_correlated_by_a_user_property_passes_over_the_decoy(tmp_path, broker):
    doc = events_doc(headered("place", orderRequestId="$inputs.requestId"), receive_step("confirm"))
    workflow = run_events(tmp_path, mqtt5_asyncapi(), {"orders": broker.url}, doc, requestId="m-2")
    assert workflow["status"] == "passed", workflow
    assert json.loads(workflow["steps"][1]["messages"][0]["payload"])["requestId"] == "m-2"


def test_mqtt5_request_response_properties_response_topic_and_correlation_data(tmp_path, broker):
    """The MQTT 5 way to ask: the request names its response topic and carries correlation data; the
    reply goes there with the same correlation data (the decoy with another)."""
    asyncapi = mqtt5_asyncapi(correlation="$message.header#/correlationData")
    asyncapi["channels"]["orderReplies"]["address"] = "orders/replies/by-topic"
    place = headered("place", responseTopic="orders/replies/by-topic", correlationData="$inputs.requestId")
    confirm = receive_step("confirm")
    doc = events_doc(place, confirm)
    workflow = run_events(tmp_path, asyncapi, {"orders": broker.url}, doc, requestId="cd-1")
    assert workflow["status"] == "passed", workflow
    received = workflow["steps"][1]["messages"][0]
    assert received["channel"] == "orders/replies/by-topic"
    assert ("correlationData", "cd-1") in pairs(received["headers"])
    reply = json.loads(received["payload"])
    assert reply["requestId"] == "cd-1"
    assert reply["requestHeaders"] == {}  # the two were MQTT 5 properties, not user properties


def test_a_user_that_the_broker_requires_is_given_with_auth(capsys, tmp_path, broker):
    asyncapi = with_user_scheme(mqtt5_asyncapi())
    path = write_events(tmp_path, events_doc(send_step("place", mode="never")), asyncapi)
    server = ["--server", f"orders={broker.secured_url}", "--format", "json"]
    refused = cli(capsys, "run", path, *server)
    wrong = cli(capsys, "run", path, *server, "--auth", "user=alice:nope")
    given = cli(capsys, "run", path, *server, "--auth", "user=alice:s3cret")
    assert refused.code == 1
    error = refused.json["workflows"][0]["steps"][0]["error"]
    assert f"mqtt broker {broker.secured_url}: connecting failed" in error
    assert "not authorized" in error.lower()
    assert wrong.code == 1
    assert given.code == 0, given.out
    assert "s3cret" not in refused.out + wrong.out + given.out and "nope" not in wrong.out


def asyncapi_2_6(port: int) -> dict:
    """The order service as an AsyncAPI 2.6 document says it: `publish` (others publish to it) on the
    request channel, `subscribe` on the reply channel, MQTT 5 from the server's protocolVersion."""
    reply = {
        "name": "OrderReply",
        "contentType": "application/json",
        "correlationId": {"location": HEADER},
        "payload": {"type": "object", "required": ["requestId", "status"]},
    }
    return {
        "asyncapi": "2.6.0",
        "info": {"title": "Orders", "version": "1.0.0"},
        "servers": {
            "broker": {"url": f"mqtt://127.0.0.1:{port}", "protocol": "mqtt", "protocolVersion": "5"}
        },
        "channels": {
            "orders/requests": {
                "publish": {
                    "operationId": "placeOrder",
                    "message": {"name": "OrderRequest", "payload": {"type": "object"}},
                }
            },
            "orders/replies": {"subscribe": {"operationId": "orderConfirmed", "message": reply}},
        },
    }


def test_an_asyncapi_2_6_document_runs_end_to_end(capsys, tmp_path, broker):
    place = headered("place", orderRequestId="$inputs.requestId")
    confirm = receive_step("confirm", operationId="orderConfirmed")
    doc = events_doc(place, confirm, outputs={"orderId": "$steps.confirm.outputs.orderId"})
    path = write_events(tmp_path, doc, asyncapi_2_6(broker.port))  # the document's own server
    assert cli(capsys, "validate", path).code == 0
    result = cli(capsys, "run", path, "--input", "requestId=v26-1", "--format", "json")
    assert result.code == 0, result.out
    [workflow] = result.json["workflows"]
    assert workflow["outputs"] == {"orderId": 71}
    sent, received = workflow["steps"][0]["messages"][0], workflow["steps"][1]["messages"][0]
    assert (sent["server"], sent["channel"]) == (broker.url, "orders/requests")
    assert (received["channel"], received["correlationId"]) == ("orders/replies", "v26-1")
    never = cli(
        capsys, "run", path, "--input", "requestId=v26-2", "--input", "mode=never", "--format", "json"
    )
    assert never.code == 1
    message = never.json["workflows"][0]["steps"][1]["error"]
    assert "no message with correlationId 'v26-2' on channel 'orders/replies'" in message


def test_a_receive_on_a_topic_filter_gets_the_messages_the_broker_routes_to_it(tmp_path, broker):
    """A channel address with a wildcard (`+` one level): the broker routes every matching topic to the
    subscription, and the step gets the reply from the topic it was published on."""
    asyncapi = mqtt5_asyncapi()
    asyncapi["channels"]["orderRequests"]["address"] = "shop/requests"
    asyncapi["channels"]["orderReplies"]["address"] = "shop/+/replies"
    place = headered("place", orderRequestId="$inputs.requestId")
    with responder("mqtt5", broker.host, broker.port, "shop/requests", "shop/eu/replies"):
        workflow = run_events(
            tmp_path,
            asyncapi,
            {"orders": broker.url},
            events_doc(place, receive_step("confirm")),
            requestId="w-1",
        )
    assert workflow["status"] == "passed", workflow
    received = workflow["steps"][1]["messages"][0]
    assert (received["channel"], received["correlationId"]) == ("shop/eu/replies", "w-1")
