"""Workflow inputs and values over real HTTP: validation before sending, defaults, types, templates, gaps."""

from __future__ import annotations

import pytest

from arazzo_runner.errors import UsageError
from arazzo_runner.executor.inputs import InputsError
from tests.e2e.execkit import execute, hits, listing, only, pet, trail

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "limit": {"type": "integer", "default": 5},
        "apiKey": {"type": "string", "default": "k-123"},
    },
    "required": ["id"],
}


def _uses_inputs() -> dict:
    return {
        "workflowId": "w",
        "inputs": SCHEMA,
        "steps": [
            listing(
                "list",
                parameters=[{"name": "limit", "in": "query", "value": "$inputs.limit"}],
                outputs={"nothing": "$response.body#/0/nothing"},  # declared, absent from the answer
            ),
            pet(
                "get",
                "$inputs.id",
                parameters=[
                    {"name": "petId", "in": "path", "value": "$inputs.id"},
                    {"name": "X-Trace", "in": "header", "value": "Bearer $inputs.apiKey"},
                ],
            ),
        ],
    }


def test_missing_required_input_is_a_usage_error_and_nothing_is_sent(write, server):
    server.reply("GET", "/pets", (200, []))
    with pytest.raises(InputsError) as caught:
        execute(write, server, _uses_inputs(), inputs={"limit": 2})

    assert isinstance(caught.value, UsageError)
    assert "invalid inputs for workflow 'w'" in str(caught.value)
    assert '"id" is required but was not provided' in str(caught.value)
    assert server.requests == []


def test_every_input_problem_is_listed_at_once(write, server):
    with pytest.raises(InputsError) as caught:
        execute(write, server, _uses_inputs(), inputs={"limit": "many", "apiKey": 7})

    assert len(caught.value.problems) == 3
    text = str(caught.value)
    assert '"id" is required' in text
    assert 'limit: "many" is not of type "integer"' in text
    assert 'apiKey: 7 is not of type "string"' in text
    assert server.requests == []


def test_defaults_are_applied_and_the_bare_bearer_form_is_substituted(write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {}))
    wf = only(execute(write, server, _uses_inputs(), inputs={"id": "abc"}))

    assert wf["status"] == "passed"
    assert hits(server) == ["GET /pets", "GET /pets/abc"]
    assert server.requests[0].raw_query == "limit=5"
    assert server.requests[1].headers["x-trace"] == "Bearer k-123"


def test_given_inputs_win_over_defaults(write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {}))
    execute(write, server, _uses_inputs(), inputs={"id": "abc", "limit": 50, "apiKey": "mine"})

    assert server.requests[0].raw_query == "limit=50"
    assert server.requests[1].headers["x-trace"] == "Bearer mine"


def test_typed_values_keep_their_json_types_in_request_bodies(write, server):
    server.reply("POST", "/pets", (201, {"id": 1}))
    workflow = {
        "workflowId": "w",
        "inputs": {
            "type": "object",
            "properties": {
                "age": {"type": "integer"},
                "weight": {"type": "number"},
                "vaccinated": {"type": "boolean"},
                "owner": {"type": "object"},
                "tags": {"type": "array"},
                "name": {"type": "string"},
            },
        },
        "steps": [
            {
                "stepId": "create",
                "operationId": "createPet",
                "requestBody": {
                    "contentType": "application/json",
                    "payload": {
                        "age": "$inputs.age",
                        "weight": "$inputs.weight",
                        "vaccinated": "$inputs.vaccinated",
                        "owner": "$inputs.owner",
                        "tags": "$inputs.tags",
                        "label": "{$inputs.name} ({$inputs.age})",
                        "summary": "owner={$inputs.owner}",
                        "nested": {"first": "$inputs.tags#/0", "city": "$inputs.owner#/address/city"},
                    },
                },
            }
        ],
    }
    inputs = {
        "age": 3,
        "weight": 4.5,
        "vaccinated": False,
        "owner": {"name": "Ann", "address": {"city": "Oslo"}},
        "tags": ["small", "calm"],
        "name": "Rex",
    }
    wf = only(execute(write, server, workflow, inputs=inputs))

    assert wf["status"] == "passed"
    assert server.requests[0].headers["content-type"].startswith("application/json")
    assert server.requests[0].json() == {
        "age": 3,
        "weight": 4.5,
        "vaccinated": False,
        "owner": {"name": "Ann", "address": {"city": "Oslo"}},
        "tags": ["small", "calm"],
        "label": "Rex (3)",
        "summary": 'owner={"name":"Ann","address":{"city":"Oslo"}}',
        "nested": {"first": "small", "city": "Oslo"},
    }


def test_braced_templates_embed_several_expressions_in_one_string(write, server):
    server.reply("GET", "/pets", (200, [{"id": 4}]))
    server.reply("GET", "/pets/{petId}", (200, {}))
    workflow = {
        "workflowId": "w",
        "inputs": {"type": "object", "properties": {"env": {"type": "string"}, "n": {"type": "integer"}}},
        "steps": [
            listing("list", outputs={"first": "$response.body#/0/id"}),
            pet(
                "get",
                parameters=[
                    {"name": "petId", "in": "path", "value": "{$steps.list.outputs.first}"},
                    {
                        "name": "X-Trace",
                        "in": "header",
                        "value": "{$inputs.env}/{$inputs.n}/{$steps.list.outputs.first}",
                    },
                ],
            ),
        ],
    }
    wf = only(execute(write, server, workflow, inputs={"env": "test", "n": 2}))

    assert wf["status"] == "passed"
    assert hits(server) == ["GET /pets", "GET /pets/4"]
    assert server.requests[1].headers["x-trace"] == "test/2/4"


def test_a_missing_output_becomes_null_with_a_warning_naming_it(write, server):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    workflow = {
        "workflowId": "w",
        "steps": [pet("get", outputs={"id": "$response.body#/id", "owner": "$response.body#/owner/name"})],
        "outputs": {"owner": "$steps.get.outputs.owner", "ghost": "$steps.get.outputs.id#/x"},
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    step = wf["steps"][0]
    assert step["outputs"] == {"id": 1, "owner": None}
    assert len(step["warnings"]) == 1
    assert "output 'owner'" in step["warnings"][0]
    assert wf["outputs"] == {"owner": None, "ghost": None}
    assert any("workflow output 'ghost'" in w for w in wf["warnings"])


def test_a_missing_required_path_parameter_fails_the_step_before_sending(write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {}))
    workflow = {
        "workflowId": "w",
        "inputs": {"type": "object", "properties": {"id": {"type": "string"}}},
        "steps": [pet("get", "$inputs.id"), listing("after")],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "failed"
    assert trail(wf) == [("get", "failed", 1)]
    assert wf["steps"][0]["statusCode"] is None
    message = wf["error"]["message"]
    assert message.startswith("request not sent: ")
    assert "petId" in message and "id" in message
    assert server.requests == []


def test_missing_optional_values_are_left_out_never_sent_as_none(write, server):
    server.reply("GET", "/pets", (200, [{"id": 1}]))
    server.reply("POST", "/pets", (201, {}))
    workflow = {
        "workflowId": "w",
        "inputs": {
            "type": "object",
            "properties": {"limit": {"type": "integer"}, "name": {"type": "string"}},
        },
        "steps": [
            listing(
                "list",
                parameters=[{"name": "limit", "in": "query", "value": "$inputs.limit"}],
                outputs={"nothing": "$response.body#/0/nothing"},  # declared, absent from the answer
            ),
            {
                "stepId": "create",
                "operationId": "createPet",
                "requestBody": {
                    "contentType": "application/json",
                    "payload": {
                        "name": "$inputs.name",
                        "kind": "dog",
                        "from": "$steps.list.outputs.nothing#/x",
                    },
                },
            },
        ],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert server.requests[0].raw_query == ""
    assert server.requests[1].json() == {"kind": "dog"}
    for request in server.requests:
        assert b"None" not in request.body
        assert "None" not in request.raw_query
        assert all("None" not in v for v in request.headers.values())
    warnings = wf["steps"][0].get("warnings", []) + wf["steps"][1].get("warnings", [])
    assert any("limit" in w for w in warnings)
    assert any("/name" in w for w in warnings)
    assert any("/from" in w for w in warnings)


def test_a_template_with_a_missing_part_is_not_sent_at_all(write, server):
    server.reply("GET", "/pets/{petId}", (200, {}))
    workflow = {
        "workflowId": "w",
        "inputs": {"type": "object", "properties": {"token": {"type": "string"}}},
        "steps": [
            pet(
                "get",
                parameters=[
                    {"name": "petId", "in": "path", "value": "1"},
                    {"name": "X-Trace", "in": "header", "value": "Bearer {$inputs.token}"},
                ],
            )
        ],
    }
    wf = only(execute(write, server, workflow))

    assert wf["status"] == "passed"
    assert "x-trace" not in server.requests[0].headers
    (warning,) = wf["steps"][0]["warnings"]
    assert "X-Trace" in warning and "token" in warning


def test_the_inputs_of_a_selected_workflow_are_validated_once_per_run(write, server, monkeypatch):
    """The preflight validates them (before anything is sent) and the run uses its result as is."""
    from arazzo_runner.executor import preflight, runner

    calls = []
    real = preflight.validate_inputs

    def counted(workflow_id, *args, **kwargs):
        calls.append(workflow_id)
        return real(workflow_id, *args, **kwargs)

    monkeypatch.setattr(preflight, "validate_inputs", counted)
    monkeypatch.setattr(runner, "validate_inputs", counted)
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (200, {"id": 7}))
    workflow = only(execute(write, server, _uses_inputs(), inputs={"id": "7"}))
    assert workflow["status"] == "passed"
    assert calls == ["w"]
    assert server.requests[0].query == {"limit": ["5"]}  # the default, applied by the preflight
