"""`arazzo list`: workflows with their inputs (type, default, required) and outputs."""

from __future__ import annotations

from typing import Any

from ..spelling import json_spelling
from ..workspace.inputs import resolve_schema


def describe_workflows(workspace: Any) -> dict[str, Any]:
    document = workspace.document
    workflows = []
    for workflow in document.workflows:
        workflows.append(
            {
                "workflowId": workflow.workflow_id,
                "summary": workflow.summary,
                "steps": [s.step_id for s in workflow.steps],
                "inputs": input_entries(workflow, document.raw),
                "outputs": list(workflow.outputs),
            }
        )
    return {
        "file": workspace.file,
        "arazzo": document.version,
        "title": document.info.get("title"),
        "workflows": workflows,
    }


def input_entries(workflow: Any, raw: dict) -> list[dict[str, Any]]:
    """The declared inputs of a workflow: name, type, required, default and description when given."""
    schema = resolve_schema(workflow.inputs or {}, raw)
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    required = set(schema.get("required", []) if isinstance(schema, dict) else [])
    inputs = []
    for name, sub in (props if isinstance(props, dict) else {}).items():
        sub = resolve_schema(sub, raw)
        sub = sub if isinstance(sub, dict) else {}
        entry = {"name": name, "type": sub.get("type"), "required": name in required}
        if "default" in sub:
            entry["default"] = sub["default"]
        if sub.get("description"):
            entry["description"] = sub["description"]
        inputs.append(entry)
    return inputs


def type_text(kind: Any) -> str:
    """A schema `type` for display: `string`, `null/string`, or `any`."""
    return kind if isinstance(kind, str) else "/".join(kind or ["any"])


def render_workflows(data: dict[str, Any]) -> str:
    lines = [f"{data['file']} (Arazzo {data['arazzo']}): {data.get('title') or ''}".rstrip()]
    for workflow in data["workflows"]:
        lines.append(
            f"\n{workflow['workflowId']}" + (f" - {workflow['summary']}" if workflow.get("summary") else "")
        )
        lines.append(f"  steps: {', '.join(workflow['steps'])}")
        if workflow["inputs"]:
            lines.append("  inputs:")
            for item in workflow["inputs"]:
                kind = type_text(item["type"])
                flags = "required" if item["required"] else "optional"
                default = f", default {json_spelling(item['default'])}" if "default" in item else ""
                lines.append(f"    {item['name']}: {kind} ({flags}{default})")
        if workflow["outputs"]:
            lines.append(f"  outputs: {', '.join(workflow['outputs'])}")
    return "\n".join(lines) + "\n"
