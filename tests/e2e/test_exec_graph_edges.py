"""Steps as a graph (issue 36), the edges a mutation round found untested: which expressions order
steps, stretches that start mid-workflow, events delivered as steps finish, loops failing side by side,
Ctrl-C with steps already finished, and the validator's negative cases. Concurrency is shown with
gates and barriers, never clocks."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

from arazzo_runner.executor.events import ResponseReceived, StepFinished
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import execute, flaky, goto, hits, only, pet, retry, trail, when
from tests.e2e.test_exec_parallel import Tracker, release_when, run_then_interrupt

V11 = "1.1.0"


def _echo(server) -> None:
    @server.route("GET", "/pets/{petId}")
    def one(request):
        return 200, {"id": request.params["petId"], "body": {"id": request.params["petId"]}}


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", *argv], capture_output=True, text=True, check=False
    )


def _findings(path) -> list[tuple[str, str]]:
    done = _cli("validate", str(path), "--offline", "--format", "json")
    return [(f["rule"], f["message"]) for f in json.loads(done.stdout)["findings"]]


# -- which expressions order steps ----------------------------------------------------------------------


def test_a_list_valued_output_reading_a_later_step_orders_it(write, server):
    _echo(server)
    steps = [
        pet("first", "f", outputs={"pair": ["$steps.later.outputs.id", "$response.body#/id"]}),
        pet("later", "l", outputs={"id": "$response.body#/id"}),
    ]
    wf = only(
        execute(
            write, server, {"workflowId": "w", "steps": steps, "outputs": {"p": "$steps.first.outputs.pair"}}
        )
    )

    assert [s for s, _, _ in trail(wf)] == ["later", "first"]
    assert wf["outputs"] == {"p": ["l", "f"]}


def test_reading_a_later_step_through_its_own_workflow_orders_it(write, server):
    _echo(server)
    steps = [
        pet("use", "$workflows.w.steps.find.outputs.id"),
        pet("find", "7", outputs={"id": "$response.body#/id"}),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))

    assert [s for s, _, _ in trail(wf)] == ["find", "use"]
    assert hits(server) == ["GET /pets/7", "GET /pets/7"]


def test_a_criterion_context_reading_a_later_step_orders_it(write, server):
    _echo(server)
    check = {"context": "$steps.later.outputs.body", "condition": "$.id", "type": "jsonpath"}
    steps = [
        pet("judge", "j", successCriteria=[check]),
        pet("later", "l", outputs={"body": "$response.body#/body"}),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))

    assert wf["status"] == "passed", wf["error"]
    assert [s for s, _, _ in trail(wf)] == ["later", "judge"]


def test_workflow_level_actions_reading_a_step_do_not_order_steps(write, server):
    """The workflow's failureActions are read by every step as it fails; they make no step wait."""
    _echo(server)
    workflow = {
        "workflowId": "w",
        "failureActions": [goto("recover", stepId="login", criteria=when("$steps.login.outputs.id == 'x'"))],
        "steps": [
            pet("before", "1"),
            pet("login", "2", outputs={"id": "$response.body#/id"}),
            pet("after", "3"),
        ],
    }
    wf = only(execute(write, server, workflow))

    assert [s for s, _, _ in trail(wf)] == ["before", "login", "after"]


# -- stretches mid-workflow, their events, their budget ---------------------------------------------------


def test_a_stretch_after_a_step_with_actions_reads_that_step(write, server):
    """`a` decides what runs next (an action), so it runs alone; `b` reads it and `c` is free: both form
    the stretch after it, and `b` is sent, after `a`'s answer."""
    tracker = Tracker(server)
    steps = [
        pet(
            "a",
            "a",
            outputs={"id": "$response.body#/id"},
            onSuccess=[goto("never", stepId="c", criteria=when("$statusCode == 599"))],
        ),
        pet("b", "b-{$steps.a.outputs.id}"),
        pet("c", "c"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=2))

    assert wf["status"] == "passed", wf["error"]
    assert sorted(hits(server)) == ["GET /pets/a", "GET /pets/b-a", "GET /pets/c"]
    assert tracker.answered["a"] < tracker.arrived["b-a"]


def test_a_free_step_does_not_wait_behind_one_that_waits(write, server):
    """`b` waits for `a` (held until `c` is in flight): `c`, needing nothing, starts meanwhile."""
    tracker = Tracker(server)
    release = tracker.gate("a")

    release_when(release, lambda: "c" in tracker.arrived)
    steps = [
        pet("a", "a", outputs={"id": "$response.body#/id"}),
        pet("b", "b-{$steps.a.outputs.id}"),
        pet("c", "c"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=3))

    assert wf["status"] == "passed", wf["error"]
    assert tracker.arrived["c"] < tracker.answered["a"]


def test_a_step_with_a_success_action_never_runs_beside_the_steps_before_it(write, server):
    tracker = Tracker(server)
    release = tracker.gate("a")

    release_when(release, lambda: "b" in tracker.arrived, tries=30)  # a wrong run sends `b` while `a` is held
    steps = [
        pet("a", "a"),
        pet("b", "b", onSuccess=[goto("never", stepId="a", criteria=when("$statusCode == 599"))]),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=2))

    assert wf["status"] == "passed", wf["error"]
    assert tracker.answered["a"] < tracker.arrived["b"]


def test_each_step_is_told_finished_as_soon_as_it_and_those_before_it_are(write, server):
    """`c` is held until the run has told `a` finished: a run that tells only at the end of the stretch
    would hold it for good (the gate gives up after WAIT and the step fails)."""
    told = threading.Event()
    tracker = Tracker(server)
    tracker.gates["c"] = told

    def on_event(event) -> None:
        if isinstance(event, StepFinished) and event.result.step_id == "a":
            told.set()

    steps = [pet("a", "a"), pet("b", "b"), pet("c", "c")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=3, on_event=on_event))

    assert wf["status"] == "passed", wf["error"]


def test_a_retry_through_another_step_runs_alone_with_a_sequential_outcome(write, server):
    _echo(server)
    calls = []

    @server.route("GET", "/flaky")
    def flaky_answer(request):  # each run: 503, then 200
        calls.append(1)
        return (503, {}) if len(calls) % 2 else (200, {})

    steps = [
        pet("warm", "w"),
        flaky("f", onFailure=[retry(stepId="warm", retryLimit=2)]),
        pet("after", "x"),
    ]
    one = only(execute(write, server, {"workflowId": "w", "steps": steps}))
    sequential = hits(server)
    server.requests.clear()
    many = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=2))

    assert one["status"] == many["status"] == "passed"
    assert trail(one) == trail(many)
    assert (
        hits(server)
        == sequential
        == ["GET /pets/w", "GET /flaky", "GET /pets/w", "GET /flaky", "GET /pets/x"]
    )


# -- dependencies and gotos -------------------------------------------------------------------------------


def test_a_dependency_that_failed_its_latest_run_stops_a_step_listing_it(write, server):
    """`check` passes, then fails when the goto runs it again; `use` lists it in dependsOn: not sent."""
    _echo(server)
    server.reply("GET", "/flaky", (200, {"again": True}), (500, {}))
    steps = [
        flaky(
            "check",
            onSuccess=[goto("again", stepId="check", criteria=when("$response.body#/again == true"))],
            onFailure=[goto("go", stepId="use")],
        ),
        pet("unused", "0", onSuccess=[{"name": "stop", "type": "end"}]),
        pet("use", "1", dependsOn=["check"]),
    ]  # fmt: skip
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))

    assert wf["error"]["message"] == "not sent: it depends on step 'check', which failed"
    assert hits(server) == ["GET /flaky", "GET /flaky"]


# -- loops side by side -----------------------------------------------------------------------------------


def _loop_doc(items) -> tuple[dict, dict]:
    child = {
        "workflowId": "show",
        "inputs": {"type": "object", "properties": {"item": {}}},
        "steps": [pet("get", "$inputs.item", successCriteria=[{"condition": "$statusCode == 200"}])],
    }
    main = {
        "workflowId": "main",
        "steps": [{"stepId": "each", "workflowId": "show", "x-forEach": {"items": items, "input": "item"}}],
    }
    return main, child


def test_a_loop_side_by_side_stops_starting_items_after_a_failure_and_fails(write, server):
    """Items 0 and `bad` start together; `bad` fails while 0 is held: no later item starts, and the
    step fails with `bad`'s index even though item 0 then passes. Item 0 is let go as the run reads
    `bad`'s response (its `ResponseReceived`, told as it happens): `bad`'s item then ends without giving
    the loop back, so the loop has seen its failure before item 0's answer can be read. (Released when
    the server had answered `bad`, item 0 could finish first on a busy machine, and item 3 then start,
    rightly.)"""
    tracker = Tracker(server)
    release = tracker.gate("0")

    def on_event(event) -> None:
        if isinstance(event, ResponseReceived) and event.exchange.url.endswith("/pets/bad"):
            release.set()

    main, child = _loop_doc(["0", "bad", "3", "4", "5"])
    wf = only(
        execute(write, server, main, child, version=V11, workflow="main", parallel=2, on_event=on_event)
    )

    assert wf["status"] == "failed"
    assert wf["error"]["message"].startswith("item 1 (of 5): workflow 'show' failed: ")
    assert sorted(hits(server)) == ["GET /pets/0", "GET /pets/bad"]


def test_a_lone_loop_step_runs_its_items_side_by_side(write, server):
    """No other step beside it: the run still takes asyncio for the loop's items."""
    Tracker(server, together=2)
    main, child = _loop_doc(["a", "b"])
    wf = only(execute(write, server, main, child, version=V11, workflow="main", parallel=2))
    assert wf["status"] == "passed", wf["error"]


# -- workflows read beside the step that produces them ----------------------------------------------------


def test_a_step_reading_a_workflows_output_runs_after_the_step_that_runs_it(write, server):
    _echo(server)
    child = {"workflowId": "child", "steps": [pet("get", "c", outputs={"id": "$response.body#/id"})],
             "outputs": {"id": "$steps.get.outputs.id"}}  # fmt: skip
    parent = {"workflowId": "parent", "steps": [
        {"stepId": "call", "workflowId": "child"},
        pet("reader", "r-{$workflows.child.outputs.id}"),
    ]}  # fmt: skip
    wf = only(execute(write, server, parent, child, workflow="parent", parallel=2))

    assert wf["status"] == "passed", wf["error"]
    assert hits(server) == ["GET /pets/c", "GET /pets/r-c"]


# -- Ctrl-C with a step already finished ------------------------------------------------------------------


def test_ctrl_c_keeps_the_steps_of_the_stretch_that_had_finished(write, server):
    tracker = Tracker(server)
    gates = [tracker.gate("b"), tracker.gate("c")]
    path = write(arazzo_doc({"workflowId": "w", "steps": [pet("a", "a"), pet("b", "b"), pet("c", "c")]}))
    argv = ["run", str(path), "--server", f"pets={server.url}", "--parallel", "3", "--format", "json"]
    answered = {"at": None}

    def ready() -> bool:  # `b` and `c` held, and `a`'s answer given 0.2 s ago (the run has read it)
        if {"b", "c"} <= set(tracker.arrived) and "a" in tracker.answered:
            answered["at"] = answered["at"] or time.monotonic()
            return time.monotonic() - answered["at"] > 0.2
        return False

    code, out, err = run_then_interrupt(argv, ready, gates)
    assert code == 130, out + err
    steps = [(s["stepId"], s["status"]) for s in only(json.loads(out))["steps"]]
    assert steps == [("a", "passed"), ("b", "failed"), ("c", "failed")]


# -- the validator's negative cases -----------------------------------------------------------------------


def test_a_cycle_is_the_one_finding_of_its_workflow(write):
    steps = [pet("a", "$steps.b.outputs.id", outputs={"id": "$response.body#/id"}),
             pet("b", "$steps.a.outputs.id", outputs={"id": "$response.body#/id"})]  # fmt: skip
    path = write(arazzo_doc({"workflowId": "w", "steps": steps}, version=V11))
    assert [rule for rule, _ in _findings(path)] == ["step-dependency-cycle"]


def test_a_cycle_through_the_own_workflows_steps_is_found(write):
    steps = [pet("a", "$workflows.w.steps.b.outputs.id", outputs={"id": "$response.body#/id"}),
             pet("b", "$steps.a.outputs.id", outputs={"id": "$response.body#/id"})]  # fmt: skip
    path = write(arazzo_doc({"workflowId": "w", "steps": steps}, version=V11))
    assert "step-dependency-cycle" in [rule for rule, _ in _findings(path)]


def test_the_cycle_named_is_the_cycle_not_the_steps_leading_into_it(write):
    steps = [pet("a", "$steps.b.outputs.id"),
             pet("b", "$steps.c.outputs.id", outputs={"id": "$response.body#/id"}),
             pet("c", "$steps.b.outputs.id", outputs={"id": "$response.body#/id"})]  # fmt: skip
    path = write(arazzo_doc({"workflowId": "w", "steps": steps}, version=V11))
    (message,) = [m for rule, m in _findings(path) if rule == "step-dependency-cycle"]
    assert "('b' -> 'c' -> 'b';" in message


def test_validate_refuses_an_empty_loop_input_and_items_typed_otherwise(write):
    child = {
        "workflowId": "show",
        "inputs": {"type": "object", "properties": {"item": {}}},
        "steps": [pet("get", "1")],
    }
    main = {
        "workflowId": "main",
        "inputs": {"type": "object", "properties": {"ids": {"type": "string"}}},
        "steps": [
            {"stepId": "each", "workflowId": "show", "x-forEach": {"items": "$inputs.ids", "input": ""}}
        ],
    }
    path = write(arazzo_doc(main, child, version=V11))
    assert (
        "x-for-each",
        "x-forEach 'input' must be a workflow input's name, not an empty string",
    ) in _findings(path)
    main["steps"][0]["x-forEach"]["input"] = "item"
    path = write(arazzo_doc(main, child, version=V11))
    expected = "x-forEach items reads input 'ids', which the inputs schema types as string, not an array"
    assert ("x-for-each", expected) in _findings(path)
