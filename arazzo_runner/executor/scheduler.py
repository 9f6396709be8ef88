"""The scheduler of one workflow execution: which step runs next (in order, `goto`, `end`), within the
run's deadline and step budget. Steps run through `stepping.execute_step`; the kinds of step target
(`steps/`) are below it and know nothing of the order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import Decision
from .context import WorkflowState, base_context
from .inputs import InputsError
from .plan import CompiledStep
from .steps import Host
from .values import action_inputs

if TYPE_CHECKING:
    from ..expressions import Context
    from ..model import Workflow
    from ..result import WorkflowResult
    from ..workspace import Workspace


async def run_steps(
    host: Host,
    workspace: Workspace,
    workflow: Workflow,
    state: WorkflowState,
    result: WorkflowResult,
    depth: int,
) -> Context | None:
    """Run the workflow's steps from the first; returns the last step's context (for the outputs)."""
    plan = workspace.compiled(workflow)
    index = 0
    last_ctx: Context | None = None
    while index < len(plan.steps):
        cstep = plan.steps[index]
        if host.deadline.expired():  # no step starts once the run's deadline has passed
            result.fail(cstep.step_id, host.deadline.message)
            return last_ctx
        if host.steps_run >= host.options.max_steps:
            result.fail(
                cstep.step_id, f"stopped after {host.options.max_steps} steps (max-steps): a goto loop?"
            )
            return last_ctx
        host.steps_run += 1
        step_result, decision, last_ctx = await host.execute_step(
            workspace, workflow, cstep, state, depth, result.steps
        )
        result.steps.append(step_result)
        if decision.kind == "next":
            index += 1
        elif decision.kind == "step":
            index = plan.index[decision.target or ""]
        elif decision.kind == "end":
            if not step_result.passed:
                result.fail(
                    cstep.step_id, f"{step_result.error} (ended by onFailure '{decision.action.name}')"
                )
            return last_ctx
        elif decision.kind == "workflow":
            await _goto_workflow(host, workspace, cstep, decision, state, result, last_ctx, depth)
            return last_ctx
        else:
            result.fail(cstep.step_id, decision.message or step_result.error or "step failed")
            return last_ctx
    return last_ctx


async def _goto_workflow(
    host: Host,
    workspace: Workspace,
    cstep: CompiledStep,
    decision: Decision,
    state: WorkflowState,
    result: WorkflowResult,
    ctx: Context | None,
    depth: int,
) -> None:
    """A one-way transfer: the target workflow runs and its outcome becomes this workflow's."""
    action = decision.action
    assert action is not None
    target = workspace.resolve_workflow(action.workflow_id or "", action.at)
    inputs = action_inputs(action, ctx or base_context(state, host.workflows))
    try:
        child, _ = await host.run_workflow(target.workspace, target.workflow, inputs, depth + 1)
    except InputsError as exc:
        result.fail(cstep.step_id, str(exc))
        return
    result.steps[-1].add_workflow(child)  # after any the step ran itself (a retry's, its own)
    if not child.passed:
        message = (child.error or {}).get("message", "failed")
        result.fail(
            cstep.step_id, f"workflow '{child.workflow_id}' (goto from '{action.name}') failed: {message}"
        )
