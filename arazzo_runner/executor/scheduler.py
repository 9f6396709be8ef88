"""The scheduler of one workflow execution: which step runs next (in the run order, `goto`, `end`),
within the run's deadline and step budget, with non-blocking steps and their joins.

The run order is the plan's (`workspace/order.py`): the array order wherever every step comes after the
steps it depends on (`dependsOn`, and the steps it reads), else the stable topological order. "Next" is
the next step in that order, a `goto` goes on from its target in it; a step whose dependency failed or
was skipped by a goto fails unsent, naming it (`stepping.py`).

A step whose kind says it is non-blocking (an AsyncAPI receive) starts and the steps after it go on
while it waits. It is joined (awaited, its result recorded and its actions followed) before the first
later step that depends on it (`CompiledStep.needs`: it lists it in `dependsOn` or reads it), and at the
end of the workflow: the workflow is done when its work is. A
failed join is the workflow's failure with the step's cause; a workflow that fails or is sent
elsewhere while steps are still waiting cancels them, and each is recorded failed saying so.

Before any step runs, every broker the workflow's AsyncAPI steps use is connected and the receive steps
whose channel is known are subscribed (`StepKind.ready`): a reply to a message an earlier step sends is
never missed, and a broker that is down fails the workflow before anything with side effects is sent.

Steps run through `stepping.execute_step`; the kinds of step target (`steps/`) know nothing of order.
"""

from __future__ import annotations

import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ..result import FAILED, StepResult
from ..workspace.plan import CompiledStep
from .actions import Decision
from .bounds import no_more_steps
from .concurrent import interrupted_step, run_stretch, stretch_end
from .context import WorkflowState, base_context
from .events import StepFinished
from .inputs import InputsError
from .interrupts import is_interrupt
from .steps import Host, kind_for
from .values import action_inputs

if TYPE_CHECKING:
    from ..expressions import Context
    from ..model import Workflow
    from ..result import WorkflowResult
    from ..workspace import Workspace

T = TypeVar("T")


class _Pending:
    def __init__(self, cstep: CompiledStep, task: Any) -> None:  # task: the runtime's (`spawn`)
        self.cstep, self.task = cstep, task


def run_steps(
    host: Host,
    workspace: Workspace,
    workflow: Workflow,
    state: WorkflowState,
    result: WorkflowResult,
    depth: int,
) -> Coroutine[Any, Any, Context | None]:
    """Run the workflow's steps from the first; returns the last step's context (for the outputs). The
    scheduler's coroutine itself: no frame awaiting it, which every resume of a step would go through."""
    plan = workspace.compiled(workflow)
    return _Scheduler(host, workspace, workflow, state, result, depth, plan).run()


class _Scheduler:
    def __init__(
        self,
        host: Host,
        workspace: Workspace,
        workflow: Workflow,
        state: Any,
        result: Any,
        depth: int,
        plan: Any,
    ) -> None:
        self.host, self.workspace, self.workflow, self.state = host, workspace, workflow, state
        self.result, self.depth, self.plan = result, depth, plan
        self.pending: dict[str, _Pending] = {}
        self.last_ctx: Context | None = None
        self.current: CompiledStep | None = None  # the step in flight (awaited in line), if any
        self.current_since = 0.0  # when it started (time.perf_counter)
        self.stopped_by: str | None = None  # why waiting steps were cancelled
        # receive steps to subscribe before anything runs (none: an all-HTTP workflow pays nothing)
        self.messaging = plan.messaging
        self.to_arm = [c for c in self.messaging if c.step.action == "receive"] if self.messaging else []

    async def run(self) -> Context | None:
        """The steps, then the steps still waiting cancelled (each recorded failed, saying why); an
        interrupt records the step in flight as far as it went."""
        try:
            host, plan, result = self.host, self.plan, self.result
            if self.messaging:  # (the receive steps to arm are among them)
                failure = await self._ready()
                if failure is not None:  # the step that could never succeed, failed in its place
                    cstep, (message, warnings) = failure
                    why = f"{message} (checked before the workflow's first step; nothing was sent)"
                    failed = StepResult(cstep.step_id, status=FAILED, error=why, warnings=list(warnings))
                    failed.kind = cstep.step.action
                    result.steps.append(failed)
                    result.fail(cstep.step_id, why)
                    return None
            order = plan.order
            parallel = host.options.parallel > 1 and not host.runtime.blocking
            index: int | None = 0  # a position in the run order
            while index is not None:
                if index >= len(order):
                    index = await self._drain()
                    continue
                cstep = order[index]
                if self.pending:
                    joined = await self._join_needed(cstep)
                    if joined is not _GO_ON:
                        index = joined
                        continue
                if parallel and cstep.beside:
                    end = stretch_end(self, index)
                    if end - index > 1:  # steps side by side (`concurrent.py`)
                        await self._arm()
                        index = await run_stretch(self, index, end)
                        continue
                why = no_more_steps(host)  # none starts once the deadline has passed or the budget is spent
                if why is not None:
                    self.stop(cstep, why)
                    return self.last_ctx
                if self.to_arm:  # (an all-HTTP workflow: no coroutine made for nothing)
                    await self._arm()
                host.steps_run += 1
                kind = kind_for(cstep.step.target_kind)
                if kind.non_blocking(cstep):
                    if cstep.step_id in self.pending:  # a goto back to a step still waiting: join it
                        index = await self._join(cstep.step_id, index)
                        continue
                    task = host.runtime.spawn(self.execute(cstep))
                    self.pending[cstep.step_id] = _Pending(cstep, task)
                    index += 1
                    continue
                self.current, self.current_since = cstep, time.perf_counter()
                step_result, decision, self.last_ctx = await self.execute(cstep)
                result.steps.append(step_result)
                self.current = None
                if decision.kind == "next":  # (`_follow`'s first case, without its coroutine: most steps)
                    index += 1
                else:
                    index = await self._follow(cstep, step_result, decision, index)
            return self.last_ctx
        except BaseException as exc:
            if is_interrupt(exc):
                self.interrupted()
            raise
        finally:
            await self.cancel_pending()

    def execute(
        self, cstep: CompiledStep, *, announce: bool = True
    ) -> Coroutine[Any, Any, tuple[StepResult, Decision, Context | None]]:
        """One step execution's coroutine (the host's itself, no frame awaiting it: every resume of the
        step's awaits goes through each); with `--parallel`, an operation step holds one of the run's
        request slots while it runs. `announce`: deliver its `StepFinished` (a stretch delivers them in
        order)."""
        host = self.host
        execution = host.execute_step(
            self.workspace, self.workflow, cstep, self.state, self.depth, self.result.steps, announce
        )
        if host.slots is None or cstep.step.target_kind != "operation":
            return execution
        return _holding(host.slots, execution)

    async def _ready(self) -> tuple[CompiledStep, tuple[str, list[str]]] | None:
        """Every broker the workflow's AsyncAPI steps use connected, and the receive steps whose address
        is known subscribed, before its first step: the first step that could never succeed, and why."""
        for cstep in self.plan.steps:
            kind = kind_for(cstep.step.target_kind)
            problem = await kind.ready(self.host, self.workspace, cstep, self.state)
            if problem is not None:
                return cstep, problem
        for cstep in list(self.to_arm):
            if cstep.step_id in self.state.armed:
                self.to_arm.remove(cstep)
        return None

    async def _arm(self) -> None:
        if not self.to_arm:
            return
        for cstep in list(self.to_arm):
            await kind_for("asyncapi").prepare(self.host, self.workspace, cstep, self.state)
            if cstep.step_id in self.state.armed:
                self.to_arm.remove(cstep)

    async def _follow(
        self, cstep: CompiledStep, step_result: StepResult, decision: Decision, index: int
    ) -> int | None:
        """The position (in the run order) of the next step after `cstep` ended with `decision`; None: the
        workflow is over."""
        result = self.result
        if decision.kind == "next":
            return index + 1
        if decision.kind == "step":
            return self.plan.position[decision.target or ""]
        if decision.kind == "end":
            if not step_result.passed:
                self.stop(cstep, f"{step_result.error} (ended by onFailure '{decision.action.name}')")
                return None
            return await self._drain()
        if decision.kind == "workflow":
            self.stopped_by = (
                f"the workflow went on in '{decision.action.workflow_id}' (goto from '{cstep.step_id}')"
            )
            await self.cancel_pending()
            await _goto_workflow(
                self.host, self.workspace, cstep, decision, self.state, result, self.last_ctx, self.depth
            )
            return None
        self.stop(cstep, decision.message or step_result.error or "step failed")
        return None

    def interrupted(self) -> None:
        """The run is being interrupted: the step in flight is recorded failed, with the run of a
        workflow it (or the `goto` of the step before) had started, and the workflow fails there."""
        child = self.host.take_interrupted_run()
        partial = self.host.take_interrupted_step()
        if self.current is not None:
            took = (time.perf_counter() - self.current_since) * 1000
            step = interrupted_step(self.current.step_id, partial, took, child)
            self.result.steps.append(step)
            self.result.fail(self.current.step_id, f"interrupted while step '{self.current.step_id}' ran")
            self.host.emit(StepFinished, self.workflow.workflow_id, step, self.depth)  # its trace line
        else:
            if child is not None and self.result.steps:
                self.result.steps[-1].add_workflow(child)
            self.result.fail(None, "interrupted")
        self.stopped_by = "the run was interrupted"

    def stop(self, cstep: CompiledStep, message: str) -> None:
        self.result.fail(cstep.step_id, message)
        self.stopped_by = f"the workflow failed at step '{cstep.step_id}'"

    async def _join_needed(self, cstep: CompiledStep) -> Any:
        """Join the waiting steps `cstep` depends on, explicitly or by reading them; `_GO_ON` when the
        step may run now, else where the joined step's actions sent the workflow (an index or None)."""
        needed = [d for d in cstep.needs if d in self.pending]
        for step_id in needed:
            target = await self._join(step_id, None)
            if target is not _GO_ON:
                return target
        return _GO_ON

    async def _join(self, step_id: str, index: int | None) -> Any:
        pending = self.pending.pop(step_id)
        step_result, decision, ctx = await _outcome(pending)
        self.result.steps.append(step_result)
        if decision.kind == "next":
            return _GO_ON if index is None else index
        self.last_ctx = ctx or self.last_ctx
        position = self.plan.position[pending.cstep.step_id]
        return await self._follow(pending.cstep, step_result, decision, position)

    async def _drain(self) -> int | None:
        """The end of the steps: join what still waits, in the order it started."""
        while self.pending:
            step_id = next(iter(self.pending))
            target = await self._join(step_id, None)
            if target is not _GO_ON:
                return target
        return None

    async def cancel_pending(self) -> None:
        """Steps still waiting when the workflow stops: cancelled, each recorded failed with why."""
        if not self.pending:
            return
        import asyncio  # only non-blocking steps wait beside others, and only on asyncio

        why = self.stopped_by or "the workflow ended"
        while self.pending:
            _, pending = self.pending.popitem()
            pending.task.cancel()
            try:
                step_result, _, _ = await pending.task
            except (asyncio.CancelledError, Exception):
                step_result = StepResult(pending.cstep.step_id, status=FAILED)
            step_result.status = FAILED
            step_result.error = f"cancelled before it completed: {why}"
            self.result.steps.append(step_result)


_GO_ON: Any = object()


async def _holding(slots: Any, execution: Coroutine[Any, Any, T]) -> T:
    """`execution` run while it holds one of `slots` (made before it waits for one: closed unawaited if
    it is cancelled while waiting, as a coroutine never started)."""
    try:
        async with slots:
            return await execution
    finally:
        execution.close()  # (nothing when it ran: a finished coroutine closes as a no-op)


async def _outcome(pending: _Pending) -> tuple[StepResult, Decision, Context | None]:
    try:
        return await pending.task
    except Exception as exc:
        step_result = StepResult(pending.cstep.step_id, status=FAILED, error=f"{type(exc).__name__}: {exc}")
        return step_result, Decision("fail", message=step_result.error), None


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
