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


def test_an_operation_reaching_only_plain_pointers_is_not_resolved_for_this_check(tmp_path):
    """The check proves on the description as written that no reference can be refused (`all_plain`),
    without resolving the operation's responses into trees: on Stripe's description that resolution
    and its walk were a third of a second `arazzo validate`."""
    schemas = {"tree": {"$ref": "#/components/schemas/Node"}}
    workspace = _workspace(tmp_path, schemas, ["tree"])
    assert [f.rule for f in validate_workspace(workspace).findings] == []
    operation = workspace.source("api").operation("tree")
    assert "responses" not in vars(operation)  # the cached resolution was never made


ODD_SCHEMAS = {
    "anchor": {"$ref": "#thing"},
    "elsewhere": {"$ref": "other.yaml#/components/schemas/X"},
    "encoded": {"$ref": "#/components/schemas/No%20de"},
    "nowhere": {"$ref": "#/components/schemas/Missing"},
    "scoped": {"$id": "https://example.test/s", "type": "object", "properties": {"n": {"$ref": "#/a"}}},
    "dynamic": {"$dynamicRef": "#meta"},
    "mapping": {
        "oneOf": [{"$ref": "#/components/schemas/Node"}],
        "discriminator": {"propertyName": "k", "mapping": {"n": "#/components/schemas/Gone"}},
    },
    "literal": {"type": "object", "example": {"$ref": "#/not/a/schema"}, "x-note": {"$ref": "#zz"}},
    "null_target": {"$ref": "#/components/schemas/Nothing"},
}


def test_the_shortcut_reports_what_the_full_check_reports(tmp_path, monkeypatch):
    """Differential: for references of every kind the shortcut must leave to the full check (anchors,
    other files, encoded pointers, pointers to nowhere, `$id`, `$dynamicRef`, discriminator mappings)
    and for what it may skip (literal values, extensions, a pointer to a null), the findings are those
    of the full check alone."""
    import arazzo_runner.validate.sources as checks

    steps = list(ODD_SCHEMAS)

    def findings() -> list[tuple[str, str, str]]:
        (tmp_path / "other.yaml").write_text("components: {schemas: {X: {type: string}}}\n")
        workspace = _workspace(tmp_path, ODD_SCHEMAS, steps)
        data = yaml.safe_load((tmp_path / "api.yaml").read_text())
        data["components"]["schemas"]["Nothing"] = None
        (tmp_path / "api.yaml").write_text(yaml.safe_dump(data))
        workspace = arazzo_runner.load(tmp_path / "flow.arazzo.yaml")
        return sorted((f.rule, f.path, f.message) for f in validate_workspace(workspace).findings)

    shortcut = findings()
    monkeypatch.setattr(checks, "all_plain", lambda *args: False)
    assert shortcut == findings()
    # every odd kind but "elsewhere" (step 1, which resolves) is found
    assert {path.split("/")[4] for _, path, _ in shortcut} >= {"0", "2", "3", "4", "5", "6"}
