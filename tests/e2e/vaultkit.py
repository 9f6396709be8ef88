"""A pet vault API (OpenAPI 3.0, response schemas with `$ref`s, a cycle, `nullable`, a boolean
`exclusiveMinimum`, a `pattern`) and an Arazzo document whose workflows are tools with hidden inputs,
for the tests of hidden input names and MCP `outputSchema`.

- `find_pet` (GET /pets/{petId}): visible inputs `petId`, `note`; hidden: the credential `vaultKey`
  (sent in `Authorization`) and `realm` (fixed where the tools run, `--input realm=acme`), both named
  by the schema's `dependentRequired` too. Its outputs read the response schema. Pets: 1 passes, 8 has
  a null name, 13 belongs to another realm (a criterion reading `$inputs.realm` fails), 7 has a string
  id (the API outside its description), 404 does not exist.
- `pet_report`: runs `find_pet` as a workflow step, passing its credential `reportSecret` as
  `vaultKey`; given no value, the nested run refuses its inputs naming `vaultKey`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

VAULT_KEY = "vk-2c7e9a41d3b8"  # the credential: never in anything a model or a client sees
HIDDEN_NAMES = ("vaultKey", "realm", "reportSecret")

OPENAPI: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Pet vault", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/unused"}],
    "paths": {
        "/pets/{petId}": {
            "get": {
                "operationId": "getPet",
                "parameters": [
                    {"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}},
                    {"name": "tenant", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {"$ref": "#/components/responses/PetFound"},
                    "404": {"description": "no such pet"},
                },
            }
        }
    },
    "components": {
        "responses": {
            "PetFound": {
                "description": "the pet",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
            }
        },
        "schemas": {
            "Pet": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "integer", "minimum": 0, "exclusiveMinimum": True},
                    "name": {"type": "string", "nullable": True},
                    "tenant": {"type": "string"},
                    "code": {"type": "string", "pattern": "^[A-Z]+$"},
                    "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
                    "parent": {"$ref": "#/components/schemas/Pet"},
                },
            },
            "Tag": {"type": "object", "properties": {"label": {"type": "string"}}},
        },
    },
}

PET = [{"condition": "$statusCode == 200"}, {"condition": "$response.body#/tenant == $inputs.realm"}]

ARAZZO: dict[str, Any] = {
    "arazzo": "1.0.1",
    "info": {"title": "Pet vault tools", "version": "1"},
    "sourceDescriptions": [{"name": "vault", "url": "./vault.openapi.yaml", "type": "openapi"}],
    "workflows": [
        {
            "workflowId": "find_pet",
            "summary": "Find a pet in the vault.",
            "inputs": {
                "type": "object",
                "required": ["petId", "vaultKey", "realm"],
                "properties": {
                    "petId": {"type": "integer", "description": "The pet's id."},
                    "note": {"type": "string"},
                    "vaultKey": {"type": "string"},
                    "realm": {"type": "string", "minLength": 3},
                },
                "dependentRequired": {"petId": ["vaultKey", "realm"], "vaultKey": ["petId"]},
            },
            "steps": [
                {
                    "stepId": "getPet",
                    "operationId": "getPet",
                    "parameters": [
                        {"name": "petId", "in": "path", "value": "$inputs.petId"},
                        {"name": "tenant", "in": "query", "value": "$inputs.realm"},
                        {"name": "Authorization", "in": "header", "value": "Bearer {$inputs.vaultKey}"},
                    ],
                    "successCriteria": PET,
                    "outputs": {
                        "id": "$response.body#/id",
                        "name": "$response.body#/name",
                        "pet": "$response.body",
                        "firstTag": "$response.body#/tags/0/label",
                        "status": "$statusCode",
                        "code": "$response.body#/code",
                    },
                }
            ],
            "outputs": {
                "id": "$steps.getPet.outputs.id",
                "name": "$steps.getPet.outputs.name",
                "pet": "$steps.getPet.outputs.pet",
                "firstTag": "$steps.getPet.outputs.firstTag",
                "status": "$steps.getPet.outputs.status",
                "code": "$steps.getPet.outputs.code",
                "note": "$inputs.note",
            },
        },
        {
            "workflowId": "pet_report",
            "summary": "Report on a pet.",
            "inputs": {
                "type": "object",
                "required": ["petId"],
                "properties": {"petId": {"type": "integer"}, "reportSecret": {"type": "string"}},
            },
            "steps": [
                {
                    "stepId": "lookup",
                    "workflowId": "find_pet",
                    "parameters": [
                        {"name": "petId", "value": "$inputs.petId"},
                        {"name": "vaultKey", "value": "$inputs.reportSecret"},
                        {"name": "realm", "value": "acme"},
                    ],
                    "outputs": {"petName": "$outputs.name"},
                }
            ],
            "outputs": {"name": "$steps.lookup.outputs.petName"},
        },
    ],
}


def write_vault(folder: Path) -> Path:
    (folder / "vault.openapi.yaml").write_text(yaml.safe_dump(OPENAPI, sort_keys=False))
    path = folder / "vault.arazzo.yaml"
    path.write_text(yaml.safe_dump(ARAZZO, sort_keys=False))
    return path


def serve_vault(server: Any) -> None:
    pets = {
        "1": {"id": 1, "name": "Rex", "tenant": "acme", "code": "ABC", "tags": [{"label": "good"}]},
        "7": {"id": "seven", "name": "Odd", "tenant": "acme"},
        "8": {"id": 8, "name": None, "tenant": "acme"},
        "13": {"id": 13, "name": "Elsewhere", "tenant": "other"},
    }

    @server.route("GET", "/pets/{petId}")
    def pet(request: Any) -> tuple:
        found = pets.get(request.params["petId"])
        return (200, found) if found else (404, {"error": "no such pet"})


def vault_args(path: Path, server: Any) -> list[str]:
    return [
        str(path),
        "--server",
        f"vault={server.url}",
        "--input",
        f"vaultKey={VAULT_KEY}",
        "--input",
        "realm=acme",
    ]


def assert_unspoken(text: str) -> None:
    """No hidden input's name, and no credential, in `text`."""
    for name in (*HIDDEN_NAMES, VAULT_KEY):
        assert name not in text, name
