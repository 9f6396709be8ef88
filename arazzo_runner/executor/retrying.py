"""Retries of a step: which onFailure action applies within the run's bounds, and the step or workflow
a retry action names, run before the next attempt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..result import StepResult
from ..workspace.plan import CompiledAction, CompiledStep
from .actions import find_action, retry_delay
from .bounds import RetryBudget, step_budget
from .context import WorkflowState
from .inputs import InputsError
from .steps import Attempt, Host
from .values import action_inputs

if TYPE_CHECKING:
    from ..model import Workflow
    from ..workspace import Workspace


def failure_action(
    host: Host,
    cstep: CompiledStep,
    attempt: Attempt,
    retries: dict[str, int],
    budget: RetryBudget,
    step_result: StepResult,
) -> tuple[CompiledAction | None, float, str | None]:
    """The onFailure action to take, the wait before a retry, and why a retry was refused (a run
    bound: then retries count as exhausted and later failure actions are considered)."""
    action = find_action(cstep.on_failure, attempt.ctx, retries)
    if action is None or action.type != "retry":
        return action, 0.0, None
    delay, note = retry_delay(action, attempt.retry_after, host.options.max_retry_delay)
    refusal = budget.refusal(step_result.attempts, delay)
    if refusal is None:
        if note and note not in step_result.warnings:
            step_result.warnings.append(note)
        return action, delay, None
    step_result.warnings.append(refusal)
    return find_action(cstep.on_failure, attempt.ctx, retries, retry_allowed=False), 0.0, refusal


async def before_retry(
    host: Host,
    workspace: Workspace,
    workflow: Workflow,
    cstep: CompiledStep,
    action: CompiledAction,
    attempt: Attempt,
    state: WorkflowState,
    depth: int,
    step_result: StepResult,
    trail: list[StepResult],
) -> str | None:
    """A retry naming a step or workflow runs it first ("context transfers back upon completion").

    The step's execution is recorded in `trail` (the workflow's steps, in the order they finish);
    the workflow's run is nested under the retried step.
    """
    if action.step_id:
        plan = workspace.compiled(workflow)
        index = plan.index.get(action.step_id)
        if index is None:
            return f"retry action '{action.name}' names unknown step '{action.step_id}'"
        if host.steps_run >= step_budget(host):
            return f"stopped after {step_budget(host)} steps (max-steps)"
        host.steps_run += 1
        helper, _, _ = await host.execute_step(workspace, workflow, plan.steps[index], state, depth, trail)
        trail.append(helper)
        return None if helper.passed else f"step '{action.step_id}' run before the retry failed"
    if action.workflow_id:
        target = workspace.resolve_workflow(action.workflow_id, action.at)
        try:
            child, _ = await host.run_workflow(
                target.workspace, target.workflow, action_inputs(action, attempt.ctx), depth + 1
            )
        except InputsError as exc:
            return str(exc)
        step_result.add_workflow(child)  # between the attempts' own runs, when the step runs a workflow
        return None if child.passed else f"workflow '{action.workflow_id}' run before the retry failed"
    return None
