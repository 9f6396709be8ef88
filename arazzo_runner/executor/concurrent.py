"""Steps side by side (`--parallel N`): a stretch of the run order whose steps may run concurrently.

A *stretch* starts at the scheduler's position and takes the consecutive steps of the run order that may
run beside others (`CompiledStep.beside`, `workspace/order.py`: operation or workflow steps, no success
action, plain retries only, nothing read of other workflows; a workflow step only when the workflow it
calls, and those that one calls, read nothing of other workflows either: `runs_beside`) and wait for no
non-blocking step still in flight. Within it a step starts once every step of the stretch it depends
on has finished, the earliest in the order first, while fewer than N requests of the run are in flight
(`Runner.slots`, held by operation steps: a workflow step's child takes its own). Since no step of a
stretch can send the workflow elsewhere, the steps a sequential run would take are the stretch's, and
each reads what it would have read; only when they run differs.

On a failure no new step starts; the steps in flight finish and are recorded; the workflow's error is
the first failure in the run order. The step budget (`--max-steps`) is spent in the run order: a step
starts only if the steps before it that wait for theirs still fit, so a budget stops the steps a
sequential run would not have sent. The steps are recorded in the run order (the sequential run's), each
with its real start and duration, and each step's `StepFinished` is delivered once it and every step
before it in the stretch have finished: a console reads in the order of the document, as soon as it can.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

from ..errors import ArazzoError
from ..result import FAILED, INTERRUPTED_STEP, StepResult
from .bounds import budget_spent, no_more_steps, step_budget
from .events import StepFinished
from .interrupts import is_interrupt

if TYPE_CHECKING:
    from ..workspace.plan import CompiledStep


def stretch_end(scheduler: Any, start: int) -> int:
    """The end (exclusive) of the stretch of the run order from `start`: one step means none."""
    order, pending = scheduler.plan.order, scheduler.pending
    end = start
    while end < len(order) and not any(n in pending for n in order[end].needs):
        if not runs_beside(scheduler.host, scheduler.workspace, order[end]):
            break
        end += 1
    return end


def runs_beside(host: Any, workspace: Any, cstep: CompiledStep) -> bool:
    """`cstep.beside`, and for a workflow step that the workflow it calls is self-contained: none of its
    steps (nor of the workflows they call) reads another workflow's values, waits on another workflow's
    step, sends the run to another workflow, or sends or receives a message; each answer kept per run."""
    if not cstep.beside:
        return False
    if cstep.step.target_kind != "workflow":
        return True
    return _contained(host, workspace, cstep.step.workflow_id or "", (*cstep.step.at, "workflowId"), set())


def _contained(host: Any, workspace: Any, ref: str, at: Any, seen: set[tuple[int, str]]) -> bool:
    try:
        target = workspace.resolve_workflow(ref, at)
    except ArazzoError:
        return False
    key = (id(target.workspace), target.workflow.workflow_id)
    known = host.operation_facts.get(("contained", *key))
    if known is not None:
        return bool(known)
    if key in seen:  # a workflow calling itself: what it reads is checked where it started
        return True
    seen.add(key)
    from ..workspace.order import reads_other_workflows

    plan = target.workspace.compiled(target.workflow)
    found = True
    for child in plan.steps:
        kind = child.step.target_kind
        elsewhere = any(a.workflow_id for a in (*child.on_success, *child.on_failure))
        if kind == "asyncapi" or elsewhere or reads_other_workflows(child):
            found = False
        elif kind == "workflow":
            ref_at = (*child.step.at, "workflowId")
            found = _contained(host, target.workspace, child.step.workflow_id or "", ref_at, seen)
        if not found:
            break
    fact = ("contained", *key)  # (a name: mypy's 3.10 parser refuses a starred subscript, even in parens)
    host.operation_facts[fact] = found
    return found


async def run_stretch(scheduler: Any, start: int, end: int) -> int | None:
    """Run the steps at positions [start, end) of the run order side by side; the position to go on
    from, or None when the workflow stops (a step failed, the deadline passed, the step budget ran out)."""
    stretch = _Stretch(scheduler, start, end)
    try:
        await stretch.run()
    except BaseException as exc:
        await stretch.stop(interrupted=is_interrupt(exc))
        raise
    return stretch.finish()


def interrupted_step(step_id: str, partial: StepResult | None, took: float, child: Any) -> StepResult:
    """The step in flight at an interrupt, failed: as far as it got (`partial`, when its execution left
    it: a loop's items that ran), and the workflow run it was in (`child`)."""
    step = partial if partial is not None and partial.step_id == step_id else StepResult(step_id)
    step.status, step.error, step.duration_ms = FAILED, INTERRUPTED_STEP, took
    if child is not None and all(child is not run for run in step.workflow_runs):
        step.add_workflow(child)
    return step


class _Stretch:
    def __init__(self, scheduler: Any, start: int, end: int) -> None:
        self.scheduler, self.start, self.end = scheduler, start, end
        self.host = scheduler.host
        self.order = scheduler.plan.order
        self.ids = {self.order[i].step_id for i in range(start, end)}
        self.waiting = list(range(start, end))  # positions not started, in order
        self.running: dict[Any, tuple[int, float]] = {}  # task -> (position, when it started)
        self.finished: dict[int, tuple[StepResult, Any, Any]] = {}
        self.partial: dict[int, tuple[StepResult | None, Any]] = {}  # interrupted: as far as each got
        self.done: set[str] = set()
        self.announced = start  # the first position whose StepFinished is not delivered yet
        self.failed = False
        self.stopped: tuple[int, str] | None = None  # the position not started, and why

    async def run(self) -> None:
        runtime, limit = self.host.runtime, max(1, self.host.options.parallel)
        while True:
            if not self.failed and self.stopped is None:
                self._start(limit)
            if not self.running:
                if self.waiting and not self.failed and self.stopped is None:  # never: say so, not skip
                    why = "not sent: the steps before it in the stretch ended without it starting"
                    self.stopped = (self.waiting[0], why)
                return
            for task in await runtime.first_done(list(self.running)):
                position, _ = self.running.pop(task)
                outcome = task.result()  # `execute` records a step's own failure; anything else raises
                self.finished[position] = outcome
                self.done.add(self.order[position].step_id)
                if outcome[1].kind != "next":
                    self.failed = True
            self._announce()

    def _start(self, limit: int) -> None:
        host = self.host
        for ahead, position in enumerate(list(self.waiting)):
            if len(self.running) >= limit:
                return
            cstep = self.order[position]
            if any(n in self.ids and n not in self.done for n in cstep.needs):
                continue  # a later step that needs nothing unfinished may start first
            why = no_more_steps(host)
            if why is not None:
                self.stopped = (self.waiting[0], why)
                return
            if host.steps_run + ahead >= step_budget(host):  # the steps waiting before it come first
                continue
            host.steps_run += 1
            self.waiting.remove(position)
            task = host.runtime.spawn(self._execute(position, cstep))
            self.running[task] = (position, time.perf_counter())
        if self.waiting and not self.running and host.steps_run >= step_budget(host):
            self.stopped = (self.waiting[0], budget_spent(host))

    async def _execute(self, position: int, cstep: CompiledStep) -> Any:
        try:
            return await self.scheduler.execute(cstep, announce=False)
        except BaseException as exc:  # interrupted: keep what this one did, before another overwrites it
            if is_interrupt(exc):
                host = self.host
                self.partial[position] = (host.take_interrupted_step(), host.take_interrupted_run())
            raise

    def _announce(self) -> None:
        """Deliver `StepFinished` of the finished steps no unfinished step comes before."""
        while self.announced in self.finished:
            self._deliver(self.finished[self.announced][0])
            self.announced += 1

    def _deliver(self, step_result: StepResult) -> None:
        scheduler = self.scheduler
        scheduler.host.emit(StepFinished, scheduler.workflow.workflow_id, step_result, scheduler.depth)

    def finish(self) -> int | None:
        """Record the steps in the run order; the workflow stops at the first of them that failed, or
        at the step the deadline or the budget kept from starting, whichever comes first in the order."""
        scheduler = self.scheduler
        for position in sorted(self.finished):
            step_result, _, ctx = self.finished[position]
            if position >= self.announced:  # after a step that never started (the workflow failed)
                self._deliver(step_result)
            scheduler.result.steps.append(step_result)
            scheduler.last_ctx = ctx or scheduler.last_ctx
        failures = [p for p in sorted(self.finished) if self.finished[p][1].kind != "next"]
        stopped = self.stopped
        if failures and (stopped is None or failures[0] < stopped[0]):
            step_result, decision, _ = self.finished[failures[0]]
            message = decision.message or step_result.error or "step failed"
            scheduler.stop(self.order[failures[0]], message)
            return None
        if stopped is not None:
            scheduler.stop(self.order[stopped[0]], stopped[1])
            return None
        return self.end

    async def stop(self, *, interrupted: bool) -> None:
        """The run is cancelled or interrupted while steps of the stretch are in flight: each is cancelled,
        and recorded failed (an interrupt says so) as far as it got, among those that finished, in the
        run order; every one the console has not been told of is told."""
        for task in self.running:
            task.cancel()
        for task in list(self.running):
            with contextlib.suppress(BaseException):  # its own cancellation, or the interrupt again
                await task
        why = INTERRUPTED_STEP if interrupted else "cancelled before it completed: the run was cancelled"
        recorded: dict[int, StepResult] = {p: outcome[0] for p, outcome in self.finished.items()}
        for position, since in self.running.values():
            took = (time.perf_counter() - since) * 1000
            partial, child = self.partial.get(position, (None, None))
            step = interrupted_step(self.order[position].step_id, partial, took, child)
            step.error = why
            recorded[position] = step
        for position in sorted(recorded):
            self.scheduler.result.steps.append(recorded[position])
            if position >= self.announced:
                self._deliver(recorded[position])
        if self.running and interrupted:  # (a cancelled run: whoever cancelled it says why)
            first = self.order[min(p for p, _ in self.running.values())]
            self.scheduler.result.fail(first.step_id, f"interrupted while step '{first.step_id}' ran")
            self.scheduler.stopped_by = "the run was interrupted"
        self.finished.clear()
        self.running.clear()


async def run_each(host: Any, count: int, job: Any, failed: Any, results: dict[int, Any]) -> None:
    """`await job(i)` for i in 0..count-1 (an `x-forEach` loop's items) into `results`: in order, one at
    a time, or under `--parallel N` up to N at once (each started in item order). Once a result
    `failed(result)` holds, no new job starts; those in flight finish. Cancelled or interrupted, the jobs
    in flight are cancelled and awaited (each keeps what it did: `loop.py`) before it goes on up."""
    parallel = host.options.parallel
    if parallel <= 1 or host.runtime.blocking or count <= 1:
        for index in range(count):
            results[index] = await job(index)
            if failed(results[index]):
                return
        return
    runtime = host.runtime
    running: dict[Any, int] = {}
    started, stopped = 0, False
    try:
        while True:
            while not stopped and started < count and len(running) < parallel:
                running[runtime.spawn(job(started))] = started
                started += 1
            if not running:
                return
            for task in await runtime.first_done(list(running)):
                index = running.pop(task)
                results[index] = task.result()
                stopped = stopped or failed(results[index])
    finally:
        for task in running:
            task.cancel()
        for task in running:
            with contextlib.suppress(BaseException):  # its cancellation, or the interrupt again
                await task
