"""A local server started from an OpenAPI description, as Redocly's mock server serves one: every
operation of the description answers its lowest 2xx response with that response's example (the first
of `examples`, else `example`, else one built from the schema's examples), every request recorded.

    with OpenAPIMock("openapi.yaml") as server:
        ... run a workflow with --server museum-api=server.url ...
        assert [(r.method, r.path) for r in server.requests] == [...]

A request that sends a JSON object gets that object's members over the example's (a stateless
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
            if isinstance(example, dict) and request.body:
                sent = json.loads(request.body)
                body = {**example, **sent} if isinstance(sent, dict) else example
            return (status, body, {"Content-Type": media}) if media else (status, body)

        return answer

    def _example(self, response: dict[str, Any]) -> tuple[str | None, Any]:
        for media, content in (response.get("content") or {}).items():
            content = self._deref(content)
            examples = content.get("examples") or {}
            if examples:
                return media, self._deref(next(iter(examples.values()))).get("value")
            if "example" in content:
                return media, content["example"]
            return media, self._from_schema(self._deref(content.get("schema") or {}))
        return None, None

    def _from_schema(self, schema: dict[str, Any], depth: int = 0) -> Any:
        schema = self._deref(schema)
        if "example" in schema or depth > 8:
            return schema.get("example")
        for key in ("allOf",):
            if key in schema:
                merged: dict[str, Any] = {}
                for part in schema[key]:
                    value = self._from_schema(part, depth + 1)
                    if isinstance(value, dict):
                        merged.update(value)
                return merged
        if schema.get("type") == "array" or "items" in schema:
            return [self._from_schema(schema.get("items") or {}, depth + 1)]
        if "properties" in schema:
            return {k: self._from_schema(v, depth + 1) for k, v in schema["properties"].items()}
        return None

    def _deref(self, node: Any) -> Any:
        """A local `$ref` followed (the mock reads only its own description)."""
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
            target: Any = self.description
            for token in node["$ref"].removeprefix("#/").split("/"):
                target = target[token.replace("~1", "/").replace("~0", "~")]
            node, seen = target, seen + 1
        return node


def _lowest_success(responses: dict[str, Any]) -> tuple[int, Any]:
    codes = sorted(code for code in responses if re.fullmatch(r"2\d\d", str(code)))
    if not codes:
        return 200, None
    return int(codes[0]), responses[codes[0]]
