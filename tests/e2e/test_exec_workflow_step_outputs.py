"""`$workflows.<id>.steps.<stepId>.outputs.<name>` (the 1.1 `dependsOn` text, extended with `.outputs`):
the outputs of a step of another workflow, as that workflow's latest execution in this run left them; over
real HTTP, through the library and the command line."""

from __future__ import annotations

import arazzo_runner
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import execute, hits, listing, ok200, only, pet, trail
from tests.e2e.helpers import run_json

LOGIN = {
    "workflowId": "login",
    "steps": [listing("signIn", successCriteria=ok200(), outputs={"token": "$response.body#/0/token"})],
}


def _uses_token(**fields: object) -> dict:
    header = {"name": "X-Trace", "in": "header", "value": "$workflows.login.steps.signIn.outputs.token"}
    return {
        "workflowId": "useToken",
        "steps": [pet("fetch", "1", parameters=[{"name": "petId", "in": "path", "value": "1"}, header])],
        "outputs": {"sawToken": "$workflows.login.steps.signIn.outputs.token"},
        **fields,
    }


def test_a_step_of_a_dependency_is_read_in_a_parameter_and_an_output(write, server) -> None:
    server.reply("GET", "/pets", (200, [{"token": "tok-7"}]))
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    result = execute(write, server, LOGIN, _uses_token(dependsOn=["login"]), workflow="useToken")

    wf = only(result)
    assert wf["status"] == "passed", wf
    assert wf["outputs"] == {"sawToken": "tok-7"}
    assert hits(server) == ["GET /pets", "GET /pets/1"]
    assert server.requests[1].headers["x-trace"] == "tok-7"


def test_the_latest_execution_of_the_workflow_is_read(write, server) -> None:
    names = iter(["first", "second"])
    server.route("GET", "/pets/{petId}")(lambda request: (200, {"name": next(names)}))
    child = {
        "workflowId": "child",
        "inputs": {"type": "object", "properties": {"id": {"type": "string"}}},
        "steps": [pet("fetch", "$inputs.id", outputs={"name": "$response.body#/name"})],
    }
    parent = {
        "workflowId": "parent",
        "steps": [
            {"stepId": "once", "workflowId": "child", "parameters": [{"name": "id", "value": "1"}]},
            {"stepId": "twice", "workflowId": "child", "parameters": [{"name": "id", "value": "2"}]},
        ],
        "outputs": {"latest": "$workflows.child.steps.fetch.outputs.name"},
    }
    wf = only(execute(write, server, parent, child, workflow="parent"))

    assert wf["status"] == "passed", wf
    assert trail(wf) == [("once", "passed", 1), ("twice", "passed", 1)]
    assert wf["outputs"] == {"latest": "second"}
    assert hits(server) == ["GET /pets/1", "GET /pets/2"]


def test_a_workflow_that_has_not_run_fails_the_step_that_needs_its_value(write, server) -> None:
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    needs = {
        "workflowId": "needs",
        "steps": [pet("fetch", "$workflows.login.steps.signIn.outputs.token")],
    }
    wf = only(execute(write, server, LOGIN, needs, workflow="needs"))

    assert wf["status"] == "failed"
    assert "workflow 'login' has not run" in wf["error"]["message"]
    assert server.requests == []  # nothing is sent with a value that does not exist


def test_the_command_line_runs_it_with_a_1_1_step_dependency(write, server, capsys) -> None:
    server.reply("GET", "/pets", (200, [{"token": "tok-9"}]))
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    uses = _uses_token(dependsOn=["login"])
    uses["steps"][0]["dependsOn"] = ["$workflows.login.steps.signIn"]
    path = write(arazzo_doc(LOGIN, uses, version="1.1.0"))

    run = run_json(capsys, path, "--workflow", "useToken", server=server)
    assert (run.code, run.err) == (0, "")
    [flow] = run.json["workflows"]
    assert flow["outputs"] == {"sawToken": "tok-9"}
    assert server.requests[1].headers["x-trace"] == "tok-9"


def test_a_dry_run_shows_the_value_it_cannot_know_as_its_expression(write, server) -> None:
    path = write(arazzo_doc(LOGIN, _uses_token(dependsOn=["login"])))
    planned = arazzo_runner.plan_requests(path, "useToken", servers={"pets": server.url})

    assert server.requests == []
    assert [p.step_id for p in planned] == ["signIn", "fetch"]
    assert ("X-Trace", "<$workflows.login.steps.signIn.outputs.token>") in planned[1].headers
