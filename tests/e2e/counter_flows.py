"""The counter API and its workflow documents, shared by the `--journal` and `--temporal` tests: three
`POST /{one,two,three}/{id}` operations a `ScriptedServer` answers, and steps that call them with the
row's `id`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

API = {
    "openapi": "3.1.0",
    "info": {"title": "counter", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/unused"}],
    "paths": {
        f"/{name}/{{id}}": {
            "post": {
                "operationId": name,
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "ok"}},
            }
        }
        for name in ("one", "two", "three")
    },
}


def step(step_id: str, operation: str, **fields: Any) -> dict[str, Any]:
    """A step calling `operation` with the workflow's `id` input as its path parameter."""
    params = [{"name": "id", "in": "path", "value": "$inputs.id"}]
    return {"stepId": step_id, "operationId": operation, "parameters": params, **fields}


def write_flow(tmp_path: Path, steps: list[dict[str, Any]], outputs: dict[str, str], title: str) -> Path:
    """`api.yaml` and `flow.arazzo.yaml` (workflow `flow`, input `id`) in `tmp_path`; the document's path."""
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(API))
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": title, "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "api.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "flow", "inputs": schema, "steps": steps, "outputs": outputs}],
    }
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path
