"""A run's result across the Temporal boundary (arazzo_runner/temporal/results.py): the same objects back
on the client, secrets masked before they leave the worker, and nothing but the result's own classes
rebuilt from a payload."""

from __future__ import annotations

import json

import pytest

from arazzo_runner.executor.values import Outputs
from arazzo_runner.masking.secrets import Masker
from arazzo_runner.result import Exchange, NullOutput, ResponseExcerpt, RunResult, StepResult, WorkflowResult
from arazzo_runner.temporal.results import ResultError, decode, encode


def _result(secret: str = "tok-123456789") -> RunResult:
    outputs = Outputs({"plain": {"$r": "RunResult", "n": [1, 2.5, None, True]}, "token": secret})
    outputs.secret.add("token")
    outputs.missing["gone"] = "the step did not run"
    answer = f"answer {secret}".encode()
    exchange = Exchange("GET", "http://h/x", [("X-Key", secret)], b"\xff\x00body", 200,
                        [("content-type", "text/plain")], answer, None, 1.5, 2.5)  # fmt: skip
    step = StepResult("s", "failed", 2, 503, outputs, 3.0, "HTTP 503", ["c"], [NullOutput("null")],
                      exchanges=[exchange], response=ResponseExcerpt(503, "text/plain", "busy", 4),
                      trace={"attempts": [("a", 1)]})  # fmt: skip
    child = WorkflowResult("child", outputs=Outputs({"x": 1}), item=3)
    step.workflow = child
    return RunResult([WorkflowResult("flow", "failed", Outputs(), {"stepId": "s"}, [step])])


def test_a_result_comes_back_as_the_same_objects():
    result = _result()
    back = decode(json.loads(json.dumps(encode(result))))
    step = back.workflows[0].steps[0]
    assert type(step.warnings[0]) is NullOutput
    assert step.outputs.secret == {"token"} and step.outputs["token"] == "***"  # never in the history
    assert step.outputs.missing == {"gone": "the step did not run"}
    assert step.outputs["plain"] == {"$r": "RunResult", "n": [1, 2.5, None, True]}  # data stays data
    assert step.exchanges[0].request_body == b"\xff\x00body"
    assert step.trace == {"attempts": [("a", 1)]}
    original = result.workflows[0].steps[0]
    original.outputs["token"] = "***"
    assert back == result
    assert step.workflow.item == 3 and step.workflow.outputs == {"x": 1}


def test_the_runs_secrets_are_masked_before_the_result_leaves_the_worker():
    secret = "tok-123456789"
    text = json.dumps(encode(_result(secret), Masker.over({secret})))
    assert secret not in text
    back = decode(json.loads(text))
    exchange = back.workflows[0].steps[0].exchanges[0]
    assert exchange.request_headers == [("X-Key", "***")]
    assert exchange.response_body == b"answer ***"


@pytest.mark.parametrize(
    "payload",
    [
        {"$r": "Popen", "f": {}},
        {"$s": "bytes", "v": "x"},
        {"unknown": 1},
        {"$d": "not pairs"},
    ],
)
def test_a_payload_that_is_not_a_result_is_refused(payload):
    with pytest.raises(ResultError):
        decode(payload)
