"""The shipped workflow mixing HTTP and events (workflows/order-events.arazzo.yaml): an order placed over
HTTP, its confirmation awaited on a real MQTT broker, the order read back over HTTP. Through the command
line, as a user runs it, with every front end that works for HTTP steps: run (text, --verbose, JSON,
JUnit), validate, describe, graph, --dry-run."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

import pytest

from tests.e2e.eventkit import ROOT, Process, mqtt_broker

WORKFLOW = ROOT / "workflows" / "order-events.arazzo.yaml"


@pytest.fixture(scope="module")
def shop():
    with mqtt_broker() as (host, port):
        service = Process([sys.executable, "-m", "tests.servers.order_service", host, str(port)])
        try:
            yield f"http://127.0.0.1:{service.line('PORT ')}", f"mqtt://{host}:{port}"
        finally:
            service.stop()


def arazzo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_the_mixed_workflow_runs_end_to_end(shop, tmp_path):
    http, broker = shop
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    done = arazzo(
        "run", str(WORKFLOW), "--server", f"shop={http}", "--server", f"events={broker}",
        "--report-json", str(report), "--junit", str(junit), "--verbose",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "awaitConfirmation" in done.stdout and "receive mqtt://" in done.stdout
    assert "< RECEIVE mqtt://" in done.stdout and "shop/orders/confirmed" in done.stdout  # --verbose
    data = json.loads(report.read_text())
    workflow = data["workflows"][0]
    assert workflow["status"] == "passed"
    assert workflow["outputs"]["status"] == "confirmed"
    assert isinstance(workflow["outputs"]["orderId"], int)
    steps = {s["stepId"]: s for s in workflow["steps"]}
    assert steps["awaitConfirmation"]["messages"][0]["channel"] == "shop/orders/confirmed"
    assert [s["stepId"] for s in workflow["steps"]] == ["placeOrder", "awaitConfirmation", "readOrder"]
    cases = ET.parse(junit).getroot().iter("testcase")
    out = {c.get("name"): (c.findtext("system-out") or "") for c in cases}
    assert any("receive mqtt://" in text and "shop/orders/confirmed" in text for text in out.values())


def test_a_rejected_order_fails_on_the_event_with_the_reason(tmp_path):
    with mqtt_broker() as (host, port):
        service = Process([sys.executable, "-m", "tests.servers.order_service", host, str(port), "reject"])
        try:
            http = f"http://127.0.0.1:{service.line('PORT ')}"
            done = arazzo(
                "run",
                str(WORKFLOW),
                "--server",
                f"shop={http}",
                "--server",
                f"events=mqtt://{host}:{port}",
                "--format",
                "json",
            )
        finally:
            service.stop()
    assert done.returncode == 1
    workflow = json.loads(done.stdout)["workflows"][0]
    assert workflow["error"]["stepId"] == "awaitConfirmation"
    assert "successCriteria failed" in workflow["error"]["message"]
    assert "rejected" in workflow["error"]["message"]


def test_validate_describe_graph_and_dry_run(shop):
    http, broker = shop
    done = arazzo("validate", str(WORKFLOW))
    assert done.returncode == 0 and "0 errors, 0 warnings" in done.stdout, done.stdout
    done = arazzo("describe", str(WORKFLOW))
    assert done.returncode == 0
    assert (
        "receive shop/orders/confirmed  ($sourceDescriptions.events.orderConfirmed in source events)"
        in done.stdout
    )
    assert "correlationId: $steps.placeOrder.outputs.requestId" in done.stdout
    done = arazzo("graph", str(WORKFLOW), "--format", "mermaid")
    assert done.returncode == 0
    assert "receive shop/orders/confirmed" in done.stdout and "joins" in done.stdout
    done = arazzo(
        "run", str(WORKFLOW), "--dry-run", "--server", f"shop={http}", "--server", f"events={broker}"
    )
    assert done.returncode == 0, done.stderr
    assert "RECEIVE " + broker + "/shop/orders/confirmed" in done.stdout
    assert "would wait for correlationId '<$steps.placeOrder.outputs.requestId>'" in done.stdout


def test_a_missing_broker_for_the_run_is_a_clear_error_before_anything_is_sent(shop):
    http, _ = shop
    done = arazzo("run", str(WORKFLOW), "--server", f"shop={http}", "--server", "events=carrier-pigeon://x:1")
    assert done.returncode == 2
    assert "protocol 'carrier-pigeon' of source 'events' has no transport in this engine" in done.stderr
    assert "Traceback" not in done.stderr


def _orders_placed(http: str) -> int:
    """How many orders the shop holds (ids count from 1)."""
    count = 0
    while True:
        try:
            urllib.request.urlopen(f"{http}/orders/{count + 1}", timeout=10).close()
        except urllib.error.HTTPError as exc:
            assert exc.code == 404
            return count
        count += 1


def _dead_port() -> int:
    with socket.socket() as probe:  # bound and closed: nothing listens there afterwards
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("correlation", [None, "fixed-request-id"], ids=["from-the-order", "constant"])
def test_a_broker_that_is_down_fails_the_workflow_before_the_order_is_placed(shop, tmp_path, correlation):
    """Issue 22: every broker the workflow uses is connected, and its receive channels subscribed, before
    its first step: with the broker down, no order is placed whose confirmation could never be seen."""
    http, _ = shop
    path = WORKFLOW
    if correlation is not None:  # the receive's address and id known from the start
        text = WORKFLOW.read_text().replace(
            "correlationId: $steps.placeOrder.outputs.requestId", f"correlationId: {correlation}"
        )
        text = text.replace("../openapi/", f"{ROOT}/openapi/").replace("../asyncapi/", f"{ROOT}/asyncapi/")
        path = tmp_path / "order-events.arazzo.yaml"
        path.write_text(text)
    before = _orders_placed(http)
    done = arazzo(
        "run", str(path), "--server", f"shop={http}", "--server", f"events=mqtt://127.0.0.1:{_dead_port()}",
        "--format", "json",
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    workflow = json.loads(done.stdout)["workflows"][0]
    assert workflow["status"] == "failed"
    # placeOrder never ran: the receive that could never succeed is the only step, failed unsent
    assert [(s["stepId"], s["status"], s["attempts"]) for s in workflow["steps"]] == [
        ("awaitConfirmation", "failed", 0)
    ]
    assert workflow["error"]["stepId"] == "awaitConfirmation"
    message = workflow["error"]["message"]
    assert "cannot subscribe to 'shop/orders/confirmed'" in message
    assert "before the workflow's first step; nothing was sent" in message
    assert _orders_placed(http) == before
