"""A local server started from an OpenAPI description, as Redocly's mock server serves one: every
operation of the description answers its lowest 2xx response with that response's example (the first
of `examples`, else `example`, else one built from the schema: its examples, defaults and enums, else a
value of its type and format, as Prism's static mode does), every request recorded.

    with OpenAPIMock("openapi.yaml") as server:
        ... run a workflow with --server museum-api=server.url ...
        assert [(r.method, r.path) for r in server.requests] == [...]

A request that sends a JSON object (as JSON) gets that object's members over the example's (a stateless
echo: an update answers with what was updated, as a real server would). A request to a path or method
the description does not have is answered 404; one whose operation requires a body and got none, 400.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from tests.servers.scripted import Recorded, ScriptedServer

_TYPED = {"integer": 1, "number": 1.5, "boolean": True}
_FORMATS = {
    "date": "2026-09-16",
    "date-time": "2026-09-16T09:00:00Z",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
}
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


class OpenAPIMock(ScriptedServer):
    def __init__(self, description: str | Path) -> None:
        super().__init__()
        self.description = yaml.safe_load(Path(description).read_text(encoding="utf-8"))
        for path, item in (self.description.get("paths") or {}).items():
            for method in _METHODS:
                if isinstance(item, dict) and method in item:
                    self.route(method.upper(), path)(self._handler(self._deref(item[method])))

    def _handler(self, operation: dict[str, Any]) -> Any:
        status, response = _lowest_success(operation.get("responses") or {})
        body_required = self._deref(operation.get("requestBody") or {}).get("required", False)
        media, example = self._example(self._deref(response or {}))

        def answer(request: Recorded) -> tuple:
            if body_required and not request.body:
                return 400, {"title": "a request body is required"}
            if status == 204 or example is None:
                return status, b""
            body = example
            if (
                isinstance(example, dict)
                and request.body
                and "json" in request.headers.get("content-type", "")
            ):
                try:
                    sent = json.loads(request.body)
                except ValueError:
                    sent = None
                body = {**example, **sent} if isinstance(sent, dict) else example
            if media and "json" in media and isinstance(body, str):
                body = json.dumps(body).encode()  # a JSON string, not text
            return (status, body, {"Content-Type": media}) if media else (status, body)

        return answer

    def _example(self, response: dict[str, Any]) -> tuple[str | None, Any]:
        for media, content in (response.get("content") or {}).items():
            content = self._deref(content)
            examples = content.get("examples") or {}
            if examples:
                first = self._deref(next(iter(examples.values())))
                return media, first.get("value", first.get("dataValue"))  # dataValue: OpenAPI 3.2
            if "example" in content:
                return media, content["example"]
            return media, self._from_schema(self._deref(content.get("schema") or {}))
        return None, None

    def _from_schema(self, schema: Any, depth: int = 0) -> Any:
        schema = self._deref(schema)
        if not isinstance(schema, dict) or depth > 8:
            return None
        for key in ("example", "default", "const"):
            if key in schema:
                return schema[key]
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            return schema["examples"][0]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        if "allOf" in schema:
            parts = [self._from_schema(part, depth + 1) for part in schema["allOf"]]
            if not all(isinstance(part, dict) for part in parts):  # a scalar made of its parts
                return next((part for part in parts if part is not None and not isinstance(part, dict)), None)
            merged: dict[str, Any] = {}
            for part in parts:
                merged.update(part)
            return merged
        for key in ("oneOf", "anyOf"):
            if schema.get(key):
                return self._from_schema(schema[key][0], depth + 1)
        kind = schema.get("type")
        kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
        if kind == "array" or "items" in schema:
            return [self._from_schema(schema.get("items") or {}, depth + 1)]
        if kind == "object" or "properties" in schema:
            return {k: self._from_schema(v, depth + 1) for k, v in (schema.get("properties") or {}).items()}
        return _TYPED.get(kind) if kind != "string" else _FORMATS.get(schema.get("format"), "string")

    def _deref(self, node: Any) -> Any:
        """A local `$ref` followed (the mock reads only its own description); a broken one is `{}`."""
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
            target: Any = self.description
            for token in node["$ref"].removeprefix("#/").split("/"):
                name = token.replace("~1", "/").replace("~0", "~")
                target = target.get(name, {}) if isinstance(target, dict) else {}
            node, seen = target, seen + 1
        return node


def _lowest_success(responses: dict[str, Any]) -> tuple[int, Any]:
    codes = sorted(code for code in responses if re.fullmatch(r"2\d\d", str(code)))
    if not codes:
        return 200, None
    return int(codes[0]), responses[codes[0]]
