"""retry over real HTTP: limits, delays, Retry-After, exhaustion, criteria, retry via a step or workflow."""

from __future__ import annotations

import time

import arazzo_runner
from arazzo_runner.executor.events import StepRetrying
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import end, execute, flaky, goto, hits, listing, ok200, only, pet, retry, trail, when

DOWN = (503, {"error": "down"})
UP = (200, {"ok": True})


def test_default_retry_limit_is_one_retry_so_two_attempts(write, server):
    server.reply("GET", "/flaky", DOWN)
    steps = [
        flaky("f", successCriteria=ok200(), onFailure=[{"name": "again", "type": "retry", "retryAfter": 0}])
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "failed"
    assert trail(wf) == [("f", "failed", 2)]
    assert wf["error"]["message"] == "successCriteria failed: $statusCode == 200: got 503"
    assert hits(server) == ["GET /flaky"] * 2


def test_retry_limit_n_allows_n_plus_one_attempts(write, server):
    server.reply("GET", "/flaky", DOWN)
    steps = [flaky("f", successCriteria=ok200(), onFailure=[retry(retryLimit=3)])]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert trail(wf) == [("f", "failed", 4)]
    assert len(server.requests) == 4


def test_a_retry_that_succeeds_passes_the_step_and_the_workflow(write, server):
    server.reply("GET", "/flaky", DOWN, DOWN, (200, {"value": 42}))
    server.reply("GET", "/pets", (200, []))
    steps = [
        flaky(
            "f",
            successCriteria=ok200(),
            onFailure=[retry(retryLimit=5)],
            outputs={"v": "$response.body#/value"},
        ),
        listing("next"),
    ]
    wf = only(
        execute(write, server, {"workflowId": "w", "steps": steps, "outputs": {"v": "$steps.f.outputs.v"}})
    )

    assert wf["status"] == "passed"
    assert wf["error"] is None
    assert trail(wf) == [("f", "passed", 3), ("next", "passed", 1)]
    assert wf["steps"][0]["statusCode"] == 200
    assert "error" not in wf["steps"][0]
    assert wf["outputs"] == {"v": 42}
    assert hits(server) == ["GET /flaky"] * 3 + ["GET /pets"]


def test_retry_limit_zero_never_retries(write, server):
    server.reply("GET", "/flaky", DOWN, UP)
    steps = [flaky("f", successCriteria=ok200(), onFailure=[retry(retryLimit=0)])]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert trail(wf) == [("f", "failed", 1)]
    assert len(server.requests) == 1


def test_retry_after_is_waited_between_attempts(write, server):
    server.reply("GET", "/flaky", DOWN, UP)
    events = []
    steps = [flaky("f", successCriteria=ok200(), onFailure=[retry(retryAfter=0.15)])]
    started = time.perf_counter()
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, on_event=events.append))
    elapsed = time.perf_counter() - started

    assert trail(wf) == [("f", "passed", 2)]
    retrying = [e for e in events if isinstance(e, StepRetrying)]
    assert [(e.step_id, e.attempt, e.delay) for e in retrying] == [("f", 2, 0.15)]
    assert "got 503" in retrying[0].reason
    assert elapsed >= 0.15


def test_a_retry_after_header_in_seconds_wins_over_retry_after(write, server):
    server.reply("GET", "/flaky", (503, {}, {"Retry-After": "0"}), UP)
    events = []
    steps = [flaky("f", successCriteria=ok200(), onFailure=[retry(retryAfter=30)])]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, on_event=events.append))

    assert trail(wf) == [("f", "passed", 2)]
    assert [e.delay for e in events if isinstance(e, StepRetrying)] == [0.0]  # not the document's 30 s


def test_retry_criteria_are_checked_against_each_response(write, server):
    """Retry only while the server says 503; a 500 matches no action and fails the workflow."""
    server.reply("GET", "/flaky", DOWN, (500, {"error": "broken"}), UP)
    on_failure = [retry(retryLimit=5, criteria=when("$statusCode == 503"))]
    steps = [flaky("f", successCriteria=ok200(), onFailure=on_failure), listing("next")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "failed"
    assert trail(wf) == [("f", "failed", 2)]
    assert wf["steps"][0]["statusCode"] == 500
    assert wf["error"]["message"] == "successCriteria failed: $statusCode == 200: got 500"
    assert hits(server) == ["GET /flaky"] * 2


def test_exhausted_retries_fall_through_to_later_failure_actions(write, server):
    server.reply("GET", "/flaky", DOWN)
    server.reply("GET", "/pets", (200, []))
    on_failure = [retry(retryLimit=2), goto("fallback", stepId="plainList")]
    steps = [flaky("f", successCriteria=ok200(), onFailure=on_failure), pet("skipped"), listing("plainList")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed"
    assert trail(wf) == [("f", "failed", 3), ("plainList", "passed", 1)]
    assert wf["steps"][0]["action"] == "goto plainList"
    assert hits(server) == ["GET /flaky"] * 3 + ["GET /pets"]


def test_exhausted_retries_then_end_fails_the_workflow(write, server):
    server.reply("GET", "/flaky", DOWN)
    steps = [flaky("f", successCriteria=ok200(), onFailure=[retry(), end("giveUp")]), listing("next")]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "failed"
    assert trail(wf) == [("f", "failed", 2)]
    assert "giveUp" in wf["error"]["message"]
    assert hits(server) == ["GET /flaky"] * 2


def test_each_step_execution_has_its_own_retry_budget(write, server):
    """Reached again by goto, a step may retry again: the limit counts attempts of one execution."""
    server.reply("GET", "/flaky", DOWN, UP, DOWN, UP)
    server.reply("GET", "/pets", (200, {"round": 1}), (200, {"round": 2}))
    steps = [
        flaky("f", successCriteria=ok200(), onFailure=[retry()]),
        listing(
            "loop",
            onSuccess=[goto("once", stepId="f", criteria=when("$response.body#/round == 1"))],
        ),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed"
    assert trail(wf) == [("f", "passed", 2), ("loop", "passed", 1), ("f", "passed", 2), ("loop", "passed", 1)]


def test_retry_naming_a_step_runs_it_first_then_retries(write, server):
    """A 401 runs `login` (a step of this workflow) and then retries with its fresh token."""
    tokens = iter(["t1", "t2"])

    @server.route("GET", "/pets")
    def login(request):
        return 200, {"token": next(tokens)}

    @server.route("GET", "/pets/{petId}")
    def guarded(request):
        return (200, {"id": 1}) if request.headers.get("x-trace") == "t2" else (401, {})

    steps = [
        listing("login", outputs={"token": "$response.body#/token"}),
        pet(
            "get",
            parameters=[
                {"name": "petId", "in": "path", "value": "1"},
                {"name": "X-Trace", "in": "header", "value": "$steps.login.outputs.token"},
            ],
            successCriteria=ok200(),
            onFailure=[retry("relogin", stepId="login", criteria=when("$statusCode == 401"))],
        ),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}))

    assert wf["status"] == "passed"
    assert hits(server) == ["GET /pets", "GET /pets/1", "GET /pets", "GET /pets/1"]
    assert [r.headers.get("x-trace") for r in server.requests if r.path == "/pets/1"] == ["t1", "t2"]
    # the helper execution of `login` is recorded, in the order the steps finished
    assert trail(wf) == [("login", "passed", 1), ("login", "passed", 1), ("get", "passed", 2)]
    assert [s["outputs"] for s in wf["steps"] if s["stepId"] == "login"] == [{"token": "t1"}, {"token": "t2"}]


def test_retry_naming_a_workflow_runs_it_first_then_retries(write, server):
    server.reply("GET", "/flaky", DOWN, UP)
    server.reply("GET", "/pets", (200, []))
    main = {
        "workflowId": "main",
        "steps": [flaky("f", successCriteria=ok200(), onFailure=[retry("warmUp", workflowId="warm")])],
    }
    warm = {"workflowId": "warm", "steps": [listing("touch")]}
    wf = only(execute(write, server, main, warm, workflow="main"))

    assert wf["status"] == "passed"
    assert hits(server) == ["GET /flaky", "GET /pets", "GET /flaky"]
    assert trail(wf) == [("f", "passed", 2)]
    helper = wf["steps"][0]["workflow"]  # the helper run is nested under the retried step
    assert (helper["workflowId"], helper["status"], trail(helper)) == (
        "warm",
        "passed",
        [("touch", "passed", 1)],
    )


def test_a_failing_retry_helper_fails_the_step(write, server):
    server.reply("GET", "/flaky", DOWN, UP)
    server.reply("GET", "/pets", (500, {}))
    steps = [
        listing("helper", onSuccess=[end()], onFailure=[end()]),
        flaky("f", successCriteria=ok200(), onFailure=[retry("viaHelper", stepId="helper")]),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": [steps[1], steps[0]]}))

    assert wf["status"] == "failed"
    assert hits(server) == ["GET /flaky", "GET /pets"]  # no retry after the helper failed
    assert wf["error"]["stepId"] == "f"
    assert "helper" in wf["error"]["message"]


def test_a_retry_after_header_as_an_http_date_in_the_past_means_no_wait(write, server):
    server.reply("GET", "/flaky", (503, {}, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), UP)
    events = []
    steps = [flaky("f", successCriteria=ok200(), onFailure=[retry(retryAfter=30)])]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, on_event=events.append))

    assert trail(wf) == [("f", "passed", 2)]
    assert [e.delay for e in events if isinstance(e, StepRetrying)] == [0.0]


def test_a_network_failure_is_a_step_failure_that_can_be_retried(write, server):
    """Connection refused: no status, the cause in the message, the retry happens, the run fails."""
    server.reply("GET", "/pets", (200, []))
    path = write(
        arazzo_doc(
            {"workflowId": "w", "steps": [flaky("f", onFailure=[retry(retryLimit=2)]), listing("next")]}
        )
    )
    result = arazzo_runner.run(path, servers={"pets": "http://127.0.0.1:1"})

    wf = only(result.to_dict())
    assert wf["status"] == "failed"
    assert trail(wf) == [("f", "failed", 3)]
    assert wf["steps"][0]["statusCode"] is None
    assert wf["error"]["stepId"] == "f"
    assert "refused" in wf["error"]["message"].lower() or "connect" in wf["error"]["message"].lower()
