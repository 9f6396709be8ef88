"""What a model's proposal may not send (`generate/confine.py`): a step with `x-operation` names why the
proposal goes, its URL shown as URLs are; `x-security` and workflow parameters not every operation
declares are left out, each said."""

from __future__ import annotations

from types import SimpleNamespace

from arazzo_runner.generate.confine import sends_elsewhere, shared_parameters, without_x_security
from arazzo_runner.generate.operations import InputSpec


def _plan(*params: tuple[str, str]) -> SimpleNamespace:
    return SimpleNamespace(
        inputs=[InputSpec(n, {"type": "string"}, False, ("param", w, n)) for w, n in params]
    )


def test_a_step_with_x_operation_is_the_reason_its_url_masked_and_inert():
    steps = [
        {"stepId": "ok", "operationId": "listBooks"},
        {
            "stepId": "out",
            "x-operation": {"method": "put", "url": "https://me:hunter2@evil.example/\x1b[2Jx"},
        },
    ]
    assert sends_elsewhere(steps) == (
        "step 'out' calls PUT 'https://me:***@evil.example/\\x1b[2Jx' through x-operation: a proposal may "
        "call only the descriptions' operations"
    )
    malformed = [{"stepId": "s", "x-operation": "https://evil.example"}]  # not even an object: still goes
    assert sends_elsewhere(malformed) == (
        "step 's' calls a URL of its own through x-operation: a proposal may call only the descriptions' "
        "operations"
    )
    assert sends_elsewhere([{"stepId": "a", "operationId": "x", "x-note": "kept"}]) is None


def test_x_security_is_left_out_and_said():
    notes: list[str] = []
    step = {"stepId": "s", "x-security": [{"schemeName": "k"}], "x-note": 1}
    without_x_security(step, notes, "step s")
    assert step == {"stepId": "s", "x-note": 1}
    assert notes == ["step s: x-security left out (the engine applies the descriptions' security schemes)"]
    without_x_security(step, notes, "step s")
    assert len(notes) == 1


def test_a_workflow_parameter_is_kept_only_when_every_operation_declares_it():
    plans = {"a": _plan(("query", "author"), ("header", "X-Trace")), "b": _plan(("query", "author"))}
    workflow = {
        "parameters": [
            {"name": "author", "in": "query", "value": "$inputs.author"},
            {"name": "X-Trace", "in": "header", "value": "1"},  # b's operation does not have it
            {"name": "Host", "in": "header", "value": "evil.example"},
            {"name": "child", "value": "$inputs.child"},  # for workflow steps: kept
            {"reference": "$components.parameters.p"},
        ]
    }
    notes: list[str] = []
    needed: list[tuple] = []
    shared_parameters(workflow, plans, notes, lambda value, spec: needed.append((value, spec.target)))
    assert workflow["parameters"] == [
        {"name": "author", "in": "query", "value": "$inputs.author"},
        {"name": "child", "value": "$inputs.child"},
    ]
    assert needed == [("$inputs.author", ("param", "query", "author"))] * 2
    assert notes == [
        "workflow parameter 'X-Trace' (header) left out (not a parameter of the operation of step 'b'; the "
        "engine sends a workflow's parameters with each of its steps)",
        "workflow parameter 'Host' (header) left out (not a parameter of the operation of step 'a'; the "
        "engine sends a workflow's parameters with each of its steps)",
        "a workflow parameter without a name left out",
    ]
    alone = {"parameters": {"Host": "evil.example"}}
    shared_parameters(alone, plans, notes, lambda *_: None)
    assert alone == {} and notes[-1] == "workflow parameters that are not a list left out"
