"""One attempt of a `workflowId` step: run the child workflow, then judge the step on its outcome."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...expressions import Context, Missing
from ...result import StepResult
from ..inputs import InputsError
from ..values import strip_missing
from .base import Attempt, Host, StepKind
from .children import child_context, judge_child

if TYPE_CHECKING:
    from ...workspace import Workspace
    from ...workspace.plan import CompiledStep
    from ..context import WorkflowState


class WorkflowStep(StepKind):
    """A step that runs another workflow (`workflowId`), of this document or of an `arazzo` source."""

    name = "workflow"

    async def attempt(
        self,
        host: Host,
        workspace: Workspace,
        cstep: CompiledStep,
        base: Context,
        step_result: StepResult,
        depth: int,
        state: WorkflowState,
    ) -> Attempt:
        return await attempt_workflow(host, workspace, cstep, base, step_result, depth)


async def attempt_workflow(
    host: Host,
    workspace: Workspace,
    cstep: CompiledStep,
    base: Context,
    step_result: StepResult,
    depth: int,
) -> Attempt:
    target = workspace.resolve_workflow(cstep.step.workflow_id or "", (*cstep.step.at, "workflowId"))
    inputs: dict[str, Any] = {}
    for param in cstep.params:
        value, problems = strip_missing(param.value.evaluate(base), f"input '{param.name}'")
        if isinstance(value, Missing):
            step_result.warnings.append(f"input '{param.name}' not passed: {value.reason}")
            continue
        step_result.warnings.extend(problems)
        inputs[param.name] = value
    if cstep.for_each is not None:  # once per item (`loop.py`)
        from .loop import attempt_loop

        return await attempt_loop(host, workspace, cstep, base, step_result, depth, inputs)
    try:
        child, child_ctx = await host.run_workflow(target.workspace, target.workflow, inputs, depth + 1)
    except InputsError as exc:
        return Attempt(False, base, str(exc))
    step_result.add_workflow(child)  # each attempt's run is kept, in order
    last = child_ctx or Context()
    ctx = child_context(base, child.outputs, last)
    failure, failed = judge_child(cstep, child, ctx)
    return Attempt(failure is None, ctx, failure, failed, status_code=last.status_code)
