"""`arazzo run` and inputs schemas: `$inputs.x` that a closed schema does not declare refuses the
workflow before anything is sent; a schema that is not an object is a warning of the run, which takes
the inputs as given; an undeclared name of an open schema is only a warning of `validate` (the run goes
on). Over a real local server."""

from __future__ import annotations

from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import pet
from tests.e2e.helpers import cli


def _doc(inputs: dict, reference: str = "$inputs.id") -> dict:
    return arazzo_doc({"workflowId": "w", "inputs": inputs, "steps": [pet("get", reference)]})


def test_a_closed_schema_typo_refuses_the_workflow(write, server, capsys) -> None:
    inputs = {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": False}
    path = write(_doc(inputs, "$inputs.Id"))
    run = cli(capsys, "run", path, "--server", f"pets={server.url}", "--input", "id=1")
    assert run.code == 2
    assert (
        "error input-reference: $inputs.Id: workflow 'w' declares no input 'Id' and accepts no other"
        in run.err
    )
    assert server.requests == []


def test_a_schema_that_is_not_an_object_runs_with_the_inputs_given(write, server, capsys) -> None:
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    path = write(_doc({"type": "string"}))
    run = cli(capsys, "run", path, "--server", f"pets={server.url}", "--input", "id=1")
    assert run.code == 0, run.out + run.err
    assert "warning inputs-schema: the inputs schema of workflow 'w' has type string" in run.err
    assert [r.path for r in server.requests] == ["/pets/1"]
    without = cli(capsys, "run", path, "--server", f"pets={server.url}")
    assert without.code == 1  # a schema naming no inputs takes any: `$inputs.id` is missing like any value
    assert (
        "required parameter 'petId' (in path) has no value: $inputs.id: input 'id' was not provided"
        in without.out
    )
    assert len(server.requests) == 1


def test_an_undeclared_name_of_an_open_schema_runs(write, server, capsys) -> None:
    server.reply("GET", "/pets/{petId}", (200, {"id": 7}))
    path = write(_doc({"type": "object", "properties": {"name": {"type": "string"}}}))
    run = cli(capsys, "run", path, "--server", f"pets={server.url}", "--inputs", '{"id": 7}')
    assert run.code == 0, run.err
    assert [r.path for r in server.requests] == ["/pets/7"]
    checked = cli(capsys, "validate", path, "--offline")
    assert (
        checked.code == 0
        and "warning input-reference: $inputs.id: workflow 'w' declares no input 'id'" in checked.out
    )
