"""A run's steps and workflow as Locust request events: names, request types, times, lengths, and the
failure cause, masked, first line only, cut."""

from __future__ import annotations

from arazzo_runner.executor.events import StepFinished, StepStarted
from arazzo_runner.loadtest.reporting import MESSAGE_LIMIT, RequestEvents, StepFailed
from arazzo_runner.masking.secrets import Masker
from arazzo_runner.result import FAILED, Exchange, Message, StepResult, WorkflowResult

SECRET = "s3cr3t-token"


def events() -> tuple[RequestEvents, list[dict]]:
    fired: list[dict] = []
    return RequestEvents(lambda **event: fired.append(event), Masker({SECRET})), fired


def exchange(body: bytes, purpose: str | None = None) -> Exchange:
    return Exchange("GET", "http://x/pets", [], None, 200, [], body, purpose=purpose)


def test_a_finished_step_is_one_request_event() -> None:
    handler, fired = events()
    exchanges = [exchange(b"[1, 2]"), exchange(b"[3]"), exchange(b"tokentoken", "oauth2 token")]
    url = f"http://x/pets?key={SECRET}"
    step = StepResult(
        "list", attempts=2, status_code=200, duration_ms=12.5, method="GET", url=url, exchanges=exchanges
    )
    handler(StepStarted("browse", "list", 0))  # other events fire nothing
    handler(StepFinished("browse", step, 1))
    assert fired == [
        {
            "request_type": "GET",
            "name": "browse.list",
            "response_time": 12.5,
            "response_length": 9,  # the step's own responses, not the token request's
            "exception": None,
            "context": {"workflowId": "browse", "stepId": "list", "statusCode": 200, "attempts": 2},
            "url": "http://x/pets?key=***",
        }
    ]


def test_a_failed_step_carries_its_cause_masked_first_line_only() -> None:
    handler, fired = events()
    error = f"successCriteria failed: $response.body#/t == 'x': got '{SECRET}'\nmore detail"
    handler(StepFinished("adopt", StepResult("create", FAILED, method="POST", error=error), 0))
    (event,) = fired
    assert isinstance(event["exception"], StepFailed)
    assert str(event["exception"]) == "successCriteria failed: $response.body#/t == 'x': got '***'"
    handler(StepFinished("adopt", StepResult("create", FAILED, error="x" * 1000), 0))
    assert str(fired[1]["exception"]).startswith("x" * MESSAGE_LIMIT + "...(700 more chars)")
    assert fired[1]["request_type"] == "STEP" and fired[1]["url"] is None  # it sent nothing


def test_an_asyncapi_step_has_its_direction_as_the_type_and_what_it_took_as_the_length() -> None:
    handler, fired = events()
    taken = Message("receive", "mqtt", "mqtt://broker", "orders/1", payload=b'{"id": 1}')
    sent = Message("send", "mqtt", "mqtt://broker", "orders", payload=b'{"want": 1}')
    handler(StepFinished("flow", StepResult("wait", kind="receive", messages=[sent, taken]), 0))
    assert (fired[0]["request_type"], fired[0]["response_length"]) == ("RECEIVE", 9)


def test_a_step_that_ran_a_workflow_has_the_workflow_type() -> None:
    handler, fired = events()
    step = StepResult("nested", workflow=WorkflowResult("child"))
    handler(StepFinished("parent", step, 0))
    assert (fired[0]["request_type"], fired[0]["name"]) == ("WORKFLOW", "parent.nested")


def test_a_workflow_run_is_one_event_with_its_failing_step() -> None:
    handler, fired = events()
    passed = WorkflowResult(
        "browse", duration_ms=30.0, steps=[StepResult("list", exchanges=[exchange(b"abc")])]
    )
    handler.workflow("browse", passed)
    failed = WorkflowResult("adopt", duration_ms=5.0)
    failed.fail("create", f"status 500, token {SECRET}")
    handler.workflow("adopt", failed)
    handler.workflow("adopt", None, "inputs of the task: 'who' is not a string")
    assert [(e["name"], e["request_type"], e["response_time"], e["response_length"]) for e in fired] == [
        ("workflow browse", "WORKFLOW", 30.0, 3),
        ("workflow adopt", "WORKFLOW", 5.0, 0),
        ("workflow adopt", "WORKFLOW", 0.0, 0),
    ]
    assert fired[0]["exception"] is None
    assert str(fired[1]["exception"]) == "step create: status 500, token ***"
    assert str(fired[2]["exception"]) == "inputs of the task: 'who' is not a string"
