"""--dry-run of AsyncAPI steps: the message a send would publish (channel parameters filled, headers,
payload) and what a receive would wait for; nothing is connected (the broker here does not exist)."""

from __future__ import annotations

from tests.e2e.eventkit import events_doc, orders_asyncapi, receive_step, send_step, write_events
from tests.e2e.helpers import cli


def test_a_dry_run_shows_the_message_with_its_channel_parameters(capsys, tmp_path):
    asyncapi = orders_asyncapi("nats")
    asyncapi["channels"]["orderRequests"]["address"] = "orders.{region}.requests"
    place = send_step(
        "place",
        parameters=[
            {"name": "region", "in": "path", "value": "eu"},
            {"name": "orderRequestId", "in": "header", "value": "$inputs.requestId"},
        ],
    )
    path = write_events(tmp_path, events_doc(place, receive_step("confirm")), asyncapi)
    result = cli(
        capsys, "run", path, "--dry-run", "--server", "orders=nats://127.0.0.1:9", "--input", "requestId=d-1"
    )
    assert result.code == 0, result.err
    assert "place  SEND nats://127.0.0.1:9/orders.eu.requests" in result.out
    assert "orderRequestId: d-1" in result.out
    assert '"requestId": "d-1"' in result.out
    assert "confirm  RECEIVE nats://127.0.0.1:9/orders/replies" in result.out
    assert "would wait for correlationId 'd-1'" in result.out


def test_a_channel_parameter_without_a_value_is_the_steps_error(capsys, tmp_path):
    asyncapi = orders_asyncapi("nats")
    asyncapi["channels"]["orderRequests"]["address"] = "orders.{region}.requests"
    path = write_events(tmp_path, events_doc(send_step("place")), asyncapi)
    result = cli(capsys, "run", path, "--dry-run", "--server", "orders=nats://127.0.0.1:9")
    assert "needs parameter 'region' (a step parameter with in: path)" in result.out
