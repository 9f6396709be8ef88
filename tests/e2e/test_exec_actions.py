"""onSuccess / onFailure over real HTTP: end, goto a step (both ways), goto a workflow, first match wins."""

from __future__ import annotations

import pytest

from arazzo_runner.errors import DocumentError
from tests.e2e.execkit import end, execute, flaky, goto, hits, listing, ok200, only, pet, trail, when


def test_end_on_success_stops_and_the_workflow_passes(write, server):
    server.reply("GET", "/pets", (200, []))
    steps = [listing("a", onSuccess=[end()]), pet("b")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed"
    assert wf["error"] is None
    assert trail(wf) == [("a", "passed", 1)]
    assert hits(server) == ["GET /pets"]


def test_goto_forwards_skips_steps_and_continues_in_order_from_the_target(write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {}))
    server.reply("GET", "/flaky", (200, {}))
    steps = [listing("a", onSuccess=[goto("skip", stepId="c")]), flaky("b"), pet("c"), flaky("d")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed"
    assert trail(wf) == [("a", "passed", 1), ("c", "passed", 1), ("d", "passed", 1)]
    assert wf["steps"][0]["action"] == "goto c"
    assert hits(server) == ["GET /pets", "GET /pets/1", "GET /flaky"]


def test_goto_backwards_loops_until_the_criteria_stop_matching(write, server):
    """A poll loop: each pass re-runs both steps, and each execution is its own entry in the result."""
    server.reply("GET", "/pets", (200, [{"id": 1}]), (200, [{"id": 2}]), (200, [{"id": 3}]))
    server.reply("GET", "/flaky", (200, {"done": False}), (200, {"done": False}), (200, {"done": True}))
    steps = [
        listing("list", outputs={"first": "$response.body#/0/id"}),
        flaky(
            "poll", onSuccess=[goto("again", stepId="list", criteria=when("$response.body#/done == false"))]
        ),
    ]
    workflow = {"workflowId": "w", "steps": steps, "outputs": {"last": "$steps.list.outputs.first"}}
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert [s["stepId"] for s in wf["steps"]] == ["list", "poll"] * 3
    assert [s.get("action") for s in wf["steps"]] == [None, "goto list", None, "goto list", None, None]
    assert [s["outputs"] for s in wf["steps"] if s["stepId"] == "list"] == [
        {"first": 1},
        {"first": 2},
        {"first": 3},
    ]
    assert wf["outputs"] == {"last": 3}  # outputs read the latest execution
    assert len(server.requests) == 6


def test_action_criteria_read_the_steps_own_response_and_the_first_match_wins(write, server):
    server.reply("GET", "/pets/{petId}", (404, {"code": "gone"}))
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/flaky", (200, {}))
    on_failure = [
        goto("whenUnavailable", stepId="viaFlaky", criteria=when("$statusCode == 503")),
        goto(
            "whenGone",
            stepId="viaList",
            criteria=when("$statusCode == 404", "$response.body#/code == 'gone'"),
        ),
        goto("alsoMatches", stepId="viaFlaky", criteria=when("$statusCode == 404")),
    ]
    steps = [
        pet("get", successCriteria=ok200(), onFailure=on_failure),
        flaky("viaFlaky", onSuccess=[end()]),
        listing("viaList"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert trail(wf) == [("get", "failed", 1), ("viaList", "passed", 1)]
    assert wf["steps"][0]["action"] == "goto viaList"
    assert hits(server) == ["GET /pets/1", "GET /pets"]


def test_a_failure_handled_by_goto_does_not_fail_the_workflow(write, server):
    server.reply("GET", "/pets/{petId}", (500, {"error": "boom"}))
    server.reply("GET", "/pets", (200, []))
    steps = [
        pet("get", onFailure=[goto("recover", stepId="fallback")]),
        pet("neverRun"),
        listing("fallback"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed"
    assert wf["error"] is None
    assert trail(wf) == [("get", "failed", 1), ("fallback", "passed", 1)]
    assert wf["steps"][0]["statusCode"] == 500
    assert "HTTP 500" in wf["steps"][0]["error"]
    assert hits(server) == ["GET /pets/1", "GET /pets"]


def test_a_handled_failure_still_fails_the_workflow_when_it_ends_in_failure(write, server):
    server.reply("GET", "/pets/{petId}", (500, {}))
    server.reply("GET", "/pets", (500, {}))
    steps = [pet("get", onFailure=[goto("recover", stepId="fallback")]), listing("fallback")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "failed"
    assert trail(wf) == [("get", "failed", 1), ("fallback", "failed", 1)]
    assert wf["error"]["stepId"] == "fallback"


def test_no_matching_failure_action_fails_the_workflow_and_stops(write, server):
    server.reply("GET", "/pets/{petId}", (500, {}))
    on_failure = [goto("only404", stepId="c", criteria=when("$statusCode == 404"))]
    steps = [pet("a", onFailure=on_failure), listing("b"), flaky("c")]
    result = execute(write, server, {"workflowId": "w", "steps": steps})

    wf = only(result)
    assert result["status"] == "failed"
    assert trail(wf) == [("a", "failed", 1)]
    assert "action" not in wf["steps"][0]
    assert wf["error"]["stepId"] == "a"
    assert "HTTP 500" in wf["error"]["message"]
    assert hits(server) == ["GET /pets/1"]


def test_end_on_failure_fails_the_workflow_and_names_the_action(write, server):
    server.reply("GET", "/pets/{petId}", (503, {}))
    steps = [pet("a", successCriteria=ok200(), onFailure=[end("giveUp")]), listing("b")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "failed"
    assert trail(wf) == [("a", "failed", 1)]
    assert wf["steps"][0]["action"] == "end"
    assert wf["error"]["stepId"] == "a"
    assert "$statusCode == 200: got 503" in wf["error"]["message"]
    assert "giveUp" in wf["error"]["message"]
    assert hits(server) == ["GET /pets/1"]


def test_goto_workflow_is_a_one_way_transfer(write, server):
    server.reply("GET", "/pets", (200, [{"id": 5}]))
    server.reply("GET", "/pets/{petId}", (200, {"id": 5, "name": "rex"}))
    main = {
        "workflowId": "main",
        "steps": [
            listing(
                "list",
                outputs={"id": "$response.body#/0/id"},
                onSuccess=[
                    goto(
                        "handOver",
                        workflowId="other",
                        parameters=[{"name": "id", "value": "$response.body#/0/id"}],
                    )
                ],
            ),
            listing("neverRun"),
        ],
    }
    other = {
        "workflowId": "other",
        "inputs": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
        "steps": [pet("fetch", "$inputs.id", outputs={"name": "$response.body#/name"})],
        "outputs": {"name": "$steps.fetch.outputs.name"},
    }
    result = execute(write, server, main, other, workflow="main")

    wf = only(result)
    assert result["status"] == "passed"
    assert trail(wf) == [("list", "passed", 1)]
    assert wf["steps"][0]["action"] == "goto other"
    child = wf["steps"][0]["workflow"]
    assert child["workflowId"] == "other"
    assert trail(child) == [("fetch", "passed", 1)]
    assert child["outputs"] == {"name": "rex"}
    assert hits(server) == ["GET /pets", "GET /pets/5"]


def test_goto_workflow_takes_the_targets_failure(write, server):
    server.reply("GET", "/pets/{petId}", (500, {}))
    server.reply("GET", "/pets", (200, []))
    main = {
        "workflowId": "main",
        "steps": [pet("get", onFailure=[goto("handOver", workflowId="other")]), listing("neverRun")],
    }
    other = {"workflowId": "other", "steps": [pet("again", "2")]}
    wf = only(execute(write, server, main, other, workflow="main"))

    assert wf["status"] == "failed"
    assert trail(wf) == [("get", "failed", 1)]
    assert trail(wf["steps"][0]["workflow"]) == [("again", "failed", 1)]
    assert wf["error"]["stepId"] == "get"
    assert "workflow 'other'" in wf["error"]["message"]
    assert hits(server) == ["GET /pets/1", "GET /pets/2"]


def test_max_steps_stops_an_endless_goto_loop_with_a_clear_failure(write, server):
    server.reply("GET", "/pets", (200, []))
    steps = [listing("spin", onSuccess=[goto("forever", stepId="spin")])]
    result = execute(write, server, {"workflowId": "w", "steps": steps}, max_steps=5)

    wf = only(result)
    assert result["status"] == "failed"
    assert trail(wf) == [("spin", "passed", 1)] * 5
    assert wf["error"]["stepId"] == "spin"
    assert "max-steps" in wf["error"]["message"]
    assert "5" in wf["error"]["message"]
    assert len(server.requests) == 5


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (goto("x", stepId="nope"), "goto target stepId 'nope' is not a step of workflow 'w'"),
        (
            goto("x", stepId="a", workflowId="w"),
            "goto action 'x' has both stepId and workflowId; they are mutually exclusive",
        ),
        (goto("x"), "goto action 'x' needs a stepId or a workflowId"),
    ],
)
def test_a_goto_without_a_valid_target_is_a_document_error_before_sending(write, server, action, message):
    server.reply("GET", "/pets", (200, []))
    with pytest.raises(DocumentError) as caught:
        execute(write, server, {"workflowId": "w", "steps": [listing("a", onSuccess=[action])]})

    assert message in str(caught.value)
    assert "flow.arazzo.yaml:" in str(caught.value)  # located
    assert server.requests == []


def test_a_component_action_is_checked_where_it_is_used(write, server):
    components = {"failureActions": {"toB": {"name": "toB", "type": "goto", "stepId": "b"}}}
    steps = [listing("a", onFailure=[{"reference": "$components.failureActions.toB"}])]
    with pytest.raises(DocumentError) as caught:
        execute(write, server, {"workflowId": "w", "steps": steps}, components=components)

    assert "goto target stepId 'b' is not a step of workflow 'w'" in str(caught.value)
    assert caught.value.pointer == "/workflows/0/steps/0/onFailure/0/stepId"  # where it is used
    assert server.requests == []
