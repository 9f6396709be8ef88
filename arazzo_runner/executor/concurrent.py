"""Steps side by side (`--parallel N`): a stretch of the run order whose steps may run concurrently.

A *stretch* starts at the scheduler's position and takes the consecutive steps of the run order that may
run beside others (`CompiledStep.beside`, `workspace/order.py`: operation or workflow steps, no success
action, plain retries only, nothing read of other workflows) and wait for no non-blocking step still in
flight. Within it a step starts once every step of the stretch it depends on has finished, the earliest
in the order first, while fewer than N requests of the run are in flight (`Runner.slots`, held by
operation steps: a workflow step's child takes its own). Since no step of a stretch can send the
workflow elsewhere, the steps a sequential run would take are the stretch's, and each reads what it
would have read; only when they run differs.

On a failure no new step starts; the steps in flight finish and are recorded; the workflow's error is
the first failure in the run order. The steps are recorded in the run order (the sequential run's), each
with its real start and duration, and each step's `StepFinished` is delivered once it and every step
before it in the stretch have finished: a console reads in the order of the document, as soon as it can.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

from ..result import FAILED, INTERRUPTED_STEP, StepResult
from .bounds import no_more_steps
from .events import StepFinished
from .interrupts import is_interrupt

if TYPE_CHECKING:
    from ..workspace.plan import CompiledStep


def stretch_end(order: list[CompiledStep], start: int, pending: Any) -> int:
    """The end (exclusive) of the stretch of the run order from `start`: one step means none."""
    end = start
    while end < len(order) and order[end].beside and not any(n in pending for n in order[end].needs):
        end += 1
    return end


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


class _Stretch:
    def __init__(self, scheduler: Any, start: int, end: int) -> None:
        self.scheduler, self.start, self.end = scheduler, start, end
        self.host = scheduler.host
        self.order = scheduler.plan.order
        self.ids = {self.order[i].step_id for i in range(start, end)}
        self.waiting = list(range(start, end))  # positions not started, in order
        self.running: dict[Any, tuple[int, float]] = {}  # task -> (position, when it started)
        self.finished: dict[int, tuple[StepResult, Any, Any]] = {}
        self.done: set[str] = set()
        self.announced = start  # the first position whose StepFinished is not delivered yet
        self.failed = False
        self.stopped: tuple[CompiledStep, str] | None = None  # the step not started, and why

    async def run(self) -> None:
        runtime, limit = self.host.runtime, max(1, self.host.options.parallel)
        while True:
            if not self.failed and self.stopped is None:
                self._start(limit)
            if not self.running:
                return
            for task in await runtime.first_done(list(self.running)):
                position, _ = self.running.pop(task)
                outcome = task.result()  # `_execute` records a step's own failure; anything else raises
                self.finished[position] = outcome
                self.done.add(self.order[position].step_id)
                if outcome[1].kind != "next":
                    self.failed = True
            self._announce()

    def _start(self, limit: int) -> None:
        host, scheduler = self.host, self.scheduler
        for position in list(self.waiting):
            if len(self.running) >= limit:
                return
            cstep = self.order[position]
            if any(n in self.ids and n not in self.done for n in cstep.needs):
                continue  # a later step that needs nothing unfinished may start first
            why = no_more_steps(host)
            if why is not None:
                self.stopped = (cstep, why)
                return
            host.steps_run += 1
            self.waiting.remove(position)
            task = host.runtime.spawn(scheduler.execute(cstep, announce=False))
            self.running[task] = (position, time.perf_counter())

    def _announce(self) -> None:
        """Deliver `StepFinished` of the finished steps no unfinished step comes before."""
        while self.announced in self.finished:
            self._deliver(self.announced)
            self.announced += 1

    def _deliver(self, position: int) -> None:
        scheduler = self.scheduler
        step_result = self.finished[position][0]
        scheduler.host.emit(StepFinished, scheduler.workflow.workflow_id, step_result, scheduler.depth)

    def finish(self) -> int | None:
        """Record the steps in the run order; the workflow fails at the first failure in it."""
        scheduler = self.scheduler
        for position in sorted(self.finished):
            if position >= self.announced:  # after a step that never started (the workflow failed)
                self._deliver(position)
            step_result, _, ctx = self.finished[position]
            scheduler.result.steps.append(step_result)
            scheduler.last_ctx = ctx or scheduler.last_ctx
        for position in sorted(self.finished):
            step_result, decision, _ = self.finished[position]
            if decision.kind != "next":
                scheduler.stop(self.order[position], decision.message or step_result.error or "step failed")
                return None
        if self.stopped is not None:
            scheduler.stop(*self.stopped)
            return None
        return self.end

    async def stop(self, *, interrupted: bool) -> None:
        """The run is cancelled or interrupted while steps of the stretch are in flight: each is cancelled
        and recorded failed (an interrupt says so), after those that finished."""
        for position in sorted(self.finished):
            step_result, _, _ = self.finished[position]
            self.scheduler.result.steps.append(step_result)
        self.finished.clear()
        for task, (position, since) in sorted(self.running.items(), key=lambda item: item[1][0]):
            task.cancel()
            with contextlib.suppress(BaseException):  # its own cancellation, or the interrupt again
                await task
            took = (time.perf_counter() - since) * 1000
            why = INTERRUPTED_STEP if interrupted else "cancelled before it completed: the run was cancelled"
            failed = StepResult(self.order[position].step_id, status=FAILED, duration_ms=took, error=why)
            self.scheduler.result.steps.append(failed)
            self.host.emit(StepFinished, self.scheduler.workflow.workflow_id, failed, self.scheduler.depth)
        if self.running and interrupted:  # (a cancelled run: whoever cancelled it says why)
            first = self.order[min(p for p, _ in self.running.values())]
            self.scheduler.result.fail(first.step_id, f"interrupted while step '{first.step_id}' ran")
            self.scheduler.stopped_by = "the run was interrupted"
        self.running.clear()


async def run_each(host: Any, count: int, job: Any, failed: Any) -> dict[int, Any]:
    """`await job(i)` for i in 0..count-1 (an `x-forEach` loop's items): in order, one at a time, or
    under `--parallel N` up to N at once (each started in item order). Once a result `failed(result)`
    holds, no new job starts; those in flight finish. The results by index, of the jobs that ran."""
    results: dict[int, Any] = {}
    parallel = host.options.parallel
    if parallel <= 1 or host.runtime.blocking or count <= 1:
        for index in range(count):
            results[index] = await job(index)
            if failed(results[index]):
                break
        return results
    runtime = host.runtime
    running: dict[Any, int] = {}
    started, stopped = 0, False
    try:
        while True:
            while not stopped and started < count and len(running) < parallel:
                running[runtime.spawn(job(started))] = started
                started += 1
            if not running:
                return results
            for task in await runtime.first_done(list(running)):
                index = running.pop(task)
                results[index] = task.result()
                stopped = stopped or failed(results[index])
    finally:
        for task in running:  # the loop was cancelled or interrupted: its items in flight stop too
            task.cancel()
