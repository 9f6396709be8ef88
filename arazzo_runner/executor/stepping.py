"""One execution of a step: its attempts (through the step's kind), retries within the run's bounds,
the action it ends with, and what it records (result, outputs) for the steps after it."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from ..errors import ArazzoError
from ..expressions import Missing
from ..result import FAILED, PASSED, NullOutput, StepResult
from ..workspace import Workspace
from ..workspace.order import STEP_REF
from ..workspace.plan import CompiledStep
from .actions import Decision, describe_action, find_action, transfer
from .bounds import RetryBudget, with_cause
from .context import WorkflowState, base_context
from .events import StepFinished, StepRetrying, StepStarted
from .interrupts import is_interrupt
from .retrying import before_retry, failure_action
from .steps import Attempt, Host, kind_for
from .values import Outputs, derived_output, strip_missing

if TYPE_CHECKING:
    from ..expressions import Context
    from ..model import Workflow


async def execute_step(
    host: Host,
    workspace: Workspace,
    workflow: Workflow,
    cstep: CompiledStep,
    state: WorkflowState,
    depth: int,
    trail: list[StepResult],
    announce: bool = True,
) -> tuple[StepResult, Decision, Context | None]:
    """Run one step execution (all its attempts); `trail` receives steps run before a retry.
    `announce`: deliver `StepFinished` at its end (else its caller does). Interrupted, the execution as
    far as it got is left to its scheduler (`host.interrupted_step`: a loop's items that ran). One
    coroutine from the scheduler to the step's kind: each await of the exchange resumes through it."""
    step_result = StepResult(cstep.step_id, started_at=time.time())
    journal = host.journal  # names this execution for the journal (executor/journal/scope.py)
    named = journal.enter_step(cstep.step_id) if journal is not None else None
    try:
        host.emit(StepStarted, workflow.workflow_id, cstep.step_id, depth)
        started = time.perf_counter()
        tracing = host.options.trace
        retries: dict[str, int] = {}
        budget: RetryBudget | None = None  # its retries' allowance: made at its first failure (most pass)
        kind = kind_for(cstep.step.target_kind)
        while True:
            began = time.time() if tracing else 0.0
            base = base_context(state, host.workflows)
            needs = cstep.needs or cstep.needs_elsewhere
            unmet = unmet_needs(host, workspace, cstep, state) if needs else None
            if unmet:
                attempt = Attempt(False, base, unmet)
            else:
                attempt = await kind.attempt(host, workspace, cstep, base, step_result, depth, state)
            step_result.attempts += 1
            record(step_result, attempt, cstep, state)
            if tracing:
                from .tracing import trace_attempt

                trace_attempt(step_result, attempt, cstep, workspace, began)
            if attempt.ok:
                host.completed.add((id(workspace), workflow.workflow_id, cstep.step_id))
                decision = _on_success(cstep, attempt.ctx)
                break
            if host.deadline.expired():  # past the deadline no onFailure action runs, not even a retry
                step_result.error = with_cause(attempt.message, host.deadline.message)
                decision = Decision("fail", message=step_result.error)
                break
            budget = budget or RetryBudget(host.options, host.deadline, started)
            action, delay, refusal = failure_action(host, cstep, attempt, retries, budget, step_result)
            if action is None:
                step_result.error = with_cause(attempt.message, refusal) if refusal else attempt.message
                decision = Decision("fail", message=step_result.error)
                break
            if action.type == "retry":
                retries[action.name] = retries.get(action.name, 0) + 1
                if tracing:
                    from .tracing import trace_retry

                    trace_retry(step_result, action, delay)
                failure = await before_retry(
                    host, workspace, workflow, cstep, action, attempt, state, depth, step_result, trail
                )
                if failure:
                    step_result.error = f"{attempt.message}; {failure}"
                    decision = Decision("fail", message=step_result.error)
                    break
                host.emit(
                    StepRetrying,
                    workflow.workflow_id,
                    cstep.step_id,
                    step_result.attempts + 1,
                    delay,
                    attempt.message or "failed",
                    depth,
                )
                if host.journal is None or not host.journal.replays_next():  # a replayed wait was spent
                    await host.runtime.sleep(delay)
                continue
            decision = transfer(action)
            break
        step_result.duration_ms = (time.perf_counter() - started) * 1000
        if decision.action is not None:
            step_result.action = describe_action(decision.action)
        if announce:
            host.emit(StepFinished, workflow.workflow_id, step_result, depth)
        return step_result, decision, attempt.ctx
    except BaseException as exc:
        if is_interrupt(exc):
            host.interrupted_step = step_result
        raise
    finally:
        if named is not None:
            journal.leave(named)


def _on_success(cstep: CompiledStep, ctx: Context) -> Decision:
    if not cstep.on_success:  # (most steps: no search over no actions)
        return Decision("next")
    action = find_action(cstep.on_success, ctx, {})
    return Decision("next") if action is None else transfer(action)


def record(step_result: StepResult, attempt: Attempt, cstep: CompiledStep, state: WorkflowState) -> None:
    """What an attempt leaves: the step's result, and its outputs for the steps after it."""
    step_result.status = PASSED if attempt.ok else FAILED
    step_result.error = None if attempt.ok else attempt.message
    step_result.failed_criteria = attempt.failed_criteria
    step_result.response = attempt.response
    step_result.status_code = attempt.status_code
    step_result.method, step_result.url = attempt.method, attempt.url
    if attempt.warnings:
        step_result.warnings.extend(w for w in attempt.warnings if w not in step_result.warnings)
    if attempt.token_exchanges:
        step_result.exchanges.extend(attempt.token_exchanges)
    if attempt.exchange is not None:
        step_result.exchanges.append(attempt.exchange)
    if attempt.messages:
        step_result.messages.extend(attempt.messages)
    outputs = Outputs()
    if attempt.items is not None:  # an x-forEach step: each output an array, one value per item
        _record_items(step_result, attempt, cstep, state, outputs)
        return
    for name, value in cstep.outputs.items():
        if value.is_constant and attempt.ok:  # literal text (`Done`): returned as written, and said so
            literal_note(step_result.warnings, value)
        found = derived_output(state.taint, value, attempt.ctx, outputs, name)
        kind = type(found)
        if kind is not dict and kind is not list and kind is not Missing:  # a scalar: nothing to walk
            outputs[name] = found
            continue
        clean, problems = strip_missing(found, f"output '{name}'")
        outputs[name] = None if isinstance(clean, Missing) else clean
        if isinstance(clean, Missing):
            outputs.missing[name] = f"output '{name}' of step '{cstep.step_id}': {clean.reason}"
        if attempt.ok:
            problems = null_output(clean, problems)
            step_result.warnings.extend(p for p in problems if p not in step_result.warnings)
    _keep(step_result, outputs, attempt, cstep, state)


def _keep(
    step_result: StepResult, outputs: Outputs, attempt: Attempt, cstep: CompiledStep, state: WorkflowState
) -> None:
    """The step's outputs for the steps after it; whether it completed (its latest execution counts: a
    step that lists it in `dependsOn` is not sent after it failed)."""
    step_result.outputs = outputs
    state.steps[cstep.step_id] = outputs
    if attempt.ok:
        state.completed.add(cstep.step_id)
    else:
        state.completed.discard(cstep.step_id)


def _record_items(
    step_result: StepResult, attempt: Attempt, cstep: CompiledStep, state: WorkflowState, outputs: Outputs
) -> None:
    """An x-forEach step's outputs: each evaluated for every item's child (`steps/loop.py`), in item
    order; an item not run, or a value that reaches nothing, is `null` (the latter with a warning)."""
    items = attempt.items or []
    for name, value in cstep.outputs.items():
        if value.is_constant and attempt.ok:
            literal_note(step_result.warnings, value)
        values: list[Any] = []
        inside: list[tuple[Any, ...]] = []  # the secret members of each item's value, under its index
        for index, ctx in enumerate(items):
            if ctx is None:
                values.append(None)
                continue
            found = derived_output(state.taint, value, ctx, outputs, name)
            inside.extend((index, *path) for path in outputs.members.pop(name, ()))
            clean, problems = strip_missing(found, f"output '{name}' of item {index}")
            values.append(None if isinstance(clean, Missing) else clean)
            if attempt.ok:
                step_result.warnings.extend(p for p in problems if p not in step_result.warnings)
        outputs[name] = values
        if inside:
            outputs.members[name] = tuple(inside)
    _keep(step_result, outputs, attempt, cstep, state)


def unmet_needs(host: Host, workspace: Workspace, cstep: CompiledStep, state: WorkflowState) -> str | None:
    """Why the step cannot be sent, None when it can: a step its `dependsOn` lists has not passed, a
    step it reads has not run (skipped by a goto; a failed step's outputs are what it recorded, read by
    the step its `onFailure` sent the workflow to), a step of another workflow it lists has not passed."""
    unmet = []
    for step_id in cstep.needs:
        if step_id in state.completed:
            continue
        if step_id not in state.steps:
            unmet.append(f"step '{step_id}', which did not run (a goto went past it)")
        elif step_id in cstep.must_pass:  # it ran: its latest execution failed
            unmet.append(f"step '{step_id}', which failed")
    for ref in cstep.needs_elsewhere:
        if not step_completed(host, workspace, ref, state):
            unmet.append(f"step {ref}, which has not completed")
    if not unmet:
        return None
    return f"not sent: it depends on {_and(unmet)}"


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def step_completed(host: Host, workspace: Workspace, ref: str, state: WorkflowState) -> bool:
    """A step `dependsOn` entry: a step of this workflow execution, `$workflows.<w>.steps.<s>` or
    `$sourceDescriptions.<name>.<w>.steps.<s>` (a step completed earlier in this run)."""
    match = re.match(STEP_REF, ref)
    if match is None:
        return ref in state.completed
    source, workflow_id, step_id = match.groups()
    if source is not None:
        try:
            workspace = workspace.source(source)
        except ArazzoError:
            return False
        if not isinstance(workspace, Workspace):
            return False
    return (id(workspace), workflow_id, step_id) in host.completed


def literal_note(warnings: list[str], value: Any) -> None:
    """The warning of an output written as literal text (`workspace/plan.py`: a `LiteralOutput`), once
    per result: `arazzo validate` warns (`output-value`), a run returns the text and says so."""
    note = getattr(value, "note", None)
    if note and note not in warnings:
        warnings.append(note)


def null_output(value: Any, problems: list[str]) -> list[str]:
    """An output that is absent as a whole has one problem: mark it a `NullOutput` (shown by the console
    only with --verbose). Members missing from an output that has a value stay plain warnings."""
    return [NullOutput(p) for p in problems] if isinstance(value, Missing) else problems
