"""One attempt of a `workflowId` step: run the child workflow, then judge the step on its outcome."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...expressions import Context, Missing
from ...result import StepResult
from ..context import with_exchange
from ..inputs import InputsError
from ..values import strip_missing
from .base import Attempt, Host, StepKind, check_criteria

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
    try:
        child, child_ctx = await host.run_workflow(target.workspace, target.workflow, inputs, depth + 1)
    except InputsError as exc:
        return Attempt(False, base, str(exc))
    step_result.add_workflow(child)  # each attempt's run is kept, in order
    # `$statusCode`/`$response` of a workflow step: the child's last exchange; `$outputs`: its outputs.
    last = child_ctx or Context()
    ctx = with_exchange(
        base,
        outputs=child.outputs,
        status_code=last.status_code,
        response=last.response,
        request=last.request,
        url=last.url,
        method=last.method,
    )
    if not child.passed:
        message = (child.error or {}).get("message", "failed")
        prefix = f"workflow '{child.workflow_id}' failed: "
        if not message.startswith(prefix):  # a workflow calling itself is named once, not per level
            message = prefix + message
        return Attempt(False, ctx, message, status_code=last.status_code)
    failed = check_criteria(cstep.criteria, ctx)
    if failed:
        return Attempt(
            False,
            ctx,
            "successCriteria failed: " + "; ".join(failed),
            failed,
            status_code=last.status_code,
        )
    return Attempt(True, ctx, status_code=last.status_code)
