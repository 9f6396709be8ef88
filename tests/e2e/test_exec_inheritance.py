"""Workflow-level actions and parameters inherited by every step, and reusable components by reference."""

from __future__ import annotations

import pytest

from arazzo_runner.errors import UsageError
from tests.e2e.execkit import end, execute, flaky, goto, hits, listing, ok200, only, pet, retry, trail, when

DOWN = (503, {})
UP = (200, {})


def test_workflow_failure_actions_apply_to_every_step(write, server):
    server.reply("GET", "/flaky", DOWN, UP, DOWN, UP)
    workflow = {
        "workflowId": "w",
        "failureActions": [retry()],
        "steps": [flaky("one", successCriteria=ok200()), flaky("two", successCriteria=ok200())],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert trail(wf) == [("one", "passed", 2), ("two", "passed", 2)]
    assert len(server.requests) == 4


def test_workflow_success_actions_apply_to_every_step(write, server):
    server.reply("GET", "/pets", (200, {"stop": False}), (200, {"stop": True}))
    workflow = {
        "workflowId": "w",
        "successActions": [end("done", criteria=when("$response.body#/stop == true"))],
        "steps": [listing("a"), listing("b"), pet("c")],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert trail(wf) == [("a", "passed", 1), ("b", "passed", 1)]
    assert wf["steps"][1]["action"] == "end"
    assert hits(server) == ["GET /pets", "GET /pets"]


def test_a_step_action_overrides_the_workflow_action_of_the_same_name(write, server):
    """The workflow's `handle` (goto list) would apply to this failure; the step's own `handle` replaces
    it, and its criteria do not hold: no failure action applies, so the workflow fails at the step."""
    server.reply("GET", "/flaky", DOWN)
    server.reply("GET", "/pets", UP)
    only_on_404 = goto("handle", stepId="skipped", criteria=when("$statusCode == 404"))
    workflow = {
        "workflowId": "w",
        "failureActions": [goto("handle", stepId="list")],
        "steps": [
            flaky("f", successCriteria=ok200(), onFailure=[only_on_404]),
            pet("skipped"),
            listing("list"),
        ],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "failed"
    assert trail(wf) == [("f", "failed", 1)]
    assert hits(server) == ["GET /flaky"]


def test_a_step_action_of_the_same_name_is_the_one_that_runs(write, server):
    server.reply("GET", "/flaky", DOWN)
    server.reply("GET", "/pets", UP)
    workflow = {
        "workflowId": "w",
        "failureActions": [end("handle")],
        "steps": [
            flaky("f", successCriteria=ok200(), onFailure=[goto("handle", stepId="list")]),
            pet("skipped"),
            listing("list"),
        ],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert trail(wf) == [("f", "failed", 1), ("list", "passed", 1)]
    assert hits(server) == ["GET /flaky", "GET /pets"]


def test_inherited_actions_are_never_removed_and_come_after_the_steps_own(write, server):
    """The step's own actions are tried first; a workflow action with another name still applies."""
    server.reply("GET", "/flaky", (500, {}))
    server.reply("GET", "/pets", UP)
    workflow = {
        "workflowId": "w",
        "failureActions": [
            goto("toList", stepId="list"),
            end("neverReached"),
        ],
        "steps": [
            flaky("f", onFailure=[goto("only404", stepId="skipped", criteria=when("$statusCode == 404"))]),
            pet("skipped"),
            listing("list"),
        ],
    }
    wf = only(execute(write, server, workflow))

    assert trail(wf) == [("f", "failed", 1), ("list", "passed", 1)]
    assert wf["steps"][0]["action"] == "goto list"


def test_workflow_parameters_are_sent_by_every_step_and_overridden_by_name(write, server):
    server.reply("GET", "/pets/{petId}", UP)
    workflow = {
        "workflowId": "w",
        "parameters": [
            {"name": "X-Trace", "in": "header", "value": "from-workflow"},
            {"name": "petId", "in": "path", "value": "100"},
        ],
        "steps": [
            {"stepId": "inherits", "operationId": "getPet"},
            {
                "stepId": "overrides",
                "operationId": "getPet",
                "parameters": [{"name": "x-trace", "in": "header", "value": "from-step"}],  # names: any case
            },
            {
                "stepId": "overridesPath",
                "operationId": "getPet",
                "parameters": [{"name": "petId", "in": "path", "value": "7"}],
            },
        ],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert hits(server) == ["GET /pets/100", "GET /pets/100", "GET /pets/7"]
    assert [r.headers.get("x-trace") for r in server.requests] == [
        "from-workflow",
        "from-step",
        "from-workflow",
    ]
    assert [len([k for k, _ in r.raw_headers if k.lower() == "x-trace"]) for r in server.requests] == [
        1,
        1,
        1,
    ]


def test_component_parameter_by_reference_with_and_without_a_value_override(write, server):
    server.reply("GET", "/pets/{petId}", UP)
    components = {
        "parameters": {
            "trace": {"name": "X-Trace", "in": "header", "value": "component-default"},
            "pet": {"name": "petId", "in": "path", "value": "$inputs.id"},
        }
    }
    steps = [
        {
            "stepId": "plain",
            "operationId": "getPet",
            "parameters": [
                {"reference": "$components.parameters.pet"},
                {"reference": "$components.parameters.trace"},
            ],
        },
        {
            "stepId": "overridden",
            "operationId": "getPet",
            "parameters": [
                {"reference": "$components.parameters.pet", "value": 9},
                {"reference": "$components.parameters.trace", "value": "{$inputs.id}-override"},
            ],
        },
    ]
    workflow = {"workflowId": "w", "inputs": {"type": "object", "properties": {"id": {"type": "integer"}}}}
    wf = only(execute(write, server, {**workflow, "steps": steps}, components=components, inputs={"id": 3}))

    assert wf["status"] == "passed"
    assert hits(server) == ["GET /pets/3", "GET /pets/9"]
    assert [r.headers.get("x-trace") for r in server.requests] == ["component-default", "3-override"]


def test_component_success_and_failure_actions_by_reference(write, server):
    server.reply("GET", "/flaky", DOWN, UP)
    server.reply("GET", "/pets", UP)
    components = {
        "successActions": {"finish": {"name": "finish", "type": "end"}},
        "failureActions": {
            "retryOnce": {"name": "retryOnce", "type": "retry", "retryAfter": 0, "retryLimit": 1},
        },
    }
    steps = [
        flaky(
            "f",
            successCriteria=ok200(),
            onFailure=[{"reference": "$components.failureActions.retryOnce"}],
            onSuccess=[{"reference": "$components.successActions.finish"}],
        ),
        listing("neverRun"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, components=components))

    assert wf["status"] == "passed"
    assert trail(wf) == [("f", "passed", 2)]
    assert wf["steps"][0]["action"] == "end"
    assert hits(server) == ["GET /flaky", "GET /flaky"]


def test_workflow_level_component_action_references_are_inherited(write, server):
    server.reply("GET", "/flaky", DOWN)
    server.reply("GET", "/pets", UP)
    components = {"failureActions": {"toList": {"name": "toList", "type": "goto", "stepId": "list"}}}
    workflow = {
        "workflowId": "w",
        "failureActions": [{"reference": "$components.failureActions.toList"}],
        "steps": [flaky("f", successCriteria=ok200()), pet("skipped"), listing("list")],
    }
    wf = only(execute(write, server, workflow, components=components))

    assert trail(wf) == [("f", "failed", 1), ("list", "passed", 1)]


INPUT_COMPONENTS = {
    "inputs": {
        "petQuery": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "trace": {"type": "string", "default": "from-default"}},
            "required": ["id"],
        }
    }
}


def _ref_inputs_workflow() -> dict:
    return {
        "workflowId": "w",
        "inputs": {"$ref": "#/components/inputs/petQuery"},
        "steps": [
            {
                "stepId": "get",
                "operationId": "getPet",
                "parameters": [
                    {"name": "petId", "in": "path", "value": "$inputs.id"},
                    {"name": "X-Trace", "in": "header", "value": "$inputs.trace"},
                ],
            }
        ],
    }


def test_inputs_by_ref_to_components_get_defaults_applied(write, server):
    server.reply("GET", "/pets/{petId}", UP)
    wf = only(
        execute(write, server, _ref_inputs_workflow(), components=INPUT_COMPONENTS, inputs={"id": "12"})
    )

    assert wf["status"] == "passed"
    assert hits(server) == ["GET /pets/12"]
    assert server.requests[0].headers["x-trace"] == "from-default"


def test_inputs_by_ref_to_components_are_validated_before_sending(write, server):
    with pytest.raises(UsageError) as caught:
        execute(write, server, _ref_inputs_workflow(), components=INPUT_COMPONENTS, inputs={})

    assert "id" in str(caught.value)
    assert "required" in str(caught.value)
    assert server.requests == []
