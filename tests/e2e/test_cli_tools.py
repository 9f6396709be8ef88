"""`arazzo tools`: workflows as tool definitions (openai, anthropic, mcp), credential inputs left out
whatever makes them credentials, hints from every operation a workflow reaches, renames reported."""

from __future__ import annotations

import copy

import pytest

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli

OPENAPI = copy.deepcopy(PETS_OPENAPI)
OPENAPI["components"] = {
    "securitySchemes": {
        "api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        "petstore_auth": {"type": "http", "scheme": "bearer"},
    }
}
OK = [{"condition": "$statusCode == 200"}]


def step(step_id, operation, **fields):
    return {"stepId": step_id, "operationId": operation, "successCriteria": OK, **fields}


def path_param(value="$inputs.petId"):
    return {"name": "petId", "in": "path", "value": value}


SHOW = {
    "workflowId": "show-pet",
    "summary": "Show a pet.",
    "description": "Reads one pet by id.",
    "inputs": {
        "type": "object",
        "required": ["petId", "secret", "key"],
        "properties": {
            "petId": {"type": "string"},
            "secret": {"type": "object", "properties": {"pin": {"type": "string", "format": "password"}}},
            "petstore_auth": {"type": "string"},
            "key": {"type": "string"},
        },
    },
    "steps": [
        step(
            "get",
            "getPet",
            parameters=[path_param(), {"name": "x-api-key", "in": "header", "value": "$inputs.key"}],
        )
    ],
    "outputs": {"pet": "$response.body", "status": "$statusCode"},
}
DOC = arazzo_doc(
    {
        "workflowId": "read-pets",
        "summary": "List the pets, then show one.",
        "inputs": {"$ref": "#/components/inputs/reading"},
        "steps": [
            step("list", "listPets"),
            {
                "stepId": "one",
                "workflowId": "show-pet",
                "parameters": [{"name": "petId", "value": "$inputs.petId"}],
            },
        ],
    },
    SHOW,
    {
        "workflowId": "remove-pet",
        "inputs": {
            "type": "object",
            "properties": {"petId": {"type": "string"}, "myKey": {"type": "string"}},
        },
        "steps": [
            {
                "stepId": "check",
                "workflowId": "show-pet",
                "parameters": [
                    {"name": "petId", "value": "$inputs.petId"},
                    {"name": "key", "value": "$inputs.myKey"},
                ],
            },
            {"stepId": "delete", "operationId": "deletePet", "parameters": [path_param()]},
        ],
    },
    {
        "workflowId": "make pet",
        "dependsOn": ["show-pet"],
        "inputs": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "secret": {"type": "string"}},
        },
        "steps": [step("create", "createPet", requestBody={"payload": {"name": "$inputs.name"}})],
    },
    components={
        "inputs": {
            "reading": {
                "type": "object",
                "properties": {"petId": {"$ref": "#/components/inputs/petId"}},
                "required": ["petId"],
            },
            "petId": {"type": "string", "description": "The pet's id."},
        }
    },
)


@pytest.fixture
def doc(write):
    return write(DOC, openapi=OPENAPI)


def tools(capsys, *argv, code=0):
    result = cli(capsys, "tools", *map(str, argv))
    assert result.code == code, result.err
    return result


def test_openai_definitions_leave_every_credential_out(capsys, doc):
    result = tools(capsys, doc)
    data = result.json
    assert [d["type"] for d in data] == ["function"] * 4
    functions = {d["function"]["name"]: d["function"] for d in data}
    assert list(functions) == ["read-pets", "show-pet", "remove-pet", "make_pet"]
    show = functions["show-pet"]
    # secret (a password inside), petstore_auth (a scheme's name), key (sent in the apiKey header)
    assert show["parameters"] == {
        "type": "object",
        "required": ["petId"],
        "properties": {"petId": {"type": "string"}},
    }
    assert show["description"] == "Show a pet.\n\nReads one pet by id.\n\nReturns its outputs: pet, status."
    assert functions["read-pets"]["parameters"] == {
        "type": "object",
        "properties": {"petId": {"type": "string", "description": "The pet's id."}},
        "required": ["petId"],
    }
    # myKey is passed to show-pet's credential `key`; make pet's `secret` is one of show-pet, its dependency
    assert list(functions["remove-pet"]["parameters"]["properties"]) == ["petId"]
    assert list(functions["make_pet"]["parameters"]["properties"]) == ["name"]
    assert functions["make_pet"]["description"].endswith(
        "Runs the Arazzo workflow 'make pet'.\n\nReturns no outputs."
    )
    assert (
        result.err
        == "note: workflow 'make pet' of " + str(doc) + " is the tool 'make_pet' (not a valid tool name)\n"
    )


def test_mcp_definitions_carry_hints_from_every_reachable_operation(capsys, doc):
    data = {d["name"]: d for d in tools(capsys, doc, "--format", "mcp").json}
    assert data["read-pets"]["annotations"] == {"readOnlyHint": True, "openWorldHint": True}
    assert data["show-pet"]["annotations"] == {"readOnlyHint": True, "openWorldHint": True}
    hints = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True}
    assert data["remove-pet"]["annotations"] == hints  # DELETE, beside the GET of the nested workflow
    assert data["make_pet"]["annotations"]["destructiveHint"] is False  # a POST
    assert data["make_pet"]["title"] == "make pet"
    keys = {"name", "title", "description", "inputSchema", "outputSchema", "annotations"}
    assert set(data["show-pet"]) == keys


def test_anthropic_definitions(capsys, doc):
    data = tools(capsys, doc, "--format", "anthropic", "--workflow", "show-pet").json
    assert [set(d) for d in data] == [{"name", "description", "input_schema"}]
    assert data[0]["input_schema"]["required"] == ["petId"]


def test_an_input_given_here_is_fixed_and_leaves_the_schema(capsys, doc, monkeypatch):
    data = tools(capsys, doc, "--input", "petId=7", "-w", "show-pet", "-w", "remove-pet").json
    assert [d["function"]["parameters"] for d in data] == [{"type": "object", "properties": {}}] * 2
    monkeypatch.setenv("ARAZZO_INPUT_NAME", "Rex")
    data = tools(capsys, doc, "-w", "make pet").json
    assert data[0]["function"]["parameters"]["properties"] == {}


def test_two_documents_with_one_workflow_id_get_distinct_names(capsys, doc, write):
    other = write(arazzo_doc(copy.deepcopy(SHOW)), openapi=OPENAPI, name="other.arazzo.yaml")
    result = tools(capsys, doc, other, "--workflow", "show-pet")
    assert [d["function"]["name"] for d in result.json] == ["show-pet", "show-pet_2"]
    assert result.err == (
        f"note: workflow 'show-pet' of {other} is the tool 'show-pet_2' ('show-pet' is the tool of workflow "
        f"'show-pet' of {doc})\n"
    )


def test_usage_errors(capsys, doc):
    result = tools(capsys, doc, "--workflow", "nope", code=2)
    assert "no workflow 'nope' in" in result.err and result.out == ""
    result = tools(capsys, doc, "--input", "petid=1", code=2)
    assert "unknown input 'petid': did you mean 'petId'?" in result.err


def test_the_options_of_arazzo_mcp_are_accepted_checked_and_said_to_be_ignored(capsys, doc, tmp_path):
    """`arazzo tools` takes the command line of `arazzo mcp`/`agent`: what changes no definition is
    checked, then named in one note; `--input-file` gives an input, which leaves the schema."""
    plain = tools(capsys, doc, "-w", "show-pet")
    upload = tmp_path / "pet.txt"
    upload.write_text("7")
    flags = ["--server", "pets=http://127.0.0.1:9/v1", "--auth", "api_key=k-123", "--timeout", "5"]
    given = tools(capsys, doc, "-w", "show-pet", *flags, "--max-attempts", "2", "--deadline", "60")
    assert given.json == plain.json
    assert given.err == (
        "note: --server, --timeout, --auth, --deadline, --max-attempts: ignored by arazzo tools, which "
        "changes no tool definition by them (they apply where the tools run: arazzo mcp, arazzo agent)\n"
    )
    assert "k-123" not in given.out + given.err
    fixed = tools(capsys, doc, "-w", "show-pet", "--input-file", f"petId={upload}").json
    assert "required" not in fixed[0]["function"]["parameters"]  # petId was the only required one
    assert fixed[0]["function"]["parameters"]["properties"] == {
        k: v for k, v in plain.json[0]["function"]["parameters"]["properties"].items() if k != "petId"
    }


def test_the_ignored_options_are_still_checked(capsys, doc):
    result = tools(capsys, doc, "--server", "petz=http://127.0.0.1:9", code=2)
    assert "--server petz=...: no source description named 'petz' (sources: pets)" in result.err
    result = tools(capsys, doc, "--auth", "api_kye=k-123", code=2)
    assert "--auth api_kye=...: no security scheme named so" in result.err
    assert "k-123" not in result.err
    assert result.out == ""
