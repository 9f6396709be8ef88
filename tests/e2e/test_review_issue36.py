"""Issue 36 (dependency order, --parallel, x-forEach), the independent review's findings: each test
failed on the first landed tree and names what it shows."""

from __future__ import annotations

import threading

from tests.e2e.execkit import execute, listing, only, pet

V11 = "1.1.0"
EACH = {"items": "$steps.list.outputs.items", "input": "item"}
WAIT = 60  # seconds a barrier waits (a broken run fails, never a clock bound on the run)


# Shows: x-forEach children running side by side under --parallel share `host.workflows[<child id>]`,
# so a child step reading `$workflows.<its own workflow>.steps.<id>` (which order.py treats as the same
# execution's step) reads ANOTHER item's value. Sequentially each child reads its own.
def test_loop_children_side_by_side_read_their_own_workflow_values(write, server):
    barrier = threading.Barrier(2, timeout=WAIT)
    server.reply("GET", "/pets", (200, {"items": ["1", "2"]}))

    @server.route("GET", "/pets/{petId}")
    def one(request):
        pet_id = request.params["petId"]
        if not pet_id.startswith("again-"):
            barrier.wait()  # both children's first requests in flight together
        return 200, {"name": f"N{pet_id}"}

    child = {
        "workflowId": "show",
        "inputs": {"type": "object", "properties": {"item": {}}},
        "steps": [
            pet("get", "$inputs.item", outputs={"name": "$response.body#/name"}),
            pet(
                "again",
                "again-{$workflows.show.steps.get.outputs.name}",
                outputs={"name": "$response.body#/name"},
            ),
        ],
        "outputs": {"label": "$steps.again.outputs.name"},
    }
    main = {
        "workflowId": "main",
        "steps": [
            listing("list", outputs={"items": "$response.body#/items"}),
            {"stepId": "each", "workflowId": "show", "x-forEach": dict(EACH),
             "outputs": {"labels": "$outputs.label"}},
        ],
        "outputs": {"labels": "$steps.each.outputs.labels"},
    }  # fmt: skip
    wf = only(execute(write, server, main, child, version=V11, workflow="main", parallel=2))

    assert wf["status"] == "passed", wf["error"]
    assert wf["outputs"] == {"labels": ["Nagain-N1", "Nagain-N2"]}


def _show_child() -> dict:
    return {
        "workflowId": "show",
        "inputs": {"type": "object", "properties": {"item": {}}},
        "steps": [pet("get", "$inputs.item", outputs={"name": "$response.body#/name"})],
        "outputs": {"label": "$steps.get.outputs.name"},
    }


def _loop_main(**step_fields) -> dict:
    return {
        "workflowId": "main",
        "steps": [
            listing("list", outputs={"items": "$response.body#/items"}),
            {"stepId": "each", "workflowId": "show", "x-forEach": dict(EACH),
             "outputs": {"labels": "$outputs.label"}, **step_fields},
        ],
    }  # fmt: skip


def _name_server(server) -> None:
    @server.route("GET", "/pets/{petId}")
    def one(request):
        return 200, {"name": f"N{request.params['petId']}"}


# Shows: docs/semantics.md (Loops): "it must pass, then the step's successCriteria must hold for it ...
# Once one does not, no new child starts". run_each only stops on a failed child run (loop.py passes
# `not outcome[0].passed`), so after item 1 fails the step's successCriteria, item 2 is still sent.
def test_loop_stops_starting_items_once_one_fails_the_steps_success_criteria(write, server):
    server.reply("GET", "/pets", (200, {"items": ["1", "2", "3"]}))
    _name_server(server)
    main = _loop_main(successCriteria=[{"condition": "$outputs.label != 'N2'"}])
    wf = only(execute(write, server, main, _show_child(), version=V11, workflow="main"))

    assert wf["status"] == "failed"
    assert wf["error"]["message"].startswith("item 1 (of 3): successCriteria failed"), wf["error"]
    assert [r.path for r in server.requests] == ["/pets", "/pets/1", "/pets/2"]  # not /pets/3


# Shows: `arazzo validate` never walks x-forEach `items` as an expression site (validate/walk.py yields no
# site for it; extensions.x_for_each only checks its kind), so (a) a dependency cycle through the items
# is no `step-dependency-cycle` although the plan refuses the workflow for it (`order._pieces` reads the
# items), and (b) items naming an unknown step pass validation. docs: "validate reports
# step-dependency-cycle" and "x-forEach items ... is a read like any other".
def test_validate_sees_reads_in_x_for_each_items(write):
    from arazzo_runner.validate.core import validate_path
    from tests.e2e.conftest import arazzo_doc

    cycle = {
        "workflowId": "main",
        "steps": [
            {"stepId": "each", "workflowId": "show", "x-forEach": dict(EACH)},
            listing("list", dependsOn=["each"], outputs={"items": "$response.body#/items"}),
        ],
    }  # fmt: skip
    rules = {f.rule for f in validate_path(write(arazzo_doc(cycle, _show_child(), version=V11))).findings}
    cycle_rules = rules

    typo = _loop_main()
    typo["steps"][1]["x-forEach"]["items"] = "$steps.lits.outputs.items"  # no step 'lits'
    rules = {f.rule for f in validate_path(write(arazzo_doc(typo, _show_child(), version=V11))).findings}
    assert ("step-dependency-cycle" in cycle_rules, "output-reference" in rules) == (True, True), (
        cycle_rules,
        rules,
    )


# Shows: `runs_beside_others` (order.py) looks only at the step's own expressions, not at the workflow
# it calls. `callB` calls workflow B, whose step reads `$workflows.A.outputs.id`; `callA` (beside it)
# runs A. Under --parallel they form a stretch, B reads A's output before A has produced it, and B's
# request differs from a sequential run's (docs: "each reads what it would have read").
def test_a_called_workflow_reading_a_sibling_workflow_runs_after_it(write, server):
    seen: list = []

    @server.route("GET", "/pets/{petId}")
    def one(request):
        seen.append((request.params["petId"], request.headers.get("x-trace")))
        return 200, {"id": f"id-{request.params['petId']}"}

    a = {
        "workflowId": "A",
        "steps": [pet("get", "a", outputs={"id": "$response.body#/id"})],
        "outputs": {"id": "$steps.get.outputs.id"},
    }
    b = {
        "workflowId": "B",
        "steps": [
            pet(
                "get",
                "b",
                parameters=[
                    {"name": "petId", "in": "path", "value": "b"},
                    {"name": "X-Trace", "in": "header", "value": "$workflows.A.outputs.id"},
                ],
            )
        ],
    }
    parent = {"workflowId": "parent", "steps": [
        {"stepId": "callA", "workflowId": "A"},
        {"stepId": "callB", "workflowId": "B"},
    ]}  # fmt: skip
    sequential = only(execute(write, server, parent, a, b, workflow="parent"))
    assert sequential["status"] == "passed", sequential["error"]
    assert seen == [("a", None), ("b", "id-a")]
    seen.clear()

    side_by_side = only(execute(write, server, parent, a, b, workflow="parent", parallel=2))
    assert side_by_side["status"] == "passed", side_by_side["error"]
    assert sorted(seen, key=str) == [("a", None), ("b", "id-a")]


# Shows: in a stretch a later step may start before an earlier one that waits for a dependency
# (`_Stretch._start` skips it), and `--max-steps` is checked per start; so the budget is spent on `c`
# instead of `b`: a different request is sent than in a sequential run (docs: "--max-steps stop new
# steps the same way", "the set of requests are those of a sequential run").
def test_max_steps_in_a_stretch_sends_what_a_sequential_run_sends(write, server):
    @server.route("GET", "/pets/{petId}")
    def one(request):
        return 200, {"id": request.params["petId"]}

    steps = [
        pet("a", "a", outputs={"id": "$response.body#/id"}),
        pet("b", "b-{$steps.a.outputs.id}"),
        pet("c", "c"),
    ]
    wf = {"workflowId": "w", "steps": steps}
    one_at_a_time = only(execute(write, server, wf, max_steps=2))
    sent_sequentially = sorted(r.path for r in server.requests)
    server.requests.clear()
    side_by_side = only(execute(write, server, wf, max_steps=2, parallel=3))

    assert sent_sequentially == ["/pets/a", "/pets/b-a"]
    assert sorted(r.path for r in server.requests) == sent_sequentially
    assert side_by_side["error"] == one_at_a_time["error"]


# Shows: the loop's step allowance (loop.py: `len(items) * len(child.steps)`) counts only the called
# workflow's own steps, not those of the workflows it calls. The same requests per item, once as a
# two-step child and once as a child calling a one-step workflow, pass and fail `--max-steps`
# respectively: "stopped after 8 steps (max-steps, and 6 for the items of x-forEach loops): a goto
# loop?" with no goto anywhere (at the defaults: 1,000 items of such a child stop the run).
def test_the_loop_step_allowance_counts_the_steps_of_nested_workflows(write, server):
    server.reply("GET", "/pets", (200, {"items": ["1", "2", "3"]}))
    _name_server(server)
    flat = {
        "workflowId": "show",
        "inputs": {"type": "object", "properties": {"item": {}}},
        "steps": [pet("get", "$inputs.item"), pet("again", "$inputs.item")],
    }
    wrapper = {
        "workflowId": "show",
        "inputs": {"type": "object", "properties": {"item": {}}},
        "steps": [
            pet("get", "$inputs.item"),
            {
                "stepId": "again",
                "workflowId": "one",
                "parameters": [{"name": "item", "value": "$inputs.item"}],
            },
        ],
    }
    one = {"workflowId": "one", "inputs": {"type": "object", "properties": {"item": {}}},
           "steps": [pet("get", "$inputs.item")]}  # fmt: skip
    main = _loop_main()
    main["steps"][1].pop("outputs")
    ok = only(execute(write, server, main, flat, version=V11, workflow="main", max_steps=2))
    assert ok["status"] == "passed", ok["error"]

    nested = only(execute(write, server, main, wrapper, one, version=V11, workflow="main", max_steps=2))
    assert nested["status"] == "passed", nested["error"]


# Shows: Ctrl-C while `a` is in flight and `b` (and `c`, started once b finished) after it in the
# stretch have finished or are in flight: `_Stretch.stop`
# records `b` (in the result) but never delivers its StepFinished (it was held back until `a` finished),
# so the console never prints `b` although the run sent it and the report lists it; the report also
# lists `b` before `a`, not in the run order.
def test_ctrl_c_in_a_stretch_prints_every_recorded_step(write, server, tmp_path):
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.e2e.conftest import arazzo_doc

    gate = threading.Event()
    answered: list = []

    @server.route("GET", "/pets/{petId}")
    def one(request):
        pet_id = request.params["petId"]
        if pet_id == "a":
            assert gate.wait(WAIT)
        answered.append(pet_id)
        return 200, {"id": pet_id}

    path = write(arazzo_doc({"workflowId": "w", "steps": [pet(i, i) for i in "abc"]}))
    report = tmp_path / "report.json"
    argv = [sys.executable, "-m", "arazzo_runner.cli", "run", str(path), "--server", f"pets={server.url}",
            "--parallel", "2", "--report-json", str(report)]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "ARAZZO_RUN_PATH"}
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(WAIT * 100):  # a polling wait for the condition, not a bound on the run
            if "c" in answered or process.poll() is not None:  # c starts once b has finished
                break
            time.sleep(0.01)
        assert "c" in answered, process.communicate()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT)
    finally:
        gate.set()
    assert process.returncode == 130, out + err
    steps = [s["stepId"] for s in json.loads(report.read_text())["workflows"][0]["steps"]]
    printed = [line.split()[1] for line in out.splitlines() if line.startswith("  ") and len(line.split()) > 1
               and line.split()[1] in ("a", "b", "c")]  # fmt: skip
    assert (steps, printed) == (["a", "b", "c"], ["a", "b", "c"]), out


# Shows: Ctrl-C while x-forEach items run side by side: the items in flight are cancelled by
# `run_each`'s `finally` without being awaited and the loop step keeps none of them (one
# `interrupted_run` slot for several children), so the report has no child run for requests the run
# sent; sequentially the interrupted item is kept ("workflow": {... "item": 0}).
def test_ctrl_c_in_a_side_by_side_loop_keeps_the_items_in_flight(write, server, tmp_path):
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.e2e.conftest import arazzo_doc

    gate = threading.Event()
    arrived: list = []
    server.reply("GET", "/pets", (200, {"items": ["1", "2", "3"]}))

    @server.route("GET", "/pets/{petId}")
    def one(request):
        arrived.append(request.params["petId"])
        assert gate.wait(WAIT)
        return 200, {"name": "x"}

    path = write(arazzo_doc(_loop_main(), _show_child(), version=V11))
    report = tmp_path / "report.json"
    argv = [sys.executable, "-m", "arazzo_runner.cli", "run", str(path), "-w", "main", "--server",
            f"pets={server.url}", "--parallel", "2", "--report-json", str(report)]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "ARAZZO_RUN_PATH"}
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(WAIT * 100):  # a polling wait for the condition, not a bound on the run
            if len(arrived) >= 2 or process.poll() is not None:
                break
            time.sleep(0.01)
        assert len(arrived) >= 2, process.communicate()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT)
    finally:
        gate.set()
    assert process.returncode == 130, out + err
    each = json.loads(report.read_text())["workflows"][0]["steps"][1]
    runs = [*each.get("earlierWorkflows", []), *([each["workflow"]] if "workflow" in each else [])]
    assert sorted(r.get("item") for r in runs) == [0, 1], json.dumps(each)


# The run's cookie jar is state a step can rely on without any expression: `login` sets a session
# cookie, `session` relies on the jar sending it back. The engine cannot see that dependency (nor any
# other state a server keeps between requests), so under --parallel the step says it with `dependsOn`
# (docs/semantics.md, *Parallel steps*); then it is sent after `login`'s answer, with the cookie.
def test_a_step_relying_on_the_cookie_a_previous_step_set_says_so_with_depends_on(write, server):
    @server.route("POST", "/login")
    def login(request):
        return 200, {}, {"Set-Cookie": "sid=abc; Path=/"}

    @server.route("GET", "/session")
    def session(request):
        return (200, {}) if "sid=abc" in request.headers.get("cookie", "") else (401, {})

    steps = [
        {"stepId": "login", "operationId": "login",
         "requestBody": {"contentType": "application/x-www-form-urlencoded", "payload": {"u": "x"}}},
        {"stepId": "session", "operationId": "session", "dependsOn": ["login"],
         "successCriteria": [{"condition": "$statusCode == 200"}]},
    ]  # fmt: skip
    wf = {"workflowId": "w", "steps": steps}
    assert only(execute(write, server, wf, version=V11))["status"] == "passed"
    side_by_side = only(execute(write, server, wf, version=V11, parallel=2))
    assert side_by_side["status"] == "passed", side_by_side["error"]


# Shows: validate/flow.py builds the control flow with "next" as the next step in the ARRAY
# (`edges[i].add(i + 1)`), while a run's "next" is the next step in the run order. Here the run order
# is other, find, use; `use` goes back to `find` by goto, so `find` does run again and reads its own
# `next` (a paging cursor). validate misses that loop and reports a 1.1 error
# "output-forward-reference: step 'find' reads its own outputs before it has run" (false positive).
def test_validate_follows_the_run_order_when_finding_goto_loops(write):
    from arazzo_runner.validate.core import validate_path
    from tests.e2e.conftest import arazzo_doc

    steps = [
        pet("use", "x", dependsOn=["find"],
            onSuccess=[{"name": "more", "type": "goto", "stepId": "find",
                        "criteria": [{"condition": "$steps.find.outputs.next != null"}]}]),
        {"stepId": "other", "operationId": "flaky"},
        listing("find", parameters=[{"name": "limit", "in": "query", "value": "$steps.find.outputs.next"}],
                outputs={"next": "$response.body#/next"}),
    ]  # fmt: skip
    findings = validate_path(write(arazzo_doc({"workflowId": "w", "steps": steps}, version=V11))).findings
    assert [(f.rule, f.message) for f in findings] == []


# Shows: x-forEach children side by side whose workflow lists a workflow in `dependsOn`: item 0 starts
# the dependency; item 1, started beside it, finds it in `Runner._running` and `_dependencies_ok`
# takes that for a cycle: "dependency 'setup' is a cycle: it depends on this workflow". Sequentially
# both items pass (setup runs once). The same holds for two workflow steps in a stretch.
def test_side_by_side_children_sharing_a_workflow_dependency(write, server):
    server.reply("GET", "/pets", (200, {"items": ["1", "2"]}))
    server.reply("GET", "/flaky", (200, {}))
    _name_server(server)
    setup = {"workflowId": "setup", "steps": [{"stepId": "warm", "operationId": "flaky"}]}
    child = {**_show_child(), "dependsOn": ["setup"]}
    sequential = only(execute(write, server, _loop_main(), child, setup, version=V11, workflow="main"))
    assert sequential["status"] == "passed", sequential["error"]

    side_by_side = only(
        execute(write, server, _loop_main(), child, setup, version=V11, workflow="main", parallel=2)
    )
    assert side_by_side["status"] == "passed", side_by_side["error"]
