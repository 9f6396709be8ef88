"""Inputs from the command line: `--inputs` (JSON text, JSON file, YAML file), `--input` coercion,
validation before anything is sent, and workflow selection."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, only_workflow, op_step, run_json, workflow

SCHEMA = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "code": {"type": "string"},
        "age": {"type": "integer"},
        "weight": {"type": "number"},
        "vaccinated": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "owner": {"type": "object"},
        "nickname": {"type": ["null", "string"]},  # union types: tried in the order declared
        "species": {"type": "string", "default": "dog"},
    },
}
FIELDS = ["name", "code", "age", "weight", "vaccinated", "tags", "owner", "nickname", "species"]


def _doc() -> dict:
    payload = {field: f"$inputs.{field}" for field in FIELDS}
    create = op_step("create", "createPet", requestBody={"payload": payload})
    return arazzo_doc(workflow("flow", create, inputs=SCHEMA, outputs={"name": "$inputs.name"}))


def _sent(server) -> dict:
    assert len(server.requests) == 1
    return json.loads(server.requests[0].body)


def test_inputs_as_inline_json(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    inputs = {"name": "Rex", "age": 3, "tags": ["a"], "owner": {"id": 1}}
    result = run_json(capsys, write(_doc()), "--inputs", json.dumps(inputs), server=server)
    assert result.code == 0, result.out
    assert _sent(server) == {**inputs, "species": "dog"}  # absent inputs omitted, defaults applied
    assert only_workflow(result)["outputs"] == {"name": "Rex"}


def test_inputs_from_a_json_file(capsys, write, server, tmp_path):
    server.reply("POST", "/pets", (201, {}))
    file = tmp_path / "inputs.json"
    file.write_text(json.dumps({"name": "Rex", "weight": 4.5, "species": "cat"}))
    result = run_json(capsys, write(_doc()), "--inputs", file, server=server)
    assert result.code == 0, result.out
    assert _sent(server) == {"name": "Rex", "weight": 4.5, "species": "cat"}


def test_inputs_from_a_yaml_file(capsys, write, server, tmp_path):
    server.reply("POST", "/pets", (201, {}))
    file = tmp_path / "inputs.yaml"
    file.write_text("name: Rex\nvaccinated: true\ncode: '007'\ntags:\n  - a\n  - b\nowner: {id: 7}\n")
    result = run_json(capsys, write(_doc()), "--inputs", file, server=server)
    assert result.code == 0, result.out
    assert _sent(server) == {
        "name": "Rex",
        "vaccinated": True,
        "code": "007",
        "tags": ["a", "b"],
        "owner": {"id": 7},
        "species": "dog",
    }


def test_input_values_are_coerced_to_the_schema_types(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    argv = [
        "--input", "name=Rex",
        "--input", "code=007",
        "--input", "age=3",
        "--input", "weight=4.5",
        "--input", "vaccinated=false",
        "--input", 'tags=["x", "y"]',
        "--input", 'owner={"id": 7, "names": ["a=b"]}',
        "--input", "nickname=null",
    ]  # fmt: skip
    result = run_json(capsys, write(_doc()), *argv, server=server)
    assert result.code == 0, result.out
    sent = _sent(server)
    assert sent == {
        "name": "Rex",
        "code": "007",
        "age": 3,
        "weight": 4.5,
        "vaccinated": False,
        "tags": ["x", "y"],
        "owner": {"id": 7, "names": ["a=b"]},
        "nickname": None,
        "species": "dog",
    }
    assert server.requests[0].body.startswith(b'{"name":"Rex","code":"007","age":3,"weight":4.5,')


def test_input_overrides_inputs_and_keeps_everything_after_the_first_equals(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    argv = ["--inputs", '{"name": "Rex", "age": 1}', "--input", "name=a=b c", "--input", "age=2"]
    result = run_json(capsys, write(_doc()), *argv, server=server)
    assert result.code == 0, result.out
    assert _sent(server) == {"name": "a=b c", "age": 2, "species": "dog"}


def test_a_missing_required_input_is_a_usage_error_and_nothing_is_sent(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    result = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}", "--input", "age=3")
    assert result.code == 2
    assert result.out == ""
    assert "workflow 'flow' needs inputs that were not given" in result.err
    assert "--input name=..." in result.err  # how to supply it (tests/e2e/test_cli_env_inputs.py)
    assert server.requests == []


def test_a_value_that_does_not_fit_its_type_is_a_usage_error(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    result = cli(capsys, "run", write(_doc()), "--input", "name=Rex", "--input", "age=three")
    assert result.code == 2
    assert 'age: "three" is not of type "integer"' in result.err
    assert server.requests == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--inputs", "{not json"], "--inputs is not valid JSON"),
        (["--inputs", "no-such-file.json"], "--inputs: no such file 'no-such-file.json'"),
        (["--inputs", "[1, 2]"], "--inputs must be a JSON object"),
        (["--input", "name"], "--input expects KEY=VALUE, got 'name'"),
        (["--input", "=x"], "--input expects KEY=VALUE, got '=x'"),
    ],
)
def test_malformed_inputs_are_usage_errors(capsys, write, server, argv, message):
    result = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}", *argv)
    assert result.code == 2
    assert result.out == ""
    assert message in result.err
    assert server.requests == []


def test_inputs_file_that_is_not_an_object(capsys, write, tmp_path):
    file = tmp_path / "list.yaml"
    file.write_text("- 1\n- 2\n")
    result = cli(capsys, "run", write(_doc()), "--inputs", file)
    assert result.code == 2
    assert "--inputs must be a JSON object (or a file containing one)" in result.err


def test_unknown_workflow_is_a_usage_error_listing_the_known_ones(capsys, write, server):
    doc = arazzo_doc(
        workflow("first", op_step("list", "listPets")), workflow("second", op_step("list", "listPets"))
    )
    path = write(doc)
    result = cli(capsys, "run", path, "--workflow", "third", "--server", f"pets={server.url}")
    assert result.code == 2
    assert result.out == ""
    assert result.err.strip() == f"error: no workflow 'third' in {path} (workflows: first, second)"
    assert server.requests == []


def test_with_several_workflows_each_gets_the_inputs_its_schema_declares(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    server.reply("GET", "/pets", (200, []))
    strict = {"type": "object", "properties": {"limit": {"type": "integer"}}, "additionalProperties": False}
    listing = op_step(
        "list", "listPets", parameters=[{"name": "limit", "in": "query", "value": "$inputs.limit"}]
    )
    doc = _doc()
    doc["workflows"].append(workflow("listing", listing, inputs=strict))
    result = run_json(capsys, write(doc), "--input", "name=Rex", "--input", "limit=5", server=server)
    assert result.code == 0, result.out
    assert json.loads(server.requests[0].body) == {"name": "Rex", "species": "dog"}
    assert server.requests[1].raw_query == "limit=5"
