"""Helpers for the OpenAPI-faithfulness tests (`test_http_serialization.py`, `test_http_security.py`, ...):
a one-source document around a generated OpenAPI description, run in-process against a real server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

import arazzo_runner
from arazzo_runner.executor.options import RunOptions

OK = {"200": {"description": "ok"}}


def openapi(paths: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "API", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
        **extra,
    }


def op(operation_id: str, **fields: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "responses": fields.pop("responses", OK), **fields}


def step(step_id: str, operation_id: str, *parameters: dict, **fields: Any) -> dict[str, Any]:
    found = {"stepId": step_id, "operationId": operation_id, **fields}
    if parameters:
        found["parameters"] = list(parameters)
    return found


def param(name: str, in_: str, value: Any) -> dict[str, Any]:
    return {"name": name, "in": in_, "value": value}


def write_flow(
    folder: Path, api: dict, steps: list[dict], *, version: str = "1.1.0", inputs: dict | None = None
) -> Path:
    (folder / "api.openapi.yaml").write_text(yaml.safe_dump(api, sort_keys=False))
    workflow: dict[str, Any] = {"workflowId": "flow", "steps": steps}
    if inputs is not None:
        workflow["inputs"] = inputs
    doc = {
        "arazzo": version,
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}],
        "workflows": [workflow],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def run_flow(
    folder: Path,
    server: Any,
    api: dict,
    steps: list[dict],
    *,
    version: str = "1.1.0",
    inputs: dict | None = None,
    schema: dict | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Run the one workflow (servers of `api` replaced by `server` unless `servers` is given) and return
    its result as JSON data."""
    path = write_flow(folder, api, steps, version=version, inputs=schema)
    options.setdefault("servers", {"api": server.url} if server is not None else {})
    options.setdefault("environ", {})
    result = arazzo_runner.run(path, None, inputs or {}, options=RunOptions(**options))
    [workflow] = result.to_dict()["workflows"]
    return workflow


def echo(server: Any) -> None:
    """Answer every request with 200 and an empty object (the recorded request is what tests read)."""
    for method in ("GET", "POST", "PUT", "DELETE", "PATCH"):
        server.route(method, "/.*")(lambda request: (200, {}))
