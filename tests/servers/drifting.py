"""A real local server that drifts from its OpenAPI description in each way the contract checks find
(`arazzo_runner/http/contract.py`), one operation per drift, with the description (3.0 or 3.1) beside it:

- `undocumented`: answers 418, the operation documents 200 only;
- `wrongType`: answers text/html, the operation documents application/json;
- `nested`: a body whose `/order/lines/1/qty` is a string where the schema wants an integer;
- `nullable`: `note` null (allowed by OpenAPI 3.0 `nullable: true`, not by 3.1, where the keyword means
  nothing) and `count` null (allowed by neither);
- `user`: a required `readOnly` `id` missing (required in responses) and a `writeOnly` `password` sent
  (never in a response; its absence is no violation though it is required);
- `pet`: `petType: dog` with Cat's members: it fits `oneOf` (Cat) but the discriminator names Dog;
- `bird`: `petType: bird`, a value the discriminator maps to no schema;
- `limited`: no `X-Rate-Limit` header, which the 200 response documents as required;
- `fine`: answers exactly as documented.
"""

from __future__ import annotations

from typing import Any

from tests.servers.scripted import ScriptedServer

JSON = "application/json"


def _json(schema: Any, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": "ok", "content": {JSON: {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return {"200": response}


def _get(operation_id: str, responses: dict[str, Any]) -> dict[str, Any]:
    return {"get": {"operationId": operation_id, "responses": responses}}


def description(version: str = "3.0.3") -> dict[str, Any]:
    """The description the server drifts from (`version`: 3.0.x or 3.1.x)."""
    line = {"type": "object", "required": ["qty"], "properties": {"qty": {"type": "integer"}}}
    order = {
        "type": "object",
        "properties": {
            "order": {"type": "object", "properties": {"lines": {"type": "array", "items": line}}}
        },
    }
    nullable = {
        "type": "object",
        "properties": {"note": {"type": "string", "nullable": True}, "count": {"type": "integer"}},
    }
    pet = {
        "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
        "discriminator": {
            "propertyName": "petType",
            "mapping": {"cat": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"},
        },
    }
    limit = {"X-Rate-Limit": {"required": True, "schema": {"type": "integer"}}}
    return {
        "openapi": version,
        "info": {"title": "Drifting", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/undocumented": _get("undocumented", {"200": {"description": "ok"}}),
            "/wrong-type": _get("wrongType", _json({"type": "object"})),
            "/nested": _get("nested", _json(order)),
            "/nullable": _get("nullable", _json(nullable)),
            "/user": _get("user", _json({"$ref": "#/components/schemas/User"})),
            "/pet": _get("pet", _json(pet)),
            "/bird": _get("bird", _json(pet)),
            "/limited": _get("limited", _json({"type": "object"}, limit)),
            "/fine": _get("fine", _json(order, limit)),
        },
        "components": {
            "schemas": {
                "User": {
                    "type": "object",
                    "required": ["id", "name", "password"],
                    "properties": {
                        "id": {"type": "integer", "readOnly": True},
                        "name": {"type": "string"},
                        "password": {"type": "string", "writeOnly": True},
                    },
                },
                "Cat": {
                    "type": "object",
                    "required": ["petType", "meow"],
                    "properties": {"petType": {"type": "string"}, "meow": {"type": "boolean"}},
                },
                "Dog": {
                    "type": "object",
                    "required": ["petType", "bark"],
                    "properties": {"petType": {"type": "string"}, "bark": {"type": "boolean"}},
                },
            }
        },
    }


def drift(server: ScriptedServer) -> ScriptedServer:
    """Script `server` to answer every operation of `description()` with its drift."""
    lines = {"order": {"lines": [{"qty": 1}, {"qty": "two"}]}}
    replies: dict[str, Any] = {
        "/undocumented": (418, ""),
        "/wrong-type": (200, "<p>hello</p>", {"Content-Type": "text/html"}),
        "/nested": (200, lines),
        "/nullable": (200, {"note": None, "count": None}),
        "/user": (200, {"name": "ann", "password": "hunter2-hunter2"}),
        "/pet": (200, {"petType": "dog", "meow": True}),
        "/bird": (200, {"petType": "bird", "wings": 2}),
        "/limited": (200, {}),
        "/fine": (200, {"order": {"lines": [{"qty": 1}]}}, {"X-Rate-Limit": "10"}),
    }
    for path, reply in replies.items():
        server.route("GET", path)(lambda request, reply=reply: reply)
    return server
