"""`--inputs-file` rows do once for the batch what is the same for every row (issue 43, fourth round): the
contract check's compiled schemas serve every row's response, and a plain inputs schema (typed
properties alone) is read once into a shortcut that passes each good row without the general validator;
a bad row still gets the general validator's words. The text and reports stay what they were."""

from __future__ import annotations

import copy

import pytest

from arazzo_runner.http import contract_schema
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, workflow

PLAIN = {
    "type": "object",
    "required": ["petId"],
    "properties": {"petId": {"type": "integer"}, "password": {"type": "string", "format": "password"}},
}


def _doc(schema: dict) -> dict:
    get = op_step(
        "get",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": "$inputs.petId"},
            {"name": "X-Trace", "in": "header", "value": "$inputs.password"},
        ],
        successCriteria=[{"condition": "$statusCode == 200"}],
        outputs={"name": "$response.body#/name"},
    )
    return arazzo_doc(workflow("flow", get, inputs=schema, outputs={"name": "$steps.get.outputs.name"}))


def _openapi() -> dict:
    """The pets description with getPet's 200 body described: `name` a string."""
    described = copy.deepcopy(PETS_OPENAPI)
    # a pattern: outside the subset `http/contract_subset.py` checks without jsonschema-rs, so compiled
    body = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^pet-"}}}
    get = described["paths"]["/pets/{petId}"]["get"]
    get["responses"]["200"] = {"description": "ok", "content": {"application/json": {"schema": body}}}
    return described


@pytest.fixture
def pets(server):
    @server.route("GET", "/pets/{id}")
    def pet(request):
        name = 7 if request.params["id"] == "3" else f"pet-{request.params['id']}"  # row 3: not a string
        return 200, {"name": name}

    return server


@pytest.fixture
def compiled(monkeypatch):
    """Response schemas compiled for the contract checks, one entry each."""
    seen: list[object] = []
    real = contract_schema.BodyChecker._compile

    def counted(self):
        seen.append(self)
        return real(self)

    monkeypatch.setattr(contract_schema.BodyChecker, "_compile", counted)
    return seen


ROWS = '{"petId": 1, "password": "correct-horse-battery"}\n{"petId": 2}\n{"petId": 3}\n{"petId": 4}\n'


@pytest.mark.parametrize("concurrency", ["1", "3"])
def test_the_rows_share_the_contracts_compiled_schema(capsys, write, pets, tmp_path, compiled, concurrency):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(ROWS)
    path = write(_doc(PLAIN), openapi=_openapi())
    result = run_json(capsys, path, "--inputs-file", rows, "--concurrency", concurrency, server=pets)
    assert result.code == 0, result.err
    assert len(compiled) == 1  # one operation, status and media type: compiled for the first row alone
    steps = [r["result"]["workflows"][0]["steps"][0] for r in result.json["rows"]]
    warned = [[w for w in step.get("warnings", []) if w.startswith("contract:")] for step in steps]
    assert [len(w) for w in warned] == [0, 0, 1, 0]  # each row's body still checked: row 3's is not right
    assert "body /name: wanted type string, got integer 7" in warned[2][0]


def test_plain_rows_pass_their_check_without_the_general_validator(
    capsys, write, pets, tmp_path, validations
):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(ROWS)
    result = cli(capsys, "run", write(_doc(PLAIN)), "--server", f"pets={pets.url}", "--inputs-file", rows,
                 "--concurrency", "2")  # fmt: skip
    assert result.code == 0, result.err
    assert validations == []  # the shortcut passed every row, in the check pass and (trusted) in the runs
    assert result.out.count("== row ") == 4
    assert "correct-horse" not in result.out  # the row's secret, masked as before
    assert "== row 1 (line 1): petId=1, password=***" in result.out


@pytest.mark.parametrize(
    "bad, problem",
    [
        ('{"petId": "two"}', 'petId: \\"two\\" is not of type \\"integer\\"'),
        ('{"petId": 2, "password": 5}', 'password: 5 is not of type \\"string\\"'),
        ('{"petId": true}', 'petId: true is not of type \\"integer\\"'),
    ],
)
def test_a_row_the_shortcut_does_not_pass_gets_the_validators_words(
    capsys, write, pets, tmp_path, validations, bad, problem
):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n' + bad + "\n")
    result = run_json(capsys, write(_doc(PLAIN)), "--inputs-file", rows, server=pets)
    assert result.code == 2
    assert "invalid inputs for workflow 'flow'" in result.out
    assert problem in result.out
    assert "(--inputs-file row 2, line 2)" in result.out
    assert "correct-horse" not in result.out
    assert len(validations) == 1  # the bad row alone went the general way
    assert pets.requests == []  # nothing sent
