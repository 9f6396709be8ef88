"""AsyncAPI send/receive steps over a real MQTT broker (amqtt, MQTT 3.1.1) with a real responder process.

The responder answers each order request on `orders/replies`: at once, late, never or with an error
payload, always after a message for another request id (which correlation must pass over)."""

from __future__ import annotations

import json
import re

import pytest

import arazzo_runner
from tests.e2e.eventkit import (
    events_doc,
    mqtt_broker,
    orders_asyncapi,
    receive_step,
    responder,
    run_events,
    send_step,
    write_events,
)


@pytest.fixture(scope="module")
def broker():
    with mqtt_broker() as (host, port), responder("mqtt", host, port, "orders/requests", "orders/replies"):
        yield f"mqtt://{host}:{port}"


def run(tmp_path, broker, doc, **inputs):
    return run_events(tmp_path, orders_asyncapi("mqtt"), {"orders": broker}, doc, **inputs)


def steps(workflow):
    return [(s["stepId"], s["status"]) for s in workflow["steps"]]


def test_send_then_receive_with_correlation_passes(tmp_path, broker):
    doc = events_doc(
        send_step("place"), receive_step("confirm"), outputs={"orderId": "$steps.confirm.outputs.orderId"}
    )
    workflow = run(tmp_path, broker, doc, requestId="r-ok")
    assert workflow["status"] == "passed", workflow
    assert workflow["outputs"] == {"orderId": 71}
    sent, received = workflow["steps"][0]["messages"][0], workflow["steps"][1]["messages"][0]
    assert (sent["direction"], sent["channel"]) == ("send", "orders/requests")
    assert json.loads(sent["payload"]) == {"requestId": "r-ok", "petId": 7, "mode": "ok", "delayMs": 0}
    assert (received["direction"], received["channel"], received["correlationId"]) == (
        "receive",
        "orders/replies",
        "r-ok",
    )
    assert (
        json.loads(received["payload"])["requestId"] == "r-ok"
    )  # the message for another id was passed over
    assert workflow["steps"][1]["messageAction"] == "receive"


def test_a_reply_that_never_comes_fails_after_the_timeout_and_takes_the_onfailure_goto(tmp_path, broker):
    cancel = send_step("cancel", mode="cancel")
    confirm = receive_step(
        "confirm", timeout=400, onFailure=[{"name": "giveUp", "type": "goto", "stepId": "cancel"}]
    )
    done = {"name": "done", "type": "end"}
    doc = events_doc(send_step("place", onSuccess=[]), {**confirm, "onSuccess": [done]}, cancel)
    workflow = run(tmp_path, broker, doc, requestId="r-never", mode="never")
    assert steps(workflow) == [("place", "passed"), ("confirm", "failed"), ("cancel", "passed")]
    confirm_result = workflow["steps"][1]
    error = confirm_result["error"]
    assert "no message with correlationId 'r-never' on channel 'orders/replies'" in error
    assert "within the step timeout of 400 ms" in error
    assert "waited" in error
    assert confirm_result["action"] == "goto cancel"
    assert json.loads(workflow["steps"][2]["messages"][0]["payload"])["mode"] == "cancel"


def test_without_onfailure_the_missing_reply_fails_the_workflow_with_its_cause(tmp_path, broker):
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=300))
    workflow = run(tmp_path, broker, doc, requestId="r-never-2", mode="never")
    assert workflow["status"] == "failed"
    assert workflow["error"]["stepId"] == "confirm"
    assert "no message with correlationId 'r-never-2'" in workflow["error"]["message"]


def test_a_late_reply_within_the_timeout_passes(tmp_path, broker):
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=5000))
    workflow = run(tmp_path, broker, doc, requestId="r-late", mode="late", delayMs=300)
    assert workflow["status"] == "passed", workflow
    assert workflow["steps"][1]["outputs"] == {"orderId": 71, "status": "confirmed"}


def test_a_reply_that_fails_the_success_criteria_fails_the_step_saying_what_it_read(tmp_path, broker):
    doc = events_doc(send_step("place"), receive_step("confirm"))
    workflow = run(tmp_path, broker, doc, requestId="r-error", mode="error")
    assert workflow["status"] == "failed"
    confirm = workflow["steps"][1]
    assert confirm["error"].startswith("successCriteria failed: ")
    assert "error" in confirm["error"]  # the status the reply carried
    assert confirm["outputs"]["status"] == "error"
    assert json.loads(confirm["messages"][0]["payload"])["error"] == "out of stock"


def test_a_responder_answering_in_under_a_millisecond_is_never_missed(tmp_path, broker):
    """Subscribe-before-send: the receive step's subscription exists before the send goes out, so a
    reply published the moment the request arrives is in its buffer. Twenty runs, every one passes."""
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=3000))
    path = write_events(tmp_path, doc, orders_asyncapi("mqtt"))
    statuses = []
    for number in range(20):
        result = arazzo_runner.run(
            str(path), inputs={"requestId": f"race-{number}"}, servers={"orders": broker}
        )
        statuses.append(result.status)
    assert statuses == ["passed"] * 20


def test_two_receives_in_flight_are_joined_by_depends_on(tmp_path, broker):
    """The first reply comes late, the second at once: both receives wait at the same time, and the step
    that depends on both runs after both, with both outputs."""
    first = send_step("placeA", request_id="a-1", mode="late")
    second = send_step("placeB", request_id="b-1", mode="ok")
    summary = send_step(
        "summary",
        request_id="sum-1",
        mode="never",
        dependsOn=["confirmA", "confirmB"],
        requestBody={
            "payload": {
                "requestId": "sum-1",
                "petId": 0,
                "mode": "never",
                "orders": ["$steps.confirmA.outputs.orderId", "$steps.confirmB.outputs.orderId"],
            }
        },
    )
    doc = events_doc(
        first,
        receive_step("confirmA", correlation="a-1", timeout=5000),
        second,
        receive_step("confirmB", correlation="b-1", timeout=5000),
        summary,
    )
    workflow = run(tmp_path, broker, doc, delayMs=400)
    assert workflow["status"] == "passed", workflow
    order = [s["stepId"] for s in workflow["steps"]]
    assert order.index("placeB") < order.index("confirmA")  # placeB ran while confirmA was waiting
    assert order[-1] == "summary"
    assert json.loads(workflow["steps"][-1]["messages"][0]["payload"])["orders"] == [71, 71]


def test_an_unjoined_receive_that_fails_fails_the_workflow_at_its_end(tmp_path, broker):
    doc = events_doc(
        send_step("place"), receive_step("confirm", timeout=300), send_step("after", mode="never")
    )
    workflow = run(tmp_path, broker, doc, requestId="r-unjoined", mode="never")
    assert workflow["status"] == "failed"
    assert [s["stepId"] for s in workflow["steps"]] == ["place", "after", "confirm"]
    assert workflow["error"]["stepId"] == "confirm"
    assert "no message with correlationId 'r-unjoined'" in workflow["error"]["message"]


def test_waiting_receives_are_cancelled_and_recorded_when_the_workflow_fails(tmp_path, broker):
    # a send whose criterion fails at run time (a document error would keep the workflow from running)
    bad = send_step(
        "bad", mode="ok", successCriteria=[{"condition": "$message.payload#/requestId == 'another'"}]
    )
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=5000), bad)
    workflow = run(tmp_path, broker, doc, requestId="r-cancel", mode="late", delayMs=2000)
    assert workflow["status"] == "failed"
    assert workflow["error"]["stepId"] == "bad"
    assert "successCriteria failed: $message.payload#/requestId == 'another'" in workflow["error"]["message"]
    confirm = next(s for s in workflow["steps"] if s["stepId"] == "confirm")
    assert confirm["status"] == "failed"
    assert confirm["error"] == "cancelled before it completed: the workflow failed at step 'bad'"


def test_headers_over_mqtt_3_1_1_fail_the_step_rather_than_being_dropped(tmp_path, broker):
    step = send_step("place", parameters=[{"name": "orderRequestId", "in": "header", "value": "h-1"}])
    workflow = run(tmp_path, broker, events_doc(step), requestId="r-h")
    assert workflow["status"] == "failed"
    assert "MQTT 3.1.1 messages carry no headers (orderRequestId)" in workflow["error"]["message"]
    assert "protocolVersion to 5" in workflow["error"]["message"]


def test_a_broker_that_is_not_there_fails_the_step_naming_it(tmp_path):
    doc = events_doc(send_step("place"))
    path = write_events(tmp_path, doc, orders_asyncapi("mqtt"))
    workflow = arazzo_runner.run(str(path), servers={"orders": "mqtt://127.0.0.1:9"}, timeout=5).to_dict()[
        "workflows"
    ][0]
    assert workflow["status"] == "failed"
    assert "mqtt broker mqtt://127.0.0.1:9: connecting failed" in workflow["error"]["message"]


def test_a_secret_in_a_message_is_masked_in_every_output(tmp_path, broker):
    """A `format: password` input sent in a payload: never shown by --verbose, the JSON result, the
    report file or JUnit, though it really went to the broker (the reply carries the request id)."""
    import subprocess
    import sys

    from tests.e2e.eventkit import INPUTS, ROOT

    secret = "s3cr3t-t0ken-987"
    place = send_step("place")
    place["requestBody"]["payload"]["token"] = "$inputs.token"
    doc = events_doc(place, receive_step("confirm"))
    doc["workflows"][0]["inputs"] = {
        **INPUTS,
        "properties": {**INPUTS["properties"], "token": {"type": "string", "format": "password"}},
    }
    path = write_events(tmp_path, doc, orders_asyncapi("mqtt"))
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    args = ["run", str(path), "--server", f"orders={broker}", "--input", f"token={secret}", "--verbose"]
    args += ["--input", "requestId=r-secret", "--report-json", str(report), "--junit", str(junit)]
    done = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = {
        "stdout": done.stdout,
        "stderr": done.stderr,
        "report": report.read_text(),
        "junit": junit.read_text(),
    }
    for name, text in outputs.items():
        assert secret not in text, f"the secret leaked into {name}"
    assert '"token":"***"' in done.stdout  # the --verbose line of the message sent, masked
    assert "***" in outputs["report"] and "***" in outputs["junit"]


def test_a_receive_whose_only_action_is_end_is_waited_for_where_it_stands(tmp_path, broker):
    """Its outcome decides what runs next (`end` stops the workflow on success), so the step after it
    must not start while it waits: a non-blocking receive would let `after` send first."""
    confirm = receive_step("confirm", timeout=5000, onSuccess=[{"name": "done", "type": "end"}])
    doc = events_doc(send_step("place"), confirm, send_step("after", request_id="after-1", mode="never"))
    workflow = run(tmp_path, broker, doc, requestId="r-end", mode="late", delayMs=300)
    assert workflow["status"] == "passed", workflow
    assert steps(workflow) == [("place", "passed"), ("confirm", "passed")]  # `after` never ran


def test_a_receive_whose_only_action_is_an_onfailure_goto_is_waited_for_too(tmp_path, broker):
    """A goto on failure decides what runs next as much as one on success: `after` must not run while
    `confirm` waits, and once it fails the workflow goes to `cancel`."""
    confirm = receive_step(
        "confirm", timeout=400, onFailure=[{"name": "giveUp", "type": "goto", "stepId": "cancel"}]
    )
    after = send_step("after", request_id="after-2", mode="never")
    cancel = send_step("cancel", request_id="cancel-2", mode="never")
    doc = events_doc(send_step("place"), confirm, after, cancel)
    workflow = run(tmp_path, broker, doc, requestId="r-goto-only", mode="never")
    assert steps(workflow) == [("place", "passed"), ("confirm", "failed"), ("cancel", "passed")]


def test_a_timeout_says_how_many_other_messages_came_that_did_not_match(tmp_path, broker):
    """The responder answers `r-other` (and a decoy for `other-r-other`) while the step waits for
    another id: the timeout counts what it passed over, so a wrong correlationId is easy to spot."""
    doc = events_doc(send_step("place"), receive_step("confirm", correlation="nobody", timeout=1500))
    workflow = run(tmp_path, broker, doc, requestId="r-other")
    assert workflow["status"] == "failed"
    message = workflow["error"]["message"]
    assert "no message with correlationId 'nobody' on channel 'orders/replies'" in message
    counted = re.search(r"; (\d+) other message\(s\) did not match$", message)
    assert counted and int(counted.group(1)) >= 2, message


def test_the_run_s_events_tell_every_message_sent_received_or_not_sent(tmp_path, broker):
    """What --verbose and a library listener see: a message the broker refused is an event too, with
    its error (the JSON result lists it on the step as well)."""
    from arazzo_runner.executor.events import MessageReceived, MessageSent

    bad = send_step(
        "bad", parameters=[{"name": "orderRequestId", "in": "header", "value": "h-2"}], dependsOn=["confirm"]
    )
    path = write_events(
        tmp_path, events_doc(send_step("place"), receive_step("confirm"), bad), orders_asyncapi("mqtt")
    )
    seen = []
    result = arazzo_runner.run(
        str(path), inputs={"requestId": "r-events"}, servers={"orders": broker}, on_event=seen.append
    )
    assert result.status == "failed"
    messages = [e for e in seen if isinstance(e, (MessageSent, MessageReceived))]
    assert [(type(e).__name__, e.step_id, e.message.direction) for e in messages] == [
        ("MessageSent", "place", "send"),
        ("MessageReceived", "confirm", "receive"),
        ("MessageSent", "bad", "send"),
    ]
    assert messages[0].message.error is None
    assert "MQTT 3.1.1 messages carry no headers (orderRequestId)" in messages[2].message.error
    [step] = [s for s in result.to_dict()["workflows"][0]["steps"] if s["stepId"] == "bad"]
    assert "MQTT 3.1.1 messages carry no headers" in step["messages"][0]["error"]


def test_a_correlation_id_for_messages_that_define_no_location_fails_saying_so(tmp_path, broker):
    """Nothing tells where to read the id: the step fails at once naming the channel, rather than
    waiting its whole timeout for a match that cannot happen (validate warns: correlation-id-location)."""
    asyncapi = orders_asyncapi("mqtt")
    del asyncapi["components"]["messages"]["OrderReply"]["correlationId"]
    doc = events_doc(send_step("place"), receive_step("confirm", timeout=60000))
    workflow = run_events(tmp_path, asyncapi, {"orders": broker}, doc, requestId="r-noloc")
    assert workflow["status"] == "failed"
    assert workflow["error"]["message"] == (
        "correlationId given, but the messages of channel 'orderReplies' define no correlationId location"
    )
