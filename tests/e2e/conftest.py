"""End-to-end fixtures: a real local HTTP server and documents written to a temporary folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.servers.scripted import ScriptedServer

OBJECT = {"type": "object"}
# The statuses the tests' servers answer beyond the one each operation documents (202 while polling, 5XX
# to retry, 4XX to fail): documented, so the contract checks (on by default) have nothing to say
ANY = {"default": {"description": "any other status"}}
PETS_OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/unused"}],
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                    {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
                ],
                "responses": {"200": {"description": "ok"}, **ANY},
            },
            "post": {
                "operationId": "createPet",
                "requestBody": {"required": True, "content": {"application/json": {"schema": OBJECT}}},
                "responses": {"201": {"description": "created"}, **ANY},
            },
        },
        "/pets/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {
                "operationId": "getPet",
                "parameters": [{"name": "X-Trace", "in": "header", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}, **ANY},
            },
            "delete": {"operationId": "deletePet", "responses": {"204": {"description": "gone"}, **ANY}},
        },
        "/flaky": {"get": {"operationId": "flaky", "responses": {"200": {"description": "ok"}, **ANY}}},
        "/login": {
            "post": {
                "operationId": "login",
                "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": OBJECT}}},
                "responses": {"200": {"description": "ok"}, **ANY},
            }
        },
        "/session": {
            "get": {
                "operationId": "session",
                "parameters": [{"name": "sid", "in": "cookie", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}, **ANY},
            }
        },
    },
}


@pytest.fixture
def server():
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def other_server():
    """A second real local server: another origin than `server`."""
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def write(tmp_path: Path):
    """write(arazzo_dict_or_text, openapi=PETS_OPENAPI, name=...) -> path of the Arazzo file."""

    def _write(arazzo: Any, openapi: dict | None = PETS_OPENAPI, name: str = "flow.arazzo.yaml") -> Path:
        if openapi is not None:
            (tmp_path / "pets.openapi.yaml").write_text(yaml.safe_dump(openapi, sort_keys=False))
        path = tmp_path / name
        text = arazzo if isinstance(arazzo, str) else yaml.safe_dump(arazzo, sort_keys=False)
        path.write_text(text)
        return path

    return _write


def arazzo_doc(
    *workflows: dict, sources: list | None = None, components: dict | None = None, version: str = "1.0.1"
) -> dict:
    doc: dict[str, Any] = {
        "arazzo": version,
        "info": {"title": "test", "version": "1"},
        "sourceDescriptions": sources or [{"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"}],
        "workflows": list(workflows),
    }
    if components:
        doc["components"] = components
    return doc


@pytest.fixture(scope="session")
def reference_server():
    """The bundled chat-completions reference server, shared by the tests of a session."""
    from arazzo_runner.reference import ReferenceServer

    with ReferenceServer() as running:
        yield running


@pytest.fixture(scope="session")
def compat_server():
    """The independent OpenAI-compatible server (tests/servers/openai_compat.py), shared likewise."""
    from tests.servers.openai_compat import OpenAICompatServer

    with OpenAICompatServer() as running:
        yield running


@pytest.fixture(scope="session")
def rabbitmq_broker():
    """RabbitMQ from the system's package (tests/install-system-packages.sh), one node for the session (it
    boots in seconds): `guest` and `alice`/`s3cret` (tests/e2e/system_brokers.py)."""
    from tests.e2e.system_brokers import rabbitmq

    with rabbitmq({"alice": "s3cret"}) as running:
        yield running


@pytest.fixture
def validations(monkeypatch):
    """The inputs validated against a schema, one entry per validation (`executor.inputs.schema_problems`):
    the rows tests count them."""
    from arazzo_runner.executor import inputs as inputs_module

    seen: list[dict] = []
    real = inputs_module.schema_problems

    def counted(schema_at, value, document):
        seen.append(dict(value))
        return real(schema_at, value, document)

    monkeypatch.setattr(inputs_module, "schema_problems", counted)
    return seen
