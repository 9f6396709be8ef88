"""Schema references left in operations' resolved schemas (`validate/left_refs.py`): pointers into the
description are checked without building the `referencing` registry (which crawls the whole
description), and the walk is shared by the operations without losing any operation's findings."""

from __future__ import annotations

import yaml

import arazzo_runner
from arazzo_runner.validate import validate_workspace

NODE = {
    "type": "object",
    "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}},
}
SHARED = {
    "type": "object",
    "properties": {"node": {"$ref": "#/components/schemas/Node"}, "odd": {"$dynamicRef": "#nowhere"}},
}


def _operation(op_id: str, schema: dict) -> dict:
    content = {"application/json": {"schema": schema}}
    return {"get": {"operationId": op_id, "responses": {"200": {"description": "ok", "content": content}}}}


def _workspace(tmp_path, schemas: dict, steps: list[str]) -> arazzo_runner.Workspace:
    paths = {f"/{name}": _operation(name, schema) for name, schema in schemas.items()}
    description = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}
    description["components"] = {"schemas": {"Node": NODE, "Shared": SHARED}}
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(description))
    flow = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "w", "steps": [{"stepId": s, "operationId": s} for s in steps]}],
    }
    (tmp_path / "flow.arazzo.yaml").write_text(yaml.safe_dump(flow))
    return arazzo_runner.load(tmp_path / "flow.arazzo.yaml")


def test_pointers_that_resolve_build_no_registry_and_each_operation_keeps_its_findings(tmp_path):
    shared = {"$ref": "#/components/schemas/Shared"}
    schemas = {
        "tree": {"$ref": "#/components/schemas/Node"},
        "a": shared,
        "b": {"type": "array", "items": shared},
    }
    workspace = _workspace(tmp_path, schemas, ["tree"])
    report = validate_workspace(workspace)
    assert [f.rule for f in report.findings] == []
    description = workspace.source("api")
    assert "schema_registry" not in vars(description)  # the recursive `$ref` resolved by a pointer walk

    workspace = _workspace(tmp_path, schemas, ["tree", "a", "b"])
    report = validate_workspace(workspace)
    found = [(f.rule, f.path) for f in report.findings]
    assert found == [
        ("schema-reference", "/workflows/0/steps/1/operationId"),
        ("schema-reference", "/workflows/0/steps/2/operationId"),
    ]
    assert all("cannot resolve $dynamicRef '#nowhere'" in f.message for f in report.findings)
