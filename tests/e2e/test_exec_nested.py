"""workflowId steps, workflows of another Arazzo document, and workflow dependsOn, over real HTTP."""

from __future__ import annotations

import pytest
import yaml

import arazzo_runner
from arazzo_runner.errors import NotRunnable
from arazzo_runner.executor.inputs import InputsError
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import execute, hits, listing, ok200, only, pet, retry, trail

CHILD = {
    "workflowId": "child",
    "inputs": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
    "steps": [pet("fetch", "$inputs.id", outputs={"name": "$response.body#/name"})],
    "outputs": {"name": "$steps.fetch.outputs.name", "id": "$inputs.id"},
}


def _parent(*extra_steps: dict, **step_fields: object) -> dict:
    call = {
        "stepId": "call",
        "workflowId": "child",
        "parameters": [{"name": "id", "value": "$steps.list.outputs.first"}],
        "outputs": {"petName": "$outputs.name", "echo": "$outputs.id"},
        **step_fields,
    }
    return {
        "workflowId": "parent",
        "steps": [listing("list", outputs={"first": "$response.body#/0/id"}), call, *extra_steps],
        "outputs": {"petName": "$steps.call.outputs.petName"},
    }


def test_a_workflow_step_runs_the_child_once_with_its_result_nested(write, server):
    server.reply("GET", "/pets", (200, [{"id": 8}]))
    server.reply("GET", "/pets/{petId}", (200, {"name": "Tom"}))
    wf = only(execute(write, server, _parent(), CHILD, workflow="parent"))

    assert wf["status"] == "passed"
    assert trail(wf) == [("list", "passed", 1), ("call", "passed", 1)]
    call = wf["steps"][1]
    assert call["outputs"] == {"petName": "Tom", "echo": 8}  # `$outputs.x` reads the child's outputs
    assert call["statusCode"] == 200  # the child's last exchange
    child = call["workflow"]
    assert (child["workflowId"], child["status"]) == ("child", "passed")
    assert trail(child) == [("fetch", "passed", 1)]
    assert child["outputs"] == {"name": "Tom", "id": 8}  # the parameter arrived as an integer input
    assert wf["outputs"] == {"petName": "Tom"}
    assert hits(server) == ["GET /pets", "GET /pets/8"]


def test_success_criteria_of_a_workflow_step_read_the_childs_outputs(write, server):
    server.reply("GET", "/pets", (200, [{"id": 8}]))
    server.reply("GET", "/pets/{petId}", (200, {"name": "Tom"}))
    parent = _parent(successCriteria=[{"condition": "$outputs.name == 'Jerry'"}])
    wf = only(execute(write, server, parent, CHILD, workflow="parent"))

    assert wf["status"] == "failed"
    assert wf["steps"][1]["workflow"]["status"] == "passed"
    assert wf["steps"][1]["failedCriteria"] == ["$outputs.name == 'Jerry': got 'Tom'"]


def test_a_failing_child_fails_the_step_and_the_parent_stops(write, server):
    server.reply("GET", "/pets", (200, [{"id": 8}]))
    server.reply("GET", "/pets/{petId}", (500, {}))
    wf = only(execute(write, server, _parent(listing("after")), CHILD, workflow="parent"))

    assert wf["status"] == "failed"
    assert trail(wf) == [("list", "passed", 1), ("call", "failed", 1)]
    assert trail(wf["steps"][1]["workflow"]) == [("fetch", "failed", 1)]
    assert wf["error"]["stepId"] == "call"
    assert wf["error"]["message"].startswith("workflow 'child' failed: ")
    assert "HTTP 500" in wf["error"]["message"]
    assert hits(server) == ["GET /pets", "GET /pets/8"]


def test_child_inputs_that_do_not_fit_its_schema_fail_the_step_unsent(write, server):
    server.reply("GET", "/pets", (200, [{"id": "not-a-number"}]))
    wf = only(execute(write, server, _parent(), CHILD, workflow="parent"))

    assert wf["status"] == "failed"
    assert trail(wf) == [("list", "passed", 1), ("call", "failed", 1)]
    assert "invalid inputs for workflow 'child'" in wf["error"]["message"]
    assert hits(server) == ["GET /pets"]


def test_a_retried_workflow_step_counts_attempts_and_keeps_the_last_child(write, server):
    server.reply("GET", "/pets", (200, [{"id": 8}]))
    server.reply("GET", "/pets/{petId}", (503, {}), (200, {"name": "Tom"}))
    parent = _parent(onFailure=[retry()])
    wf = only(execute(write, server, parent, CHILD, workflow="parent"))

    assert wf["status"] == "passed"
    assert trail(wf) == [("list", "passed", 1), ("call", "passed", 2)]
    assert trail(wf["steps"][1]["workflow"]) == [("fetch", "passed", 1)]
    assert hits(server) == ["GET /pets", "GET /pets/8", "GET /pets/8"]


def test_workflow_parameters_without_in_feed_every_workflow_steps_inputs(write, server):
    """Workflow-level parameters: those with `in` go to operations, those without to child workflows."""
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {"name": "Kit"}))
    parent = {
        "workflowId": "parent",
        "parameters": [{"name": "id", "value": 5}, {"name": "limit", "in": "query", "value": 3}],
        "steps": [listing("list"), {"stepId": "call", "workflowId": "child"}],
    }
    wf = only(execute(write, server, parent, CHILD, workflow="parent"))

    assert wf["status"] == "passed"
    assert hits(server) == ["GET /pets", "GET /pets/5"]
    assert server.requests[0].raw_query == "limit=3"
    assert wf["steps"][1]["workflow"]["outputs"] == {"name": "Kit", "id": 5}


# -- workflows of another Arazzo document ---------------------------------------------------------------

STORE_OPENAPI = {
    "openapi": "3.0.3",
    "info": {"title": "Store", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/unused"}],
    "paths": {
        "/orders/{orderId}": {
            "get": {
                "operationId": "getOrder",
                "parameters": [
                    {"name": "orderId", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "X-Tenant", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def _write_other(tmp_path) -> None:
    other = arazzo_doc(
        {
            "workflowId": "lookupOrder",
            "inputs": {
                "type": "object",
                "properties": {"orderId": {"type": "string"}},
                "required": ["orderId"],
            },
            "steps": [
                {
                    "stepId": "order",
                    "operationId": "getOrder",
                    "parameters": [
                        {"name": "orderId", "in": "path", "value": "$inputs.orderId"},
                        {"reference": "$components.parameters.tenant"},
                    ],
                    "successCriteria": ok200(),
                    "outputs": {"total": "$response.body#/total"},
                }
            ],
            "outputs": {"total": "$steps.order.outputs.total"},
        },
        sources=[{"name": "store", "url": "./apis/store.openapi.yaml", "type": "openapi"}],
        components={
            "parameters": {"tenant": {"name": "X-Tenant", "in": "header", "value": "from-other-doc"}}
        },
    )
    (tmp_path / "apis").mkdir()
    (tmp_path / "apis" / "store.openapi.yaml").write_text(yaml.safe_dump(STORE_OPENAPI))
    (tmp_path / "other.arazzo.yaml").write_text(yaml.safe_dump(other))


def test_a_workflow_of_an_arazzo_source_runs_with_its_own_sources_and_components(write, server, tmp_path):
    server.reply("GET", "/orders/{orderId}", (200, {"total": 12.5}))
    _write_other(tmp_path)
    main = arazzo_doc(
        {
            "workflowId": "main",
            "steps": [
                {
                    "stepId": "remote",
                    "workflowId": "$sourceDescriptions.other.lookupOrder",
                    "parameters": [{"name": "orderId", "value": "A-1"}],
                    "outputs": {"total": "$outputs.total"},
                }
            ],
        },
        sources=[
            {"name": "other", "url": "./other.arazzo.yaml", "type": "arazzo"},
            {"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"},
        ],
        # the same component name with another value: the child must use its own document's
        components={"parameters": {"tenant": {"name": "X-Tenant", "in": "header", "value": "from-main-doc"}}},
    )
    result = arazzo_runner.run(write(main), servers={"pets": server.url, "store": server.url})

    wf = only(result.to_dict())
    assert wf["status"] == "passed", wf
    assert wf["steps"][0]["outputs"] == {"total": 12.5}
    child = wf["steps"][0]["workflow"]
    assert (child["workflowId"], trail(child)) == ("lookupOrder", [("order", "passed", 1)])
    assert hits(server) == ["GET /orders/A-1"]
    assert server.requests[0].headers["x-tenant"] == "from-other-doc"


def test_a_workflow_of_an_arazzo_source_validates_its_own_inputs(write, server, tmp_path):
    _write_other(tmp_path)
    main = arazzo_doc(
        {
            "workflowId": "main",
            "steps": [{"stepId": "remote", "workflowId": "$sourceDescriptions.other.lookupOrder"}],
        },
        sources=[{"name": "other", "url": "./other.arazzo.yaml", "type": "arazzo"}],
    )
    wf = only(arazzo_runner.run(write(main), servers={"store": server.url}).to_dict())

    assert wf["status"] == "failed"
    assert '"orderId" is required' in wf["error"]["message"]
    assert server.requests == []


# -- dependsOn ------------------------------------------------------------------------------------------

LOGIN = {
    "workflowId": "login",
    "inputs": {"type": "object", "properties": {"user": {"type": "string"}}, "required": ["user"]},
    "steps": [
        {
            "stepId": "session",
            "operationId": "session",
            "parameters": [{"name": "sid", "in": "cookie", "value": "$inputs.user"}],
            "outputs": {"token": "$response.body#/token"},
        }
    ],
    "outputs": {"token": "$steps.session.outputs.token"},
}


def _dependent(workflow_id: str) -> dict:
    return {
        "workflowId": workflow_id,
        "dependsOn": ["login"],
        "steps": [
            pet(
                "get",
                parameters=[
                    {"name": "petId", "in": "path", "value": workflow_id},
                    {"name": "X-Trace", "in": "header", "value": "$workflows.login.outputs.token"},
                ],
            )
        ],
    }


def test_a_dependency_runs_once_before_with_the_runs_inputs_and_exposes_its_outputs(write, server):
    server.reply("GET", "/session", (200, {"token": "tok-1"}), (200, {"token": "tok-2"}))
    server.reply("GET", "/pets/{petId}", (200, {}))
    result = execute(
        write, server, _dependent("a"), _dependent("b"), LOGIN, workflow=["a", "b"], inputs={"user": "ann"}
    )

    assert result["status"] == "passed"
    assert [w["workflowId"] for w in result["workflows"]] == ["a", "b"]
    assert hits(server) == ["GET /session", "GET /pets/a", "GET /pets/b"]
    assert server.requests[0].headers["cookie"] == "sid=ann"
    assert [r.headers["x-trace"] for r in server.requests[1:]] == ["tok-1", "tok-1"]
    first = result["workflows"][0]
    assert [d["workflowId"] for d in first["dependencies"]] == ["login"]
    assert first["dependencies"][0]["outputs"] == {"token": "tok-1"}


def test_a_dependency_also_selected_in_the_run_still_runs_once(write, server):
    server.reply("GET", "/session", (200, {"token": "tok-1"}), (200, {"token": "tok-2"}))
    server.reply("GET", "/pets/{petId}", (200, {}))
    result = execute(write, server, LOGIN, _dependent("a"), inputs={"user": "ann"})

    assert result["status"] == "passed"
    assert [w["workflowId"] for w in result["workflows"]] == ["login", "a"]
    assert hits(server) == ["GET /session", "GET /pets/a"]
    assert server.requests[1].headers["x-trace"] == "tok-1"


def test_a_failed_dependency_fails_the_dependent_without_running_it(write, server):
    server.reply("GET", "/session", (500, {}))
    server.reply("GET", "/pets/{petId}", (200, {}))
    result = execute(
        write, server, _dependent("a"), _dependent("b"), LOGIN, workflow=["a", "b"], inputs={"user": "x"}
    )

    assert result["status"] == "failed"
    assert hits(server) == ["GET /session"]
    for wf in result["workflows"]:
        assert wf["status"] == "failed"
        assert wf["steps"] == []
        assert wf["error"]["message"] == "dependency 'login' failed; the workflow did not run"


def test_missing_inputs_of_a_dependency_are_a_usage_error_before_anything_is_sent(write, server):
    server.reply("GET", "/session", (200, {"token": "t"}))
    with pytest.raises(InputsError) as caught:
        execute(write, server, _dependent("a"), LOGIN, workflow="a")

    assert "workflow 'login'" in str(caught.value)
    assert '"user" is required' in str(caught.value)
    assert server.requests == []


def test_a_dependency_cycle_fails_clearly_without_sending(write, server):
    server.reply("GET", "/pets", (200, []))
    a = {"workflowId": "a", "dependsOn": ["b"], "steps": [listing("s")]}
    b = {"workflowId": "b", "dependsOn": ["a"], "steps": [listing("s")]}
    with pytest.raises(NotRunnable) as refused:  # a cycle cannot be ordered: nothing of it runs
        execute(write, server, a, b, workflow="a")

    assert "depends-on-cycle: dependsOn cycle (workflow a -> b -> a)" in str(refused.value)
    assert server.requests == []


def test_a_workflow_calling_itself_without_end_is_stopped_by_the_nesting_guard(write, server):
    server.reply("GET", "/pets", (200, []))
    rec = {"workflowId": "rec", "steps": [listing("s"), {"stepId": "again", "workflowId": "rec"}]}
    wf = only(execute(write, server, rec))

    assert wf["status"] == "failed"
    assert wf["error"] == {
        "stepId": "again",
        "message": "workflow 'rec' failed: workflows nested more than 50 deep: a workflow calling itself?",
    }
    assert len(server.requests) == 51
