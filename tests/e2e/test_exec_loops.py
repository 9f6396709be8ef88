"""Loops over items (`x-forEach`, issue 36) over real HTTP: a workflow step run once per item, one at a
time or side by side under `--parallel`; outputs as arrays in item order; failures naming the item;
bounds; each iteration a child run in the reports."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import execute, goto, hits, listing, only, pet, trail, when

V11 = "1.1.0"
WAIT = 60  # seconds a barrier waits for the children a test expects side by side


def _child(**extra) -> dict:
    return {
        "workflowId": "show",
        "inputs": {"type": "object", "properties": {"item": {}, "suffix": {"type": "string"}}},
        "steps": [
            pet(
                "get",
                "$inputs.item",
                successCriteria=[{"condition": "$statusCode == 200"}],
                outputs={"name": "$response.body#/name"},
            )
        ],
        "outputs": {"label": "{$steps.get.outputs.name}{$inputs.suffix}"},
        **extra,
    }


def _loop(items, **extra) -> dict:
    step = {
        "stepId": "each",
        "workflowId": "show",
        "x-forEach": {"items": items, "input": "item"},
        "parameters": [{"name": "suffix", "value": "!"}],
        "outputs": {"labels": "$outputs.label"},
        **extra,
    }
    return {
        "workflowId": "main",
        "steps": [listing("list", outputs={"items": "$response.body#/items"}), step],
        "outputs": {"labels": "$steps.each.outputs.labels"},
    }


def _names(server, items, gate: threading.Barrier | None = None) -> None:
    server.reply("GET", "/pets", (200, {"items": items}))

    @server.route("GET", "/pets/{petId}")
    def one(request):
        pet_id = request.params["petId"]
        if gate is not None:
            gate.wait()
        if pet_id.startswith("bad"):
            return 404, {"error": "no such pet"}
        return 200, {"name": f"N{pet_id}"}


def _run(write, server, *workflows, **options) -> dict:
    return execute(write, server, *workflows, version=V11, workflow="main", **options)


@pytest.mark.parametrize("parallel", [1, 4])
def test_each_item_runs_the_workflow_outputs_are_arrays_in_item_order(write, server, parallel):
    _names(server, ["3", "1", "2"])
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), _child(), parallel=parallel))

    assert wf["status"] == "passed", wf["error"]
    assert wf["outputs"] == {"labels": ["N3!", "N1!", "N2!"]}
    each = wf["steps"][1]
    runs = [*each.get("earlierWorkflows", []), each["workflow"]]
    assert [(r["item"], r["outputs"]["label"]) for r in runs] == [(0, "N3!"), (1, "N1!"), (2, "N2!")]
    assert sorted(hits(server)[1:]) == ["GET /pets/1", "GET /pets/2", "GET /pets/3"]


def test_an_empty_array_runs_nothing_and_passes(write, server):
    _names(server, [])
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), _child()))

    assert wf["status"] == "passed", wf["error"]
    assert wf["outputs"] == {"labels": []}
    assert hits(server) == ["GET /pets"]
    assert "workflow" not in wf["steps"][1]


def test_one_item(write, server):
    _names(server, ["9"])
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), _child()))
    assert wf["outputs"] == {"labels": ["N9!"]}


def test_a_thousand_items_within_the_default_bounds(write, server):
    """1,000 items of a one-step workflow: within `--max-loop-items` (1000) and the step budget
    (`--max-steps` 1000, widened by the loop's items)."""
    items = [str(i) for i in range(1000)]
    _names(server, items)
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), _child(), parallel=20))

    assert wf["status"] == "passed", wf["error"]
    assert wf["outputs"]["labels"] == [f"N{i}!" for i in items]
    assert len(hits(server)) == 1001


def test_children_run_side_by_side_under_parallel(write, server):
    _names(server, ["a", "b", "c"], threading.Barrier(3, timeout=WAIT))
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), _child(), parallel=3))
    assert wf["status"] == "passed", wf["error"]


def test_outputs_are_arrays_in_item_order_when_the_items_end_out_of_order(write, server):
    server.reply("GET", "/pets", (200, {"items": ["slow", "b", "c"]}))
    last_ended = threading.Event()

    @server.route("GET", "/pets/{petId}")
    def one(request):
        pet_id = request.params["petId"]
        if pet_id == "slow":
            last_ended.wait(WAIT)  # item 0 ends after item 2
        elif pet_id == "c":
            last_ended.set()
        return 200, {"name": f"N{pet_id}"}

    done = [goto("done", stepId="after", criteria=when("$outputs.label#/0 == 'Nslow!'"))]
    main = _loop("$steps.list.outputs.items", onSuccess=done)  # the actions read the arrays too
    main["steps"].extend([pet("skipped", "x"), pet("after", "0")])
    wf = only(_run(write, server, main, _child(), parallel=3))
    assert wf["status"] == "passed", wf["error"]
    assert wf["outputs"] == {"labels": ["Nslow!", "Nb!", "Nc!"]}
    assert [s for s, _, _ in trail(wf)] == ["list", "each", "after"]


def test_of_several_failed_items_the_step_names_the_first(write, server):
    _names(server, ["bad-a", "bad-b", "3"], threading.Barrier(3, timeout=WAIT))
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), _child(), parallel=3))
    each = wf["steps"][1]
    assert each["status"] == "failed"
    assert each["error"].startswith("item 0 (of 3): workflow 'show' failed: ")


def test_a_child_failure_fails_the_step_naming_the_item_and_on_failure_applies(write, server):
    _names(server, ["1", "bad", "3"])
    recover = [goto("recover", stepId="after", criteria=when("$statusCode == 404"))]
    main = _loop("$steps.list.outputs.items", onFailure=recover)
    main["steps"].append(pet("after", "0"))
    wf = only(_run(write, server, main, _child()))

    assert wf["status"] == "passed", wf["error"]
    each = wf["steps"][1]
    assert each["status"] == "failed"
    assert each["error"].startswith("item 1 (of 3): workflow 'show' failed: ")
    assert hits(server) == ["GET /pets", "GET /pets/1", "GET /pets/bad", "GET /pets/0"]  # item 2 never ran
    assert each["outputs"] == {"labels": ["N1!", "null!", None]}  # item 2 did not run: null


def test_success_criteria_hold_for_each_child(write, server):
    _names(server, ["1", "2"])
    main = _loop("$steps.list.outputs.items", successCriteria=[{"condition": "$outputs.label != 'N2!'"}])
    wf = only(_run(write, server, main, _child()))

    assert wf["status"] == "failed"
    assert wf["error"]["message"].startswith("item 1 (of 2): successCriteria failed: ")


def test_more_items_than_the_bound_fail_the_step_unsent(write, server):
    _names(server, ["1", "2", "3"])
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), _child(), max_loop_items=2))

    assert wf["status"] == "failed"
    assert wf["error"]["message"] == "not sent: x-forEach has 3 items, more than 2 (--max-loop-items)"
    assert hits(server) == ["GET /pets"]


def test_items_that_are_not_an_array_fail_the_step_unsent(write, server):
    server.reply("GET", "/pets", (200, {"items": {"a": 1}}))
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), _child()))

    assert wf["error"]["message"] == "not sent: x-forEach items is an object, not an array"
    assert hits(server) == ["GET /pets"]


def test_a_literal_array_of_items(write, server):
    _names(server, [])
    wf = only(_run(write, server, _loop(["5", "6"]), _child()))
    assert wf["outputs"] == {"labels": ["N5!", "N6!"]}


def test_actions_read_the_children_outputs_as_arrays(write, server):
    _names(server, ["1", "2"])
    done = [goto("done", stepId="after", criteria=when("$outputs.label#/1 == 'N2!'"))]
    main = _loop("$steps.list.outputs.items", onSuccess=done)
    main["steps"].extend([pet("skipped", "x"), pet("after", "0")])
    wf = only(_run(write, server, main, _child()))

    assert [s for s, _, _ in trail(wf)] == ["list", "each", "after"]


def test_a_goto_loop_inside_a_child_still_spends_the_step_budget(write, server):
    _names(server, ["1", "2"])
    child = _child()
    child["steps"][0]["onSuccess"] = [goto("again", stepId="get")]
    wf = only(_run(write, server, _loop("$steps.list.outputs.items"), child, max_steps=10))

    assert wf["status"] == "failed"
    assert "max-steps, and 2 for the items of x-forEach loops" in json.dumps(wf)


def test_a_malformed_loop_stops_its_workflow_only(write, server):
    _names(server, ["1"])
    bad = _loop("$steps.list.outputs.items")
    bad["steps"][1]["x-forEach"]["as"] = "x"
    fine = {"workflowId": "fine", "steps": [pet("one", "1")]}
    result = execute(write, server, bad, _child(), fine, version=V11, workflow=["main", "fine"])

    by_id = {w["workflowId"]: w for w in result["workflows"]}
    assert by_id["main"]["status"] == "not_run"
    assert by_id["main"]["problems"][0]["rule"] == "x-for-each"
    assert "x-forEach has no field 'as'" in by_id["main"]["problems"][0]["message"]
    assert by_id["fine"]["status"] == "passed"


def _validate(path) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "arazzo_runner.cli", "validate", str(path), "--offline", "--format", "json"]
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def test_validate_checks_the_loop(write, server):
    main = _loop("{$steps.list.outputs.items}")
    main["steps"][1]["x-forEach"]["input"] = "itme"
    path = write(arazzo_doc(main, _child(), version=V11))
    done = _validate(path)
    found = [(f["rule"], f["message"]) for f in json.loads(done.stdout)["findings"]]
    assert ("x-for-each", "x-forEach items is a text template: a string, never an array") in found
    assert done.returncode == 1

    main["steps"][1]["x-forEach"]["items"] = "$steps.list.outputs.items"
    path = write(arazzo_doc(main, _child(), version=V11))
    done = _validate(path)
    found = {f["rule"]: f["message"] for f in json.loads(done.stdout)["findings"]}
    assert found["x-for-each-input"].startswith("x-forEach input 'itme' is not an input of workflow 'show'")
    assert "did you mean 'item'" in found["x-for-each-input"]


def test_reports_show_each_iteration_as_a_child_run(write, server, tmp_path):
    _names(server, ["1", "2"])
    path = write(arazzo_doc(_loop("$steps.list.outputs.items"), _child(), version=V11))
    junit, report = tmp_path / "junit.xml", tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "run", str(path), "-w", "main", "--server",
         f"pets={server.url}", "--junit", str(junit), "--report-json", str(report)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    text = junit.read_text()
    assert 'name="show[0] (from main/each)"' in text and 'name="show[1] (from main/each)"' in text

    from arazzo_runner.report.html.model import Source, page_data

    data = page_data([Source("report.json", json.loads(report.read_text()))])
    names = [e["name"] for e in data["executions"]]
    assert names == ["main", "show[0] (from main/each)", "show[1] (from main/each)"]


def test_a_workflow_parameter_named_as_the_loop_input_has_two_meanings(write, server):
    """The step receives the workflow's parameters without `in` as its child's inputs: one named as the
    loop's input would be replaced by each item, silently; the run and `validate` refuse it."""
    _names(server, ["1"])
    main = _loop("$steps.list.outputs.items")
    main["parameters"] = [{"name": "item", "value": "fixed"}]
    from arazzo_runner.errors import NotRunnable

    with pytest.raises(NotRunnable) as refused:
        execute(write, server, main, _child(), version=V11, workflow="main")
    assert "x-for-each: parameter 'item' is also x-forEach's input" in str(refused.value)
    assert hits(server) == []
    path = write(arazzo_doc(main, _child(), version=V11))
    found = [(f["rule"], f["path"]) for f in json.loads(_validate(path).stdout)["findings"]]
    assert ("x-for-each", "/workflows/0/parameters/0") in found
