"""The pytest plugin runs workflows with AsyncAPI steps as it runs HTTP ones: a real MQTT broker and
responder, the broker given with --arazzo-server; a missing reply is a failed test saying why."""

from __future__ import annotations

import pytest
import yaml

from tests.e2e.eventkit import events_doc, mqtt_broker, orders_asyncapi, receive_step, responder, send_step

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def broker():
    with mqtt_broker() as (host, port), responder("mqtt", host, port, "orders/requests", "orders/replies"):
        yield f"mqtt://{host}:{port}"


def test_event_workflows_are_pytest_items(pytester: pytest.Pytester, broker: str) -> None:
    (pytester.path / "orders.asyncapi.yaml").write_text(yaml.safe_dump(orders_asyncapi("mqtt")))
    ok = events_doc(send_step("place"), receive_step("confirm"), workflow_id="confirmed")
    never = events_doc(send_step("place"), receive_step("confirm", timeout=300), workflow_id="unanswered")
    ok["workflows"].append(never["workflows"][0])
    ok["workflows"][1]["inputs"] = {
        "type": "object",
        "properties": {
            "requestId": {"type": "string", "default": "p-2"},
            "mode": {"type": "string", "default": "never"},
            "delayMs": {"type": "integer", "default": 0},
        },
    }
    (pytester.path / "orders.arazzo.yaml").write_text(yaml.safe_dump(ok, sort_keys=False))
    result = pytester.runpytest("-v", "--arazzo-server", f"orders={broker}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*no message with correlationId 'p-2' on channel 'orders/replies'*"])
