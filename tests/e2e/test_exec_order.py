"""Steps as a graph (issue 36): a step runs after the steps it depends on (`dependsOn`, and the steps it
reads), over real HTTP; the array order otherwise; a cycle stops its workflow only; gotos and dependencies."""

from __future__ import annotations

import json
import subprocess
import sys

import arazzo_runner
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import end, execute, flaky, goto, hits, listing, only, pet, trail, when

V11 = "1.1.0"


def _echo_pets(server) -> None:
    @server.route("GET", "/pets/{petId}")
    def one(request):
        return 200, {"id": request.params["petId"]}


def test_a_step_listed_before_the_step_it_reads_runs_after_it(write, server):
    _echo_pets(server)
    server.reply("GET", "/pets", (200, [{"id": 7}]))
    steps = [
        pet("use", "$steps.find.outputs.id"),
        listing("other"),
        pet("find", "7", outputs={"id": "$response.body#/id"}),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed", wf["error"]
    assert trail(wf) == [("other", "passed", 1), ("find", "passed", 1), ("use", "passed", 1)]
    assert hits(server) == ["GET /pets", "GET /pets/7", "GET /pets/7"]


def test_depends_on_a_later_step_runs_it_first_in_1_1(write, server):
    _echo_pets(server)
    steps = [pet("second", "2", dependsOn=["first"]), pet("first", "1")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))

    assert wf["status"] == "passed", wf["error"]
    assert trail(wf) == [("first", "passed", 1), ("second", "passed", 1)]
    assert hits(server) == ["GET /pets/1", "GET /pets/2"]


def test_the_order_is_stable_the_array_order_wherever_it_can_be(write, server):
    _echo_pets(server)
    steps = [
        pet("a", "a"),
        pet("b", "$steps.d.outputs.id"),  # waits for d
        pet("c", "c"),
        pet("d", "d", outputs={"id": "$response.body#/id"}),
        pet("e", "e"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert [s for s, _, _ in trail(wf)] == ["a", "c", "d", "b", "e"]


def test_a_cycle_stops_its_workflow_only_nothing_of_it_is_sent(write, server):
    _echo_pets(server)
    looped = {
        "workflowId": "looped",
        "steps": [
            pet("a", "$steps.b.outputs.id", outputs={"id": "$response.body#/id"}),
            pet("b", "$steps.a.outputs.id", outputs={"id": "$response.body#/id"}),
        ],
    }
    fine = {"workflowId": "fine", "steps": [pet("only", "1")]}
    result = execute(write, server, looped, fine, version=V11)

    assert result["status"] == "failed"
    by_id = {w["workflowId"]: w for w in result["workflows"]}
    assert by_id["fine"]["status"] == "passed"
    assert by_id["looped"]["status"] == "not_run"
    assert [p["rule"] for p in by_id["looped"]["problems"]] == ["step-dependency-cycle"]
    assert "steps depend on each other ('a' -> 'b' -> 'a';" in by_id["looped"]["error"]["message"]
    assert hits(server) == ["GET /pets/1"]


def test_after_a_goto_the_next_step_is_the_next_in_the_run_order(write, server):
    _echo_pets(server)
    server.reply("POST", "/pets", (201, {"id": "p1"}))
    server.reply("GET", "/pets", (200, {"again": True}), (200, {"again": False}))
    steps = [
        pet("use", "$steps.make.outputs.id"),
        {
            "stepId": "make",
            "operationId": "createPet",
            "requestBody": {"contentType": "application/json", "payload": {"name": "x"}},
            "outputs": {"id": "$response.body#/id"},
        },
        listing(
            "check", onSuccess=[goto("again", stepId="use", criteria=when("$response.body#/again == true"))]
        ),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed", wf["error"]
    assert [s for s, _, _ in trail(wf)] == ["make", "use", "check", "use", "check"]
    assert hits(server) == ["POST /pets", "GET /pets/p1", "GET /pets", "GET /pets/p1", "GET /pets"]


def test_a_dependency_skipped_by_a_goto_fails_the_step_unsent_naming_it(write, server):
    _echo_pets(server)
    server.reply("GET", "/pets", (200, []))
    steps = [
        listing("start", onSuccess=[goto("skip", stepId="late")]),
        pet("skipped", "1", outputs={"id": "$response.body#/id"}),
        pet("late", "$steps.skipped.outputs.id"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert trail(wf) == [("start", "passed", 1), ("late", "failed", 1)]
    assert wf["error"] == {
        "stepId": "late",
        "message": "not sent: it depends on step 'skipped', which did not run (a goto went past it)",
    }
    assert hits(server) == ["GET /pets"]


def test_a_failed_dependency_fails_a_step_that_lists_it_in_depends_on(write, server):
    _echo_pets(server)
    server.reply("GET", "/flaky", (500, {"error": "down"}))
    steps = [
        flaky(
            "call", onFailure=[goto("recover", stepId="after")], outputs={"error": "$response.body#/error"}
        ),
        pet("unused", "0", onSuccess=[end()]),
        pet("after", "1", dependsOn=["call"]),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, version=V11))

    assert trail(wf) == [("call", "failed", 1), ("after", "failed", 1)]
    assert wf["error"]["message"] == "not sent: it depends on step 'call', which failed"
    assert hits(server) == ["GET /flaky"]


def test_a_step_may_read_a_failed_step_its_on_failure_sent_the_workflow_to(write, server):
    _echo_pets(server)
    server.reply("GET", "/flaky", (500, {"error": "down"}))
    steps = [
        flaky(
            "call", onFailure=[goto("recover", stepId="report")], outputs={"error": "$response.body#/error"}
        ),
        pet("unused", "0", onSuccess=[end()]),
        pet("report", "$steps.call.outputs.error"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed", wf["error"]
    assert hits(server) == ["GET /flaky", "GET /pets/down"]


def test_workflow_level_parameters_do_not_order_steps(write, server):
    """A workflow parameter reading a login step is read by every step as it runs (the steps before the
    login send without it, with a warning): it makes no step wait for the login."""
    _echo_pets(server)
    server.reply("POST", "/login", (200, {"token": "t0k"}))
    workflow = {
        "workflowId": "w",
        "parameters": [{"name": "X-Trace", "in": "header", "value": "$steps.login.outputs.token"}],
        "steps": [
            pet("before", "1"),
            {
                "stepId": "login",
                "operationId": "login",
                "requestBody": {"contentType": "application/x-www-form-urlencoded", "payload": {"u": "x"}},
                "outputs": {"token": "$response.body#/token"},
            },
            pet("after", "2"),
        ],
    }
    wf = only(execute(write, server, workflow))

    assert [s for s, _, _ in trail(wf)] == ["before", "login", "after"]
    assert [r.headers.get("x-trace") for r in server.requests] == [None, None, "t0k"]


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", *argv], capture_output=True, text=True, check=False
    )


def _out_of_order(write, server):
    _echo_pets(server)
    steps = [pet("use", "$steps.find.outputs.id"), pet("find", "7", outputs={"id": "$response.body#/id"})]
    return write(arazzo_doc({"workflowId": "w", "steps": steps}, version=V11))


def test_dry_run_describe_and_graph_show_the_order_the_run_uses(write, server):
    path = _out_of_order(write, server)

    dry = _cli("run", str(path), "--dry-run", "--server", f"pets={server.url}", "--format", "json")
    assert [p["stepId"] for p in json.loads(dry.stdout)["requests"]] == ["find", "use"], (
        dry.stdout + dry.stderr
    )

    described = json.loads(_cli("describe", str(path), "--format", "json").stdout)
    steps = described["workflows"][0]["steps"]
    assert [s["stepId"] for s in steps] == ["find", "use"]
    assert steps[0]["next"] == "use" and steps[1]["next"] is None
    assert steps[1]["needs"] == ["find"]
    text = _cli("describe", str(path)).stdout
    assert "runs after: find" in text
    assert text.index("find") < text.index("use")

    graph = json.loads(_cli("graph", str(path), "--format", "json").stdout)
    ids = {n["stepId"]: n["id"] for w in graph["workflows"] for n in w["nodes"] if n.get("stepId")}
    starts = [e["to"] for e in graph["edges"] if e["from"].endswith("_START")]
    assert starts == [ids["find"]]
    assert {"from": ids["find"], "to": ids["use"], "kind": "next"} in graph["edges"]
    assert not any(e["from"] == ids["use"] and e["to"] == ids["find"] for e in graph["edges"])


def test_validate_reads_a_forward_reference_as_a_dependency_where_depends_on_is_used(write, server):
    path = _out_of_order(write, server)
    # no dependsOn: the spec's SHOULD-error, and a run that still runs `find` first (a warning)
    checked = _cli("validate", str(path), "--offline", "--format", "json")
    rules = [f["rule"] for f in json.loads(checked.stdout)["findings"]]
    assert rules == ["output-forward-reference"]
    assert checked.returncode == 1
    ran = arazzo_runner.run(path, servers={"pets": server.url})
    assert ran.ok and [s.step_id for s in ran.workflows[0].steps] == ["find", "use"]

    steps = [
        pet("use", "$steps.find.outputs.id"),
        pet("find", "7", outputs={"id": "$response.body#/id"}, dependsOn=["first"]),
        listing("first"),
    ]
    write(arazzo_doc({"workflowId": "w", "steps": steps}, version=V11))
    checked = _cli("validate", str(path), "--offline", "--format", "json")
    assert checked.returncode == 0, checked.stdout
