"""Spec-legal and meaning-preserving forms that documents from the field use run (issue 22, point 2), and
a misspelt input never becomes a silent wrong value (point 3): over a real local server, through the
command line and the library. `arazzo validate` stays the strict judge of each."""

from __future__ import annotations

import copy

import pytest
import yaml

import arazzo_runner
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import listing, ok200
from tests.e2e.helpers import cli, run_json


@pytest.fixture
def answering(server):
    server.reply("GET", "/pets", (200, [{"id": 1, "name": "Rex"}]))
    server.reply("GET", "/pets/1", (200, {"id": 1, "name": "Rex"}))
    return server


# -- ids and output names with spaces (Arazzo 1.0.x: `$steps.` name is *( CHAR ))

TRIP = {  # as Jentic's generator writes them (fixtures/train, fixtures/newyork_times)
    "workflowId": "Plan a Trip",
    "steps": [
        listing(
            "Plan a Trip_search_0", successCriteria=ok200(), outputs={"Search Response": "$response.body"}
        ),
        {
            "stepId": "Plan a Trip_get_1",
            "operationId": "getPet",
            "parameters": [
                {
                    "name": "petId",
                    "in": "path",
                    "value": "$steps.Plan a Trip_search_0.outputs.Search Response#/0/id",
                }
            ],
            "successCriteria": [
                {"condition": "$steps.Plan a Trip_search_0.outputs.Search Response#/0/name == 'Rex'"},
                {"condition": "$statusCode == 200"},
            ],
            "outputs": {"name": "$response.body#/name"},
        },
    ],
    "outputs": {
        "first": "$steps.Plan a Trip_search_0.outputs.Search Response#/0/name",
        "again": "{$steps.Plan a Trip_get_1.outputs.name}!",
    },
}


def test_ids_and_output_names_with_spaces_run_by_the_ids_the_document_declares(write, answering, capsys):
    path = write(arazzo_doc(TRIP))
    run = run_json(capsys, path, server=answering)
    assert run.code == 0, run.out + run.err
    (workflow,) = run.json["workflows"]
    assert workflow["outputs"] == {"first": "Rex", "again": "Rex!"}
    assert [r.path for r in answering.requests] == ["/pets", "/pets/1"]
    # an error for validate (output names are a MUST), a warning for the run, which goes on
    assert "warning output-name: output name 'Search Response' must match" in run.err
    assert "(an error for `arazzo validate`; the run goes on)" in run.err

    checked = cli(capsys, "validate", path, "--offline")
    assert checked.code == 1
    assert "error output-name" in checked.out and "expression-syntax" not in checked.out
    assert "warning id-pattern: workflowId 'Plan a Trip' should match" in checked.out
    assert "warning id-pattern: stepId 'Plan a Trip_search_0' should match" in checked.out


def test_the_longest_declared_id_wins(write, answering, capsys):
    # `a` and `a b` are both steps: `$steps.a b.outputs.x` reads `a b`, `$steps.a.outputs.x` reads `a`
    flow = {
        "workflowId": "w",
        "steps": [
            listing("a", outputs={"x": "$statusCode"}),
            listing("a b", outputs={"x": "$response.body#/0/name"}),
        ],
        "outputs": {"short": "$steps.a.outputs.x", "long": "$steps.a b.outputs.x"},
    }
    run = run_json(capsys, write(arazzo_doc(flow)), server=answering)
    assert run.code == 0, run.err
    assert run.json["workflows"][0]["outputs"] == {"short": 200, "long": "Rex"}


def test_in_a_1_1_document_validate_points_at_the_1_1_grammar(write, capsys):
    flow = {"workflowId": "w", "steps": [listing("my step")]}
    checked = cli(capsys, "validate", write(arazzo_doc(flow, version="1.1.0")), "--offline")
    assert "warning id-pattern: stepId 'my step' should match" in checked.out
    assert "Arazzo 1.1's runtime expressions read only these characters" in checked.out


# -- input names with characters the 1.1 grammar's identifier has not (1.0.x: `$inputs.` name is *( CHAR ))

PREFS = {  # as a field document writes it: the inputs schema declares `prefs/permissionLevel`
    "workflowId": "w",
    "inputs": {
        "type": "object",
        "properties": {"prefs/permissionLevel": {"type": "string"}, "prefs": {"type": "object"}},
    },
    "steps": [
        {
            "stepId": "pet",
            "operationId": "getPet",
            "parameters": [
                {"name": "petId", "in": "path", "value": "1"},
                {"name": "X-Trace", "in": "header", "value": "level {$inputs.prefs/permissionLevel}"},
            ],
            "successCriteria": [{"condition": "$inputs.prefs/permissionLevel == 'admin'"}],
            "outputs": {"level": "$inputs.prefs/permissionLevel", "prefs": "$inputs.prefs"},
        }
    ],
    "outputs": {"level": "$steps.pet.outputs.level"},
}


def test_a_1_0_input_name_is_read_as_the_inputs_schema_declares_it(write, answering, capsys):
    # Issue 37 item 15: it was an expression-syntax error that refused the workflow
    path = write(arazzo_doc(PREFS))
    given = '{"prefs/permissionLevel": "admin", "prefs": {"theme": "dark"}}'
    run = run_json(capsys, path, "--inputs", given, server=answering)
    assert run.code == 0, run.err
    (workflow,) = run.json["workflows"]
    assert workflow["outputs"] == {"level": "admin"}
    assert workflow["steps"][0]["outputs"] == {"level": "admin", "prefs": {"theme": "dark"}}
    assert answering.requests[-1].headers["x-trace"] == "level admin"
    assert cli(capsys, "validate", path, "--offline").code == 0
    result = arazzo_runner.run(
        path, inputs={"prefs/permissionLevel": "user", "prefs": {}}, servers={"pets": answering.url}
    )
    assert result.workflows[0].steps[0].outputs["level"] == "user"  # and its criterion fails: not admin
    assert not result.ok


def test_such_an_input_alone_is_sent_not_taken_for_an_undeclared_one(write, answering):
    # the schema declares `prefs/permissionLevel` only: the read is not `$inputs.prefs`, an input nobody
    # declared (which fails its step unsent)
    alone = copy.deepcopy(PREFS)
    alone["inputs"]["properties"].pop("prefs")
    step = alone["steps"][0]
    step["parameters"][1]["value"] = "$inputs.prefs/permissionLevel"
    step["outputs"].pop("prefs")
    given = {"prefs/permissionLevel": "admin"}
    result = arazzo_runner.run(write(arazzo_doc(alone)), inputs=given, servers={"pets": answering.url})
    assert result.ok, result.workflows[0].steps[0].error
    assert answering.requests[-1].headers["x-trace"] == "admin"


def test_an_undeclared_input_that_starts_such_a_name_still_fails_its_step_unsent(write, answering):
    # declaring `prefs/permissionLevel` declares that name, not `prefs`: `$inputs.prefs` is a misspelling
    # (docs/semantics.md): its step fails unsent with the did-you-mean, as before the name was read whole
    alone = copy.deepcopy(PREFS)
    alone["inputs"]["properties"].pop("prefs")
    step = alone["steps"][0]
    step["parameters"][1]["value"] = "$inputs.prefs"
    step["outputs"].pop("prefs")
    given = {"prefs/permissionLevel": "admin"}
    result = arazzo_runner.run(write(arazzo_doc(alone)), inputs=given, servers={"pets": answering.url})
    assert not result.ok
    assert "declares no input 'prefs'" in (result.workflows[0].steps[0].error or "")
    assert answering.requests == []


def test_in_a_1_1_document_the_same_input_name_stays_an_error(write, capsys):
    # 1.1's `input-name = identifier`: no `/`
    checked = cli(capsys, "validate", write(arazzo_doc(PREFS, version="1.1.0")), "--offline")
    assert checked.code == 1
    assert "error expression-syntax: invalid runtime expression: unexpected '/' after the expression" in (
        checked.out
    )


# -- a plain operationId with several sources


def _two_sources(write, second: dict) -> object:
    other = {"openapi": "3.1.0", "info": {"title": "Other", "version": "1"}, "paths": second}
    path = write(
        arazzo_doc(
            {"workflowId": "w", "steps": [listing("list", successCriteria=ok200())]},
            sources=[
                {"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"},
                {"name": "other", "url": "./other.openapi.yaml", "type": "openapi"},
            ],
        )
    )
    (path.parent / "other.openapi.yaml").write_text(yaml.safe_dump(other))
    return path


def test_a_plain_operation_id_that_one_source_has_runs_with_a_warning(write, answering, capsys):
    path = _two_sources(
        write,
        {"/orders": {"get": {"operationId": "listOrders", "responses": {"200": {"description": "ok"}}}}},
    )
    run = run_json(capsys, path, server=answering)
    assert run.code == 0, run.err
    assert "warning plain-operation-id: operationId 'listPets' is found in source 'pets' only" in run.err
    assert [r.path for r in answering.requests] == ["/pets"]
    assert "error plain-operation-id" in cli(capsys, "validate", path).out  # a MUST: an error there


def test_a_plain_operation_id_that_two_sources_have_is_not_run(write, answering, capsys):
    same = {"/elsewhere": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok"}}}}}
    path = _two_sources(write, same)
    run = run_json(capsys, path, server=answering, source="pets")
    assert run.code == 2
    (entry,) = run.json["errors"]
    assert "operationId 'listPets' is ambiguous: found in sources pets, other" in entry["message"]
    assert answering.requests == []


# -- an inputs schema that is not an object


def test_a_workflow_whose_inputs_schema_is_not_an_object_runs_with_the_inputs_given(write, answering, capsys):
    # As Redocly's reusable-components fixture writes it: inputs $ref a components.inputs string schema.
    odd = {
        "workflowId": "odd",
        "inputs": {"$ref": "#/components/inputs/text"},
        "steps": [listing("list", successCriteria=ok200())],
        "outputs": {"echo": "$inputs.text"},
    }
    path = write(arazzo_doc(odd, components={"inputs": {"text": {"type": "string"}}}))
    run = run_json(capsys, path, "--input", "text=hello", server=answering)
    assert run.code == 0, run.err
    assert run.json["workflows"][0]["outputs"] == {"echo": "hello"}
    assert "warning inputs-schema: the inputs schema of workflow 'odd' has type string" in run.err
    assert "error inputs-schema" in cli(capsys, "validate", path, "--offline").out


# -- parameter names that differ only in case


def test_header_names_differing_in_case_are_two_parameters_and_the_last_is_sent(write, server, capsys):
    server.reply("GET", "/pets", (200, []))
    flow = {
        "workflowId": "w",
        "steps": [
            listing(
                "list",
                parameters=[
                    {"name": "X-Trace", "in": "header", "value": "first"},
                    {"name": "x-trace", "in": "header", "value": "second"},
                ],
                successCriteria=[{"condition": "$request.header.X-TRACE == 'second'"}],
            )
        ],
    }
    path = write(arazzo_doc(flow))
    run = run_json(capsys, path, server=server)
    assert run.code == 0, run.out + run.err
    (request,) = server.requests
    assert [v for k, v in request.raw_headers if k.lower() == "x-trace"] == ["second"]
    checked = cli(capsys, "validate", path, "--offline")
    assert checked.code == 0  # distinct parameters by the specification's letter
    assert (
        "warning parameter-unique: header parameters 'X-Trace' and 'x-trace' differ only in case"
        in checked.out
    )


# -- a misspelt input reference (point 3)

TYPO = {
    "workflowId": "w",
    "inputs": {"type": "object", "properties": {"limit": {"type": "integer"}, "tags": {"type": "string"}}},
    "steps": [
        listing(
            "list",
            parameters=[
                {"name": "limit", "in": "query", "value": "$inputs.limt"},  # misspelt
                {"name": "tags", "in": "query", "value": "$inputs.tags"},  # declared, optional
            ],
            successCriteria=ok200(),
        )
    ],
}


def test_an_undeclared_input_nobody_gave_fails_its_step_unsent_with_a_did_you_mean(write, answering, capsys):
    path = write(arazzo_doc(TYPO))
    run = run_json(capsys, path, "--input", "limit=5", server=answering)
    assert run.code == 1
    (step,) = run.json["workflows"][0]["steps"]
    assert step["status"] == "failed"
    assert step["error"] == (
        "request not sent: $inputs.limt: the workflow's inputs schema declares no input 'limt' and none "
        "was given; did you mean 'limit'?"
    )
    assert answering.requests == []


def test_a_declared_optional_input_not_given_is_left_out(write, answering, capsys):
    fixed = copy.deepcopy(TYPO)
    fixed["steps"][0]["parameters"][0]["value"] = "$inputs.limit"
    run = run_json(capsys, write(arazzo_doc(fixed)), "--input", "limit=5", server=answering)
    assert run.code == 0, run.err
    (request,) = answering.requests
    assert request.query == {"limit": ["5"]}  # tags left out, with a warning
    assert "parameter 'tags' (in query) not sent" in run.json["workflows"][0]["steps"][0]["warnings"][0]


def test_the_library_fails_the_misspelt_input_the_same_way(write, answering):
    result = arazzo_runner.run(write(arazzo_doc(TYPO)), inputs={"limit": 5}, servers={"pets": answering.url})
    assert result.status == "failed"
    assert "did you mean 'limit'?" in (result.workflows[0].steps[0].error or "")
    assert answering.requests == []


def test_an_undeclared_input_the_caller_gives_is_read(write, answering, capsys):
    open_schema = copy.deepcopy(TYPO)
    open_schema["inputs"]["additionalProperties"] = True
    run = run_json(capsys, write(arazzo_doc(open_schema)), "--input", "limt=3", server=answering)
    assert run.code == 0, run.err
    assert answering.requests[0].query == {"limit": ["3"]}
