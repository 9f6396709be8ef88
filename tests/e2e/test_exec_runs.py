"""Runs of several workflows, one loaded document run many times, concurrently, and the run's events."""

from __future__ import annotations

import asyncio

import pytest

import arazzo_runner
from arazzo_runner.errors import UsageError
from arazzo_runner.executor.events import (
    RequestSent,
    ResponseReceived,
    StepFinished,
    StepRetrying,
    StepStarted,
    WorkflowFinished,
    WorkflowStarted,
)
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import execute, hits, listing, ok200, only, pet, retry, trail


def _workflows() -> list[dict]:
    return [
        {"workflowId": "first", "steps": [pet("one", "1")]},
        {
            "workflowId": "second",
            "inputs": {"type": "object", "properties": {"id": {"type": "string", "default": "2"}}},
            "steps": [pet("two", "$inputs.id")],
        },
        {"workflowId": "third", "steps": [listing("three")]},
    ]


def test_without_a_selection_every_workflow_runs_in_document_order(write, server):
    server.reply("GET", "/pets/{petId}", (200, {}))
    server.reply("GET", "/pets", (200, []))
    result = execute(write, server, *_workflows())

    assert result["status"] == "passed"
    assert [w["workflowId"] for w in result["workflows"]] == ["first", "second", "third"]
    assert hits(server) == ["GET /pets/1", "GET /pets/2", "GET /pets"]


def test_selected_workflows_run_in_the_order_given_with_the_inputs_each_declares(write, server):
    server.reply("GET", "/pets/{petId}", (200, {}))
    server.reply("GET", "/pets", (200, []))
    result = execute(
        write, server, *_workflows(), workflow=["third", "second"], inputs={"id": "9", "other": 1}
    )

    assert [w["workflowId"] for w in result["workflows"]] == ["third", "second"]
    assert hits(server) == ["GET /pets", "GET /pets/9"]


def test_a_failed_workflow_fails_the_run_but_the_others_still_run(write, server):
    server.reply("GET", "/pets/{petId}", (500, {}), (200, {}))
    server.reply("GET", "/pets", (200, []))
    result = execute(write, server, *_workflows())

    assert result["status"] == "failed"
    assert [(w["workflowId"], w["status"]) for w in result["workflows"]] == [
        ("first", "failed"),
        ("second", "passed"),
        ("third", "passed"),
    ]
    assert len(server.requests) == 3


def test_an_unknown_workflow_is_a_usage_error_before_anything_is_sent(write, server):
    with pytest.raises(UsageError) as caught:
        execute(write, server, *_workflows(), workflow=["first", "nope"])

    assert "no workflow 'nope'" in str(caught.value)
    assert "first, second, third" in str(caught.value)
    assert server.requests == []


@pytest.mark.parametrize(
    ("workflow", "inputs", "expected"),
    [
        ("nope", {}, "no workflow 'nope'"),
        ("second", {"id": 7}, "invalid inputs"),
    ],
    ids=["unknown-workflow", "invalid-inputs"],
)
def test_errors_raised_from_run_carry_no_unrelated_context(write, server, workflow, inputs, expected):
    # run() first checks for a running event loop: that probe's "no running event loop" RuntimeError
    # must not become the __context__ of what the run raises (a traceback would print it first)
    path = write(arazzo_doc(*_workflows()))
    with pytest.raises(UsageError, match=expected) as caught:
        arazzo_runner.run(path, workflow, inputs, servers={"pets": server.url})
    assert caught.value.__context__ is None
    assert caught.value.__cause__ is None
    assert server.requests == []


def test_one_loaded_document_runs_twenty_times_concurrently_with_independent_results(write, server):
    @server.route("GET", "/pets/{petId}")
    def echo(request):
        return 200, {"name": f"pet-{request.params['petId']}"}

    @server.route("GET", "/pets")
    def listing_echo(request):
        return 200, [{"id": int(request.query["limit"][0])}]

    workflow = {
        "workflowId": "w",
        "inputs": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        "steps": [
            listing(
                "list",
                parameters=[{"name": "limit", "in": "query", "value": "$inputs.n"}],
                outputs={"id": "$response.body#/0/id"},
            ),
            pet("get", "$steps.list.outputs.id", outputs={"name": "$response.body#/name"}),
        ],
        "outputs": {"name": "$steps.get.outputs.name", "n": "$inputs.n"},
    }
    workspace = arazzo_runner.load(write(arazzo_doc(workflow)))

    async def many() -> list:
        runs = [arazzo_runner.arun(workspace, "w", {"n": n}, servers={"pets": server.url}) for n in range(20)]
        return await asyncio.gather(*runs)

    results = asyncio.run(many())

    assert len(results) == 20
    for n, result in enumerate(results):
        wf = only(result.to_dict())
        assert wf["status"] == "passed"
        assert wf["outputs"] == {"name": f"pet-{n}", "n": n}
        assert trail(wf) == [("list", "passed", 1), ("get", "passed", 1)]
    assert len(server.requests) == 40
    assert sorted(r.path for r in server.requests if r.path != "/pets") == sorted(
        f"/pets/{n}" for n in range(20)
    )


def test_run_inside_an_event_loop_asks_for_arun(write, server):
    path = write(arazzo_doc(*_workflows()))

    async def inside() -> None:
        arazzo_runner.run(path, servers={"pets": server.url})

    with pytest.raises(UsageError, match="arun"):
        asyncio.run(inside())
    assert server.requests == []


def _a_retry_then_a_nested_workflow(server) -> tuple[dict, dict]:
    """`parent`: step `f` answered 503 then 200 (one retry), then step `call` running `child` (one step)."""
    server.reply("GET", "/flaky", (503, {}), (200, {}))
    server.reply("GET", "/pets/{petId}", (200, {}))
    child = {"workflowId": "child", "steps": [pet("inner")]}
    parent = {
        "workflowId": "parent",
        "steps": [
            {"stepId": "f", "operationId": "flaky", "successCriteria": ok200(), "onFailure": [retry()]},
            {"stepId": "call", "workflowId": "child"},
        ],
    }
    return parent, child


def test_events_follow_the_execution(write, server):
    parent, child = _a_retry_then_a_nested_workflow(server)
    events: list = []
    execute(write, server, parent, child, workflow="parent", on_event=events.append)

    def describe(event) -> tuple:
        if isinstance(event, WorkflowStarted):
            return ("start", event.workflow_id, event.depth)
        if isinstance(event, WorkflowFinished):
            return ("done", event.result.workflow_id, event.result.status, event.depth)
        if isinstance(event, StepStarted):
            return ("step", event.step_id, event.depth)
        if isinstance(event, StepRetrying):
            return ("retry", event.step_id, event.attempt)
        if isinstance(event, RequestSent):
            return (">", event.step_id)
        if isinstance(event, ResponseReceived):
            return ("<", event.step_id, event.exchange.status_code)
        assert isinstance(event, StepFinished)
        return ("stepDone", event.result.step_id, event.result.status, event.depth)

    assert [describe(e) for e in events] == [
        ("start", "parent", 0),
        ("step", "f", 0),
        (">", "f"),
        ("<", "f", 503),
        ("retry", "f", 2),
        (">", "f"),
        ("<", "f", 200),
        ("stepDone", "f", "passed", 0),
        ("step", "call", 0),
        ("start", "child", 1),
        ("step", "inner", 1),
        (">", "inner"),
        ("<", "inner", 200),
        ("stepDone", "inner", "passed", 1),
        ("done", "child", "passed", 1),
        ("stepDone", "call", "passed", 0),
        ("done", "parent", "passed", 0),
    ]


class _Chosen(list):
    """A handler that names the events it takes (`event_types`): the run builds no other."""

    event_types = frozenset({StepFinished, WorkflowFinished})

    def __call__(self, event) -> None:
        self.append(event)


def test_a_handler_naming_its_event_types_gets_those_alone_in_order(write, server):
    parent, child = _a_retry_then_a_nested_workflow(server)
    events = _Chosen()
    result = execute(write, server, parent, child, workflow="parent", on_event=events)
    assert result["status"] == "passed"
    assert [
        (type(e).__name__, e.result.step_id if isinstance(e, StepFinished) else e.result.workflow_id, e.depth)
        for e in events
    ] == [
        ("StepFinished", "f", 0),
        ("StepFinished", "inner", 1),
        ("WorkflowFinished", "child", 1),
        ("StepFinished", "call", 0),
        ("WorkflowFinished", "parent", 0),
    ]
    assert events[0].result.attempts == 2 and events[0].result.status == "passed"
