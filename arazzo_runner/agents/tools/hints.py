"""What a workflow may do, for the hints a protocol carries (MCP tool annotations): read-only when every
operation it can reach is GET or HEAD, destructive when one is DELETE.

Reached: the operations of its steps, and of every workflow it runs (workflow steps, the workflows of
`goto` actions and `dependsOn`, in this document or an arazzo source), each followed once. An AsyncAPI
step (send or receive) is neither read-only nor destructive.
"""

from __future__ import annotations

from typing import Any

from ...records import Record

READ_ONLY = frozenset({"GET", "HEAD"})


class Hints(Record, frozen=True):
    read_only: bool
    destructive: bool
    methods: tuple[str, ...]  # what was reached, sorted (`SEND`/`RECEIVE` for AsyncAPI steps)


def workflow_hints(workspace: Any, workflow: Any) -> Hints:
    methods: set[str] = set()
    _reach(workspace, workflow, set(), methods)
    return Hints(methods <= READ_ONLY, "DELETE" in methods, tuple(sorted(methods)))


def _reach(workspace: Any, workflow: Any, seen: set[tuple[int, str]], methods: set[str]) -> None:
    key = (id(workspace), workflow.workflow_id)
    if key in seen:
        return
    seen.add(key)
    for ref in workflow.depends_on:
        target = workspace.resolve_workflow(ref, (*workflow.at, "dependsOn"))
        _reach(target.workspace, target.workflow, seen, methods)
    for cstep in workspace.compiled(workflow).steps:
        step = cstep.step
        if step.target_kind == "operation":
            methods.add(workspace.resolve_operation(step).operation.method.upper())
        elif step.target_kind == "workflow":
            target = workspace.resolve_workflow(step.workflow_id or "", (*step.at, "workflowId"))
            _reach(target.workspace, target.workflow, seen, methods)
        else:
            methods.add((step.action or "send").upper())
        for action in (*cstep.on_success, *cstep.on_failure):
            if action.workflow_id:
                target = workspace.resolve_workflow(action.workflow_id, action.at)
                _reach(target.workspace, target.workflow, seen, methods)
