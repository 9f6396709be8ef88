"""What the features ask of a document's data: the workflow and step a pointer is in, a step's
operation, where a node is written. Read from the analysis's loaded data (never raises on a document
of the wrong shape: every lookup that finds something else returns None)."""

from __future__ import annotations

from typing import Any

from ..loader.pointer import format_pointer, parse_pointer


def tokens(pointer: str) -> list[str]:
    try:
        return list(parse_pointer(pointer))
    except Exception:
        return []


def workflows(data: Any) -> list[dict[str, Any]]:
    found = data.get("workflows") if isinstance(data, dict) else None
    return [w for w in found if isinstance(w, dict)] if isinstance(found, list) else []


def steps(workflow: Any) -> list[dict[str, Any]]:
    found = workflow.get("steps") if isinstance(workflow, dict) else None
    return [s for s in found if isinstance(s, dict)] if isinstance(found, list) else []


def enclosing(pointer: str) -> tuple[int | None, int | None]:
    """(workflow index, step index) of the node at `pointer`; None where it is in none."""
    parts = tokens(pointer)
    workflow = int(parts[1]) if len(parts) > 1 and parts[0] == "workflows" and parts[1].isdigit() else None
    step = None
    if workflow is not None and len(parts) > 3 and parts[2] == "steps" and parts[3].isdigit():
        step = int(parts[3])
    return workflow, step


def workflow_index_at_line(analysis: Any, line: int) -> int | None:
    """The workflow whose item starts last at or before 1-based `line` (a pointer-less position: a line
    being typed)."""
    best = None
    for index, _ in enumerate(workflows(analysis.data)):
        start, _ = analysis.loaded.positions.locate(f"/workflows/{index}")
        if start <= line:
            best = index
    return best


def step_ids(workflow: Any) -> list[str]:
    return [s["stepId"] for s in steps(workflow) if isinstance(s.get("stepId"), str)]


def step_by_id(workflow: Any, step_id: str) -> int | None:
    for index, step in enumerate(workflow.get("steps") or []):
        if isinstance(step, dict) and step.get("stepId") == step_id:
            return index
    return None


def workflow_by_id(data: Any, workflow_id: str) -> int | None:
    for index, workflow in enumerate(data.get("workflows") or []):
        if isinstance(workflow, dict) and workflow.get("workflowId") == workflow_id:
            return index
    return None


def source_names(data: Any) -> list[str]:
    found = data.get("sourceDescriptions") if isinstance(data, dict) else None
    names = [s.get("name") for s in found if isinstance(s, dict)] if isinstance(found, list) else []
    return [n for n in names if isinstance(n, str)]


def step_model(analysis: Any, workflow: int, step: int) -> Any:
    """The model's Step object at those indices, or None."""
    document = analysis.document
    try:
        return document.workflows[workflow].steps[step]
    except (AttributeError, IndexError, TypeError):
        return None


def step_operation(analysis: Any, workflow: int | None, step: int | None) -> Any:
    """The `sources.Operation` the step calls, or None (no such step, a workflow step, not found)."""
    if workflow is None or step is None or analysis.workspace is None:
        return None
    model = step_model(analysis, workflow, step)
    if model is None or (model.operation_id is None and model.operation_path is None):
        return None
    if not _all_read(analysis.workspace):
        return None  # resolving would fetch a remote source the validation did not (`--offline`)
    try:
        target = analysis.workspace.resolve_operation(model)
    except Exception:  # no such operation, a source that cannot be read: the diagnostics say so
        return None
    return getattr(target, "operation", None)


def operations(analysis: Any) -> list[tuple[str, Any]]:
    """(source name, Operation) of every operation of the OpenAPI sources that load."""
    found: list[tuple[str, Any]] = []
    workspace = analysis.workspace
    if workspace is None:
        return found
    for name in workspace.openapi_sources():
        try:
            description = workspace.source_without_fetching(name)  # a feature never fetches
        except Exception:
            continue
        found.extend((name, op) for op in getattr(description, "operations", ()))
    return found


def _all_read(workspace: Any) -> bool:
    """Whether every OpenAPI source can be had without a fetch (read already, or a local file)."""
    try:
        return all(
            workspace.source_without_fetching(name) is not None for name in workspace.openapi_sources()
        )
    except Exception:  # a source that cannot be read: resolving says so, without a fetch
        return True


def resolve_local(data: Any, value: Any, depth: int = 0) -> Any:
    """`value` with a `$ref` to this document (`#/components/...`) followed, a few levels deep."""
    while isinstance(value, dict) and isinstance(value.get("$ref"), str) and depth < 8:
        ref = value["$ref"]
        if not ref.startswith("#"):
            return value
        node: Any = data
        for token in tokens(ref[1:]):
            node = node.get(token) if isinstance(node, dict) else None
        value, depth = node, depth + 1
    return value


def pointer(*parts: Any) -> str:
    return format_pointer([str(p) for p in parts])


def enclosing_at_line(analysis: Any, line: int) -> tuple[int | None, int | None]:
    """(workflow, step) indices of the items starting last at or before 1-based `line`: where a line
    being typed is, from the positions of the last text that parsed."""
    locate = analysis.loaded.positions.locate
    workflow = step = None
    for index, item in enumerate(workflows(analysis.data)):
        if locate(pointer("workflows", index))[0] > line:
            break
        workflow, step = index, None
        for number, _ in enumerate(steps(item)):
            if locate(pointer("workflows", index, "steps", number))[0] > line:
                break
            step = number
    if workflow is not None and step is not None:
        found = steps(workflows(analysis.data)[workflow])
        after = None
        for key in (
            "outputs",
            "successActions",
            "failureActions",
        ):  # the workflow's own members after its steps
            if key in workflows(analysis.data)[workflow]:
                start = locate(pointer("workflows", workflow, key))[0]
                after = start if after is None else min(after, start)
        if (
            after is not None
            and after <= line
            and after > locate(pointer("workflows", workflow, "steps", len(found) - 1))[0]
        ):
            step = None
    return workflow, step


def inputs_schema(data: Any, workflow: Any) -> dict[str, Any]:
    """The workflow's inputs schema, a `$ref` to the components followed; {} when it has none."""
    schema = resolve_local(data, workflow.get("inputs") if isinstance(workflow, dict) else None)
    return schema if isinstance(schema, dict) else {}
