"""The names a load test's statistics use, one row per step and one per workflow:

    <workflowId>.<stepId>     every executed step (its HTTP method as the request type)
    workflow <workflowId>     every run of a workflow a user chose (request type WORKFLOW)

A step of a workflow that another calls (a `workflowId` step, a `dependsOn`, a `goto`) is named by its own
workflow, so one step has one row whoever ran it.
"""

from __future__ import annotations

WORKFLOW_TYPE = "WORKFLOW"  # the request type of a workflow row, and of a step that runs a workflow
STEP_TYPE = "STEP"  # the request type of a step that sent no request (it failed before sending)
WORKFLOW_PREFIX = "workflow "


def step_name(workflow_id: str, step_id: str) -> str:
    return f"{workflow_id}.{step_id}"


def workflow_name(workflow_id: str) -> str:
    return f"{WORKFLOW_PREFIX}{workflow_id}"
