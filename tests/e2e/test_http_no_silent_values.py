"""Never a silent wrong value on the wire (issue 12): a required parameter that comes out null or missing
fails its step unsent, naming the parameter and the expression; invalid JSON is never sent under a JSON
content type. Real requests to a real local server; the server's record shows what was (not) sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, step, workflow

STRING = {"type": "string"}
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/pets": {
            "get": {"operationId": "findPet", "responses": {"200": {"description": "ok"}}},
            "post": {
                "operationId": "createPet",
                "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
                "responses": {"200": {"description": "ok"}},
            },
        },
        "/pets/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "required": True, "schema": STRING}],
            "get": {
                "operationId": "getPet",
                "parameters": [
                    {"name": "owner", "in": "query", "required": True, "schema": STRING},
                    {"name": "X-Tenant", "in": "header", "required": True, "schema": STRING},
                    {"name": "session", "in": "cookie", "required": True, "schema": STRING},
                    {"name": "color", "in": "query", "schema": STRING},
                    {"name": "X-Note", "in": "header", "schema": STRING},
                ],
                "responses": {"200": {"description": "ok"}},
            },
        },
    },
}
SOURCE = [{"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"}]
FOUND = {"id": None, "owner": "ann", "tenant": "t1", "session": "s1", "pet": {"name": "Rex"}}
FIND = op_step(
    "find",
    "findPet",
    outputs={
        "petId": "$response.body#/id",  # present, and null
        "gone": "$response.body#/nothing",  # not there: stored null, with why
        "owner": "$response.body#/owner",
        "tenant": "$response.body#/tenant",
        "session": "$response.body#/session",
        "pet": "$response.body#/pet",
    },
)


def _get(**overrides: Any) -> dict:
    values = {
        "petId": "7",
        "owner": "$steps.find.outputs.owner",
        "X-Tenant": "$steps.find.outputs.tenant",
        "session": "$steps.find.outputs.session",
    } | overrides
    where = {"petId": "path", "owner": "query", "X-Tenant": "header", "session": "cookie"}
    where |= {"color": "query", "X-Note": "header"}
    params = [{"name": name, "in": where[name], "value": value} for name, value in values.items()]
    return op_step("get", "getPet", parameters=params)


def _run(capsys, write, server, *steps: dict, inputs: dict | None = None, argv: tuple = ()):
    server.reply("GET", "/pets", (200, FOUND))
    server.reply("GET", "/pets/{petId}", (200, {}))
    server.reply("POST", "/pets", (200, {}))
    fields: dict[str, Any] = {}
    if inputs is not None:
        fields["inputs"] = {"type": "object", "properties": {name: {} for name in inputs}}
    path = write(arazzo_doc(workflow("flow", FIND, *steps, **fields), sources=SOURCE), openapi=OPENAPI)
    given = ["--inputs", json.dumps(inputs)] if inputs else []
    return run_json(capsys, path, *given, *argv, server=server)


def _sent(server) -> list[str]:
    return [f"{r.method} {r.path}" for r in server.requests]


@pytest.mark.parametrize(
    ("name", "where"),
    [("petId", "path"), ("owner", "query"), ("X-Tenant", "header"), ("session", "cookie")],
)
def test_a_required_parameter_that_comes_out_null_fails_the_step_unsent(capsys, write, server, name, where):
    result = _run(capsys, write, server, _get(**{name: "$steps.find.outputs.petId"}))
    assert result.code == 1
    assert _sent(server) == ["GET /pets"]  # the second request never went out (no `GET /pets/`)
    got = step(result, 1)
    assert got["status"] == "failed"
    assert got["statusCode"] is None
    assert got["error"] == (
        f"request not sent: required parameter '{name}' (in {where}) has no value: "
        "$steps.find.outputs.petId is null"
    )


@pytest.mark.parametrize(
    ("name", "where", "template"),
    [
        ("petId", "path", "{$steps.find.outputs.petId}"),  # a whole-value template, quoted in YAML
        ("owner", "query", "owner-{$steps.find.outputs.petId}"),
        ("X-Tenant", "header", "t {$steps.find.outputs.owner} {$steps.find.outputs.petId}"),
    ],
)
def test_a_null_inside_a_template_fails_a_required_parameter_unsent(
    capsys, write, server, name, where, template
):
    result = _run(capsys, write, server, _get(**{name: template}))
    assert result.code == 1
    assert _sent(server) == ["GET /pets"]  # never `GET /pets/null`
    assert step(result, 1)["error"] == (
        f"request not sent: required parameter '{name}' (in {where}) has no value: "
        f"{{$steps.find.outputs.petId}} is null in {template!r}"
    )


def test_a_null_inside_an_optional_parameters_template_is_sent_with_a_warning(capsys, write, server):
    result = _run(capsys, write, server, _get(color="c-{$steps.find.outputs.petId}"))
    assert result.code == 0, result.out
    assert server.requests[1].raw_query == "owner=ann&color=c-null"
    assert step(result, 1)["warnings"] == [
        "parameter 'color' (in query): {$steps.find.outputs.petId} is null, sent as the text 'null'"
    ]


def test_the_text_null_from_a_value_is_not_a_null(capsys, write, server):
    result = _run(capsys, write, server, _get(owner="o-{$steps.find.outputs.tenant}-null"))
    assert result.code == 0, result.out
    assert server.requests[1].raw_query == "owner=o-t1-null"
    assert "warnings" not in step(result, 1)


def test_a_null_output_that_was_missing_says_why(capsys, write, server):
    result = _run(capsys, write, server, _get(petId="$steps.find.outputs.gone"))
    assert result.code == 1
    assert _sent(server) == ["GET /pets"]
    assert step(result, 1)["error"] == (
        "request not sent: required parameter 'petId' (in path) has no value: "
        "$steps.find.outputs.gone is null (output 'gone' of step 'find': "
        "$response.body#/nothing: no member 'nothing' at the root)"
    )


def test_a_missing_required_query_parameter_names_its_expression(capsys, write, server):
    result = _run(capsys, write, server, _get(owner="$response.header.x-owner"))
    assert result.code == 1
    assert _sent(server) == ["GET /pets"]
    error = step(result, 1)["error"]
    assert error.startswith("request not sent: required parameter 'owner' (in query) has no value: ")
    assert "$response.header.x-owner" in error


def test_a_literal_null_for_a_required_parameter_fails_unsent(capsys, write, server):
    result = _run(capsys, write, server, _get(session=None))
    assert result.code == 1
    assert _sent(server) == ["GET /pets"]
    assert step(result, 1)["error"] == (
        "request not sent: required parameter 'session' (in cookie) has no value: its value is null"
    )


def test_an_optional_null_is_sent_as_the_empty_value_and_a_missing_one_is_left_out(capsys, write, server):
    result = _run(
        capsys, write, server, _get(color="$steps.find.outputs.petId", **{"X-Note": "$inputs.note"})
    )
    assert result.code == 0, result.out
    sent = server.requests[1]
    assert sent.path == "/pets/7"
    assert sent.raw_query == "owner=ann&color="
    assert "x-note" not in sent.headers
    assert step(result, 1)["warnings"] == [
        "parameter 'X-Note' (in header) not sent: input 'note' was not provided"
    ]


def test_the_dry_run_shows_the_null_instead_of_an_empty_segment(capsys, write, server):
    path = write(
        arazzo_doc(
            workflow(
                "flow",
                FIND,
                _get(petId="$inputs.petId"),
                inputs={"type": "object", "properties": {"petId": {"type": ["string", "null"]}}},
            ),
            sources=SOURCE,
        ),
        openapi=OPENAPI,
    )
    result = cli(capsys, "run", path, "--dry-run", "--inputs", '{"petId": null}')
    assert result.code == 1
    assert "/pets/?" not in result.out and "/pets/ " not in result.out
    assert (
        "get  request cannot be built: required parameter 'petId' (in path) has no value: "
        "$inputs.petId is null"
    ) in result.out
    assert server.requests == []


# -- JSON payloads ---------------------------------------------------------------------------------


def _create(payload: Any, content_type: str = "application/json") -> dict:
    return op_step("create", "createPet", requestBody={"contentType": content_type, "payload": payload})


def test_an_object_embedded_inside_quotes_is_not_sent_as_invalid_json(capsys, write, server):
    result = _run(capsys, write, server, _create('{"pet": "{$steps.find.outputs.pet}"}'))
    assert result.code == 1
    assert _sent(server) == ["GET /pets"]  # the POST never went out
    error = step(result, 1)["error"]
    assert error.startswith(
        "request not sent: the payload is not valid JSON (Expecting ',' delimiter at line 1"
    )
    assert 'near \'{"pet": "{"name":"Rex"}"}\'' in error
    assert error.endswith(
        "an object or array in a {$...} is embedded as JSON text: write it without quotes around it"
    )


def test_the_same_object_without_quotes_is_sent_as_json(capsys, write, server):
    result = _run(capsys, write, server, _create('{"pet": {$steps.find.outputs.pet}}'))
    assert result.code == 0, result.out
    assert server.requests[1].json() == {"pet": {"name": "Rex"}}


@pytest.mark.parametrize("content_type", ["application/json", "application/merge-patch+json"])
def test_literal_text_that_is_not_json_is_refused_under_a_json_type(capsys, write, server, content_type):
    result = _run(capsys, write, server, _create("name=Rex", content_type))
    assert result.code == 1
    assert _sent(server) == ["GET /pets"]
    error = step(result, 1)["error"]
    assert error.startswith("request not sent: the payload is not valid JSON (Expecting value at line 1")
    assert "{$...}" not in error  # no template: no hint about embedding


def test_the_dry_run_reads_placeholders_as_values_in_json_text(capsys, write, server):
    path = write(
        arazzo_doc(workflow("flow", FIND, _create('{"pet": {$steps.find.outputs.pet}}')), sources=SOURCE),
        openapi=OPENAPI,
    )
    result = cli(capsys, "run", path, "--dry-run")
    assert result.code == 0, result.out
    assert '"pet": <$steps.find.outputs.pet>' in result.out or "<$steps.find.outputs.pet>}" in result.out
    assert server.requests == []


def test_a_null_workflow_output_that_was_missing_says_why(capsys, write, server):
    server.reply("GET", "/pets", (200, FOUND))
    child = workflow("child", FIND, outputs={"nickname": "$steps.find.outputs.pet#/nickname"})
    parent = workflow(
        "parent",
        {"stepId": "call", "workflowId": "child"},
        _get(
            petId="$workflows.child.outputs.nickname",
            owner="ann",
            session="s1",
            **{"X-Tenant": "t1"},
        ),
    )
    path = write(arazzo_doc(parent, child, sources=SOURCE), openapi=OPENAPI)
    result = run_json(capsys, path, "-w", "parent", server=server)
    assert result.code == 1
    assert _sent(server) == ["GET /pets"]
    assert step(result, 1)["error"] == (
        "request not sent: required parameter 'petId' (in path) has no value: "
        "$workflows.child.outputs.nickname is null (output 'nickname' of workflow 'child': "
        "$steps.find.outputs.pet#/nickname: no member 'nickname' at the root)"
    )
