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

With `description(xml=True)`, the operations whose bodies are XML or whose headers are given as
`content` (the XML rules: `arazzo_runner/http/contract_xml.py`):

- `xmlOrder`: `<order id="7">` whose second wrapped `<line>`'s `<qty>` is `two`, an integer wanted;
- `xmlBroken`: a body that is not well-formed XML;
- `xmlRoot`: a root element `<invoice>` where the schema's `xml.name` says `order`;
- `jsonHeader`: `X-Page: {"next": "3"}`, a header given as `application/json` content whose `next`
  is an integer, and `X-Trace: not json` under the same media type;
- `xmlFine`: an XML order as documented.
"""

from __future__ import annotations

from typing import Any

from tests.servers.scripted import ScriptedServer

JSON = "application/json"
XML = "application/xml"


def _json(schema: Any, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": "ok", "content": {JSON: {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return {"200": response}


def _get(operation_id: str, responses: dict[str, Any]) -> dict[str, Any]:
    return {"get": {"operationId": operation_id, "responses": responses}}


def description(version: str = "3.0.3", xml: bool = False) -> dict[str, Any]:
    """The description the server drifts from (`version`: 3.0.x or 3.1.x; `xml`: with the XML and
    `content` header operations)."""
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
    found = {
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
    if xml:
        found["paths"].update(_xml_paths())
        found["components"]["schemas"]["XmlOrder"] = _xml_order()
    return found


def _xml_order() -> dict[str, Any]:
    line = {"type": "object", "xml": {"name": "line"}, "properties": {"qty": {"type": "integer"}}}
    return {
        "type": "object",
        "xml": {"name": "order"},
        "required": ["id", "lines"],
        "properties": {
            "id": {"type": "integer", "xml": {"attribute": True}},
            "lines": {"type": "array", "xml": {"wrapped": True}, "items": line},
        },
    }


def _xml_paths() -> dict[str, Any]:
    def xml() -> dict[str, Any]:
        schema = {"$ref": "#/components/schemas/XmlOrder"}
        return {"200": {"description": "ok", "content": {XML: {"schema": schema}}}}

    page = {"type": "object", "required": ["next"], "properties": {"next": {"type": "integer"}}}
    headers = {
        "X-Page": {"content": {JSON: {"schema": page}}},
        "X-Trace": {"content": {JSON: {"schema": {"type": "object"}}}},
    }
    return {
        "/xml-order": _get("xmlOrder", xml()),
        "/xml-broken": _get("xmlBroken", xml()),
        "/xml-root": _get("xmlRoot", xml()),
        "/json-header": _get("jsonHeader", _json({"type": "object"}, headers)),
        "/xml-fine": _get("xmlFine", xml()),
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
        "/xml-order": (200, _order("<qty>1</qty>", "<qty>two</qty>"), {"Content-Type": XML}),
        "/xml-broken": (200, "<order id='7'><lines></order>", {"Content-Type": XML}),
        "/xml-root": (200, "<invoice id='7'><lines/></invoice>", {"Content-Type": XML}),
        "/json-header": (200, {}, {"X-Page": '{"next": "3"}', "X-Trace": "not json"}),
        "/xml-fine": (200, _order("<qty>1</qty>"), {"Content-Type": XML}),
    }
    for path, reply in replies.items():
        server.route("GET", path)(lambda request, reply=reply: reply)
    return server


def _order(*lines: str) -> str:
    body = "".join(f"<line>{line}</line>" for line in lines)
    return f'<?xml version="1.0"?><order id="7"><lines>{body}</lines></order>'
