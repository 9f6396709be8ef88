"""`arazzo run` and inputs schemas: a schema that is not an object, or `$inputs.x` that a closed schema
does not declare, refuse the run before anything is sent; an undeclared name of an open schema is only a
warning (the run goes on). Over a real local server."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import pet
from tests.e2e.helpers import cli


def _doc(inputs: dict, reference: str = "$inputs.id") -> dict:
    return arazzo_doc({"workflowId": "w", "inputs": inputs, "steps": [pet("get", reference)]})


@pytest.mark.parametrize(
    ("inputs", "argv", "message"),
    [
        ({"type": "string"}, [], "error inputs-schema: the inputs schema of workflow 'w' has type string"),
        (
            {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": False},
            ["--input", "id=1"],
            "error input-reference: $inputs.Id: workflow 'w' declares no input 'Id' and accepts no other",
        ),
    ],
    ids=["not-an-object", "closed-schema-typo"],
)
def test_the_run_is_refused(write, server, capsys, inputs, argv, message) -> None:
    reference = "$inputs.id" if inputs["type"] == "string" else "$inputs.Id"
    path = write(_doc(inputs, reference))
    run = cli(capsys, "run", path, "--server", f"pets={server.url}", *argv)
    assert run.code == 2
    assert message in run.err
    assert server.requests == []


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
