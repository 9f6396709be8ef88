"""What a long event-driven workflow costs over MQTT (issue 28): its receive steps on one address share
one SUBSCRIBE at the broker, each message is decoded once whatever the number of receive steps it is
delivered to, and a run that reaches no HTTP operation builds no HTTP client (nor imports httpx)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.e2e.eventkit import (
    ROOT,
    events_doc,
    mqtt_broker,
    orders_asyncapi,
    receive_step,
    responder,
    run_events,
    send_step,
    write_events,
)

TRIPS = 8


@pytest.fixture(scope="module")
def broker():
    with mqtt_broker() as (host, port), responder("mqtt", host, port, "orders/requests", "orders/replies"):
        yield f"mqtt://{host}:{port}"


def _trips(count: int) -> dict:
    steps = []
    for trip in range(count):
        steps.append(send_step(f"send{trip}", request_id=f"r-{trip}"))
        steps.append(receive_step(f"receive{trip}", correlation=f"r-{trip}"))
    outputs = {f"order{trip}": f"$steps.receive{trip}.outputs.orderId" for trip in range(count)}
    return events_doc(*steps, outputs=outputs)


def test_receive_steps_on_one_address_share_a_subscription_and_a_decoding(tmp_path, broker, monkeypatch):
    import aiomqtt

    from arazzo_runner.executor import message_values
    from arazzo_runner.executor.steps import message

    subscribed: list[str] = []
    decoded: list[bytes] = []
    real_subscribe, real_decode = aiomqtt.Client.subscribe, message_values.decode_payload

    async def subscribe(self, topic, *args, **kwargs):
        subscribed.append(topic)
        return await real_subscribe(self, topic, *args, **kwargs)

    def decode(payload, content_type):
        decoded.append(payload)
        return real_decode(payload, content_type)

    monkeypatch.setattr(aiomqtt.Client, "subscribe", subscribe)
    monkeypatch.setattr(message, "decode_payload", decode)
    workflow = run_events(tmp_path, orders_asyncapi("mqtt"), {"orders": broker}, _trips(TRIPS))
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {f"order{trip}": 71 for trip in range(TRIPS)}
    assert subscribed == ["orders/replies"]  # not one SUBSCRIBE round trip per receive step
    # each reply comes after one for another request id: 2 messages a trip, each decoded once (not once
    # for each of the 8 subscriptions it is delivered to)
    assert len(decoded) == len(set(decoded)) <= 2 * TRIPS


def test_a_run_without_http_operations_imports_no_httpx(tmp_path, broker):
    path = write_events(tmp_path, _trips(2), orders_asyncapi("mqtt"))
    script = (
        "import sys\n"
        "from arazzo_runner.cli import main\n"
        f"code = main(['run', {str(path)!r}, '--server', 'orders={broker}', '--format', 'json'])\n"
        "print(code, 'httpx' in sys.modules, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert proc.stderr.splitlines()[-1] == "0 False", proc.stderr


def test_the_client_socket_sends_each_packet_at_once(tmp_path, broker, monkeypatch):
    """TCP_NODELAY on the MQTT connection (paho writes to a plain socket, which has Nagle's algorithm on):
    a packet written while another is unacknowledged (the UNSUBSCRIBE at the run's end, or the next
    PUBLISH, right after the PUBACK of a reply) would wait for the broker's delayed ACK, ~40 ms."""
    import socket

    import aiomqtt

    options: list[int] = []
    real_enter = aiomqtt.Client.__aenter__

    async def enter(self):
        client = await real_enter(self)
        options.append(self._client.socket().getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        return client

    monkeypatch.setattr(aiomqtt.Client, "__aenter__", enter)
    workflow = run_events(tmp_path, orders_asyncapi("mqtt"), {"orders": broker}, _trips(2))
    assert workflow["status"] == "passed", workflow
    assert len(options) == 1 and options[0] != 0  # one connection for the run, no delay on it
