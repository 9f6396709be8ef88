"""A small pet-shop API and an Arazzo document whose workflows are the tools of the agent and MCP tests.

- `pet_details` (GET /pets/{petId}): its credential `token` goes in `Authorization`; the server echoes
  that header back, and the workflow outputs it as `seen` (what a model may see of it: `***`);
- `owner_lookup` (GET /owners?name=): the security scheme `ownerKey` (an apiKey header, given with
  `--auth`) is echoed as the output `echo`;
- `adoption_cancel` (DELETE /adoptions/{id}): the server answers 409, the workflow fails.

The scripted models (the reference server's and the compat server's) call the tools whose name words
are in the prompt: "pet details" and "owner lookup" together make one answer with two tool calls.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import yaml

TOKEN = "tok-3f9a7c1e5b2d"  # the credential input: never in anything a model or a client sees
OWNER_KEY = "ok-8d2e6a4c0f1b"  # the apiKey scheme's credential (--auth ownerKey=...)
API_KEY = "sk-test-5e1d9b3a7c"  # the chat API key (OPENAI_API_KEY)
SECRETS = (TOKEN, OWNER_KEY, API_KEY)
BOTH = "Show the pet details and the owner lookup for Alice"
CANCEL = "Please cancel the adoption"

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Pet shop", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/unused"}],
    "components": {
        "securitySchemes": {"ownerKey": {"type": "apiKey", "in": "header", "name": "X-Owner-Key"}}
    },
    "paths": {
        "/pets/{petId}": {
            "get": {
                "operationId": "getPet",
                "parameters": [
                    {"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "responses": {"200": {"description": "the pet"}},
            }
        },
        "/owners": {
            "get": {
                "operationId": "findOwner",
                "security": [{"ownerKey": []}],
                "parameters": [{"name": "name", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "the owner"}},
            }
        },
        "/adoptions/{adoptionId}": {
            "delete": {
                "operationId": "cancelAdoption",
                "parameters": [
                    {"name": "adoptionId", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "responses": {"204": {"description": "cancelled"}, "409": {"description": "final"}},
            }
        },
    },
}


def _ok(step: str) -> list[dict[str, str]]:
    return (
        [{"condition": "$statusCode == 200"}] if step != "cancel" else [{"condition": "$statusCode == 204"}]
    )


ARAZZO: dict[str, Any] = {
    "arazzo": "1.0.1",
    "info": {"title": "Pet shop tools", "version": "1"},
    "sourceDescriptions": [{"name": "shop", "url": "./shop.openapi.yaml", "type": "openapi"}],
    "workflows": [
        {
            "workflowId": "pet_details",
            "summary": "Look up a pet by its id.",
            "inputs": {
                "type": "object",
                "required": ["petId", "token"],
                "properties": {
                    "petId": {"type": "integer", "description": "The pet's id."},
                    "token": {"type": "string", "description": "The shop's bearer token."},
                },
            },
            "steps": [
                {
                    "stepId": "getPet",
                    "operationId": "getPet",
                    "parameters": [
                        {"name": "petId", "in": "path", "value": "$inputs.petId"},
                        {"name": "Authorization", "in": "header", "value": "Bearer {$inputs.token}"},
                    ],
                    "successCriteria": _ok("getPet"),
                    "outputs": {"name": "$response.body#/name", "seen": "$response.body#/seenAuthorization"},
                }
            ],
            "outputs": {"name": "$steps.getPet.outputs.name", "seen": "$steps.getPet.outputs.seen"},
        },
        {
            "workflowId": "owner_lookup",
            "summary": "Find an owner by name.",
            "inputs": {
                "type": "object",
                "required": ["ownerName"],
                "properties": {"ownerName": {"type": "string", "description": "The owner's name."}},
            },
            "steps": [
                {
                    "stepId": "findOwner",
                    "operationId": "findOwner",
                    "parameters": [{"name": "name", "in": "query", "value": "$inputs.ownerName"}],
                    "successCriteria": _ok("findOwner"),
                    "outputs": {"owner": "$response.body#/owner", "echo": "$response.body#/echo"},
                }
            ],
            "outputs": {"owner": "$steps.findOwner.outputs.owner", "echo": "$steps.findOwner.outputs.echo"},
        },
        {
            "workflowId": "adoption_cancel",
            "summary": "Cancel an adoption.",
            "inputs": {
                "type": "object",
                "required": ["adoptionId"],
                "properties": {"adoptionId": {"type": "integer"}},
            },
            "steps": [
                {
                    "stepId": "cancel",
                    "operationId": "cancelAdoption",
                    "parameters": [{"name": "adoptionId", "in": "path", "value": "$inputs.adoptionId"}],
                    "successCriteria": _ok("cancel"),
                }
            ],
        },
    ],
}


def write_shop(folder: Path) -> Path:
    """The OpenAPI description and the Arazzo document in `folder`; the document's path."""
    (folder / "shop.openapi.yaml").write_text(yaml.safe_dump(OPENAPI, sort_keys=False))
    path = folder / "shop.arazzo.yaml"
    path.write_text(yaml.safe_dump(ARAZZO, sort_keys=False))
    return path


def serve_shop(server: Any, barrier: threading.Barrier | None = None, alone: tuple[str, ...] = ()) -> None:
    """The shop's routes on a ScriptedServer; with `barrier`, the pet and owner requests each wait for
    the other: they pass only when both are in flight at once (but the pets whose ids are in `alone`)."""

    def wait() -> None:
        if barrier is not None:
            barrier.wait()

    @server.route("GET", "/pets/{petId}")
    def pet(request: Any) -> tuple:
        if request.params["petId"] not in alone:
            wait()
        body = {"id": int(request.params["petId"]), "name": "Rex"}
        return 200, {**body, "seenAuthorization": request.headers.get("authorization")}

    @server.route("GET", "/owners")
    def owner(request: Any) -> tuple:
        wait()
        return 200, {"owner": "Alice", "echo": request.headers.get("x-owner-key")}

    @server.route("DELETE", "/adoptions/{adoptionId}")
    def cancel(request: Any) -> tuple:
        return 409, {"error": "adoption 1 is already final"}


def tool_args(path: Path, server: Any) -> list[str]:
    """The command-line options that let the tools run against `server`, credentials included."""
    return [
        str(path),
        "--server",
        f"shop={server.url}",
        "--input",
        f"token={TOKEN}",
        "--auth",
        f"ownerKey={OWNER_KEY}",
    ]


def assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text
