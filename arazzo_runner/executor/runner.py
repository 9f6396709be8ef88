"""A run: its workflows, their `dependsOn`, their outputs, and the state every step of the run shares.

A `Runner` holds the state of ONE run (HTTP client, step budget, dependency results, connections the
step kinds opened) and is never shared between runs; the loaded documents it reads are immutable. It is
the `Host` the step kinds see (`steps/base.py`); the order of a workflow's steps is the scheduler's
(`scheduler.py`), one step's attempts and retries `stepping.py`'s.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from typing import Any

from ..expressions import Context, Missing
from ..masking.taint import Taint
from ..model import Workflow
from ..result import StepResult, WorkflowResult
from ..workspace import Workspace
from ..workspace.plan import CompiledStep
from .bounds import Deadline
from .context import WorkflowState, base_context
from .events import WorkflowFinished, WorkflowStarted
from .inputs import InputsError, secret_input_members, secret_input_names, validate_inputs, with_secret_names
from .interrupts import is_interrupt
from .options import RunOptions
from .runtime import AsyncioRuntime, Runtime
from .scheduler import run_steps
from .stepping import execute_step, literal_note, null_output
from .values import Outputs, derived_output, strip_missing

# the workflows the execution in progress runs inside (its own last): a dependency among them is a cycle;
# each task of a run side by side has its own (tasks copy the context they start in)
_CALLS: ContextVar[tuple[tuple[int, str], ...]] = ContextVar("arazzo_runner_workflow_calls", default=())
_NOTHING: frozenset[type] = frozenset()
MAX_DEPTH = 50  # nested workflow runs (workflowId steps, goto/retry a workflow); a guard against recursion


class Runner:
    def __init__(
        self,
        options: RunOptions,
        client: Any,
        inputs: dict[str, Any] | None = None,
        deadline: Deadline | None = None,
        *,
        root: Workspace,
        runtime: Runtime | None = None,
        operation_facts: dict[tuple[Any, ...], Any] | None = None,
    ) -> None:
        self.options = options
        self.runtime = runtime or AsyncioRuntime()  # how the run waits (runtime.py)
        # the run's document: the namespace of source names credentials are keyed in (http/credentials.py)
        self.root = root
        self.deadline = deadline or Deadline(options.deadline)  # `RunOptions.deadline`, from now
        self.client = client
        self.inputs = dict(inputs or {})  # the run's inputs: what every dependency receives
        self.steps_run = 0
        self.loop_allowance = 0  # steps the items of x-forEach loops add to the budget (`bounds.step_budget`)
        self.workflows: dict[str, dict[str, Any]] = {}  # `$workflows.<id>.inputs|outputs|steps`
        self._once: dict[tuple[int, str], WorkflowResult] = {}  # selected workflows and dependencies
        # dependencies being run, and what waits for them: a workflow beside the one running one (loop
        # items, workflow steps under `--parallel`) waits for its outcome instead of running it again
        self._starting: dict[tuple[int, str], Any] = {}
        self._completed: set[tuple[int, str, str]] = set()  # steps that passed in this run (step dependsOn)
        # what stays the same for the run's options and documents: per (family source, operation), and
        # the secret inputs of each workflow; a prepared run's is shared by its runs (`api.run_prepared`:
        # their options differ only in client, handler and secrets)
        self.operation_facts: dict[tuple[Any, ...], Any] = {} if operation_facts is None else operation_facts
        self.placeholders: set[str] = set()  # a dry run's `<$steps.a.outputs.b>` stand-ins (dry_run.py)
        self.scheme_owners: dict[str, frozenset[str]] | None = None  # scheme -> its sources, made when asked
        self.family_paths: dict[int, tuple[str, ...]] | None = None  # id(workspace) -> its source-name chain
        self.taint: Taint | None = None  # which values derive from a secret; made with the first workflow
        self.resources: dict[str, Any] = {}  # what step kinds made for the run (HTTP session, brokers)
        self._closers: dict[str, Callable[[], Awaitable[None]]] = {}
        # an interrupt unwinding the run: the workflow execution it last passed through (interrupts.py),
        # and the step execution in flight, as far as it got (a loop's items that ran, for one)
        self.interrupted_run: WorkflowResult | None = None
        self.interrupted_step: StepResult | None = None
        self._event_types = getattr(options.on_event, "event_types", None)  # None: every event
        # of those, what it ignores of a top-level workflow (the console's: its end, which the summary says)
        self._quiet_at_top: frozenset[type] = getattr(options.on_event, "quiet_at_top", _NOTHING)
        # `--parallel N`: the requests of the run in flight at once (operation steps hold one each)
        parallel = options.parallel > 1 and not self.runtime.blocking
        self.slots: Any = self.runtime.slots(options.parallel) if parallel else None
        self.journal: Any = None  # the run's journal `Tracker` (executor/journal/), when it has one

    def take_interrupted_run(self) -> WorkflowResult | None:
        """The execution an interrupt unwound last (for the level above to keep), once."""
        found, self.interrupted_run = self.interrupted_run, None
        return found

    def take_interrupted_step(self) -> StepResult | None:
        """The step execution an interrupt unwound last, as far as it got (for its scheduler), once."""
        found, self.interrupted_step = self.interrupted_step, None
        return found

    @property
    def completed(self) -> set[tuple[int, str, str]]:
        return self._completed

    def on_close(self, key: str, closer: Callable[[], Awaitable[None]]) -> None:
        """`closer` runs when the run ends (`close`); one per key, the first registered kept."""
        self._closers.setdefault(key, closer)

    async def close(self) -> None:
        """Close what the run's step kinds opened (client certificates' HTTP clients, broker
        connections, subscriptions on them), the last opened first, each even if another fails; the
        first error is raised after all were tried."""
        error: BaseException | None = None
        for closer in reversed(list(self._closers.values())):  # the last opened first
            try:
                await closer()
            except Exception as exc:
                error = error or exc
        self._closers.clear()
        if error is not None:
            raise error

    def execute_step(
        self,
        workspace: Workspace,
        workflow: Workflow,
        cstep: CompiledStep,
        state: WorkflowState,
        depth: int,
        trail: list[StepResult],
        announce: bool = True,
    ) -> Coroutine[Any, Any, tuple[StepResult, Any, Context | None]]:
        """The step execution's coroutine (`stepping.execute_step`), not one more awaiting it."""
        return execute_step(self, workspace, workflow, cstep, state, depth, trail, announce)

    def emit(self, event_type: Any, *fields: Any) -> None:
        """Build and deliver an event, only when someone listens to its type (this runs several times per
        step): a handler with `event_types` (`events.py`) gets those alone, the others are not built."""
        handler = self.options.on_event
        if handler is not None and (self._event_types is None or event_type in self._event_types):
            handler(event_type(*fields))

    # -- workflows -----------------------------------------------------------------------------------

    async def run_workflow(
        self,
        workspace: Workspace,
        workflow: Workflow,
        inputs: dict[str, Any],
        depth: int = 0,
        validated: bool = False,
        item: int | None = None,
        selected: bool = False,
    ) -> tuple[WorkflowResult, Context | None]:
        """Run one workflow; InputsError propagates (a usage error at the top, a step failure below).
        `validated`: the inputs were validated already (defaults applied), by the run's preflight.
        `item`: the index of the `x-forEach` item this run is for. `selected`: a workflow the run was
        asked for, kept as run (`selected_result`) once it has run to its end."""
        if not validated:
            schema_at = "/" + "/".join(str(t) for t in (*workflow.at, "inputs"))
            raw = workspace.document.raw
            secrets = self.options.secrets
            inputs = validate_inputs(
                workflow.workflow_id, workflow.inputs, inputs, raw, schema_at, secrets, workspace.error
            )
        secret = ("secret inputs", id(workspace), workflow.workflow_id)  # constant, like operation facts
        marks = self.operation_facts.get(secret)
        if marks is None:
            raw = workspace.document.raw
            marks = secret_input_names(workflow.inputs, raw), secret_input_members(workflow.inputs, raw)
            self.operation_facts[secret] = marks
        inputs = with_secret_names(inputs, *marks)
        result = WorkflowResult(workflow.workflow_id, outputs=Outputs(), started_at=time.time(), item=item)
        started = time.perf_counter()
        self.emit(WorkflowStarted, workflow.workflow_id, depth)
        self.taint = self.taint or Taint(self.options.secrets, workspace)  # apiKey names: the run's documents
        state = WorkflowState(workspace, inputs, taint=self.taint)
        # `$workflows.<id>.inputs|outputs|steps...`: this (latest) execution's, filled in as it runs; its
        # own steps read their own execution's (`context._OwnFirst`)
        entry = {"inputs": inputs, "outputs": result.outputs, "steps": state.steps}
        self.workflows[workflow.workflow_id] = entry
        state.own = (workflow.workflow_id, entry)
        last_ctx = None
        calls = _CALLS.set((*_CALLS.get(), _key(workspace, workflow)))  # this execution's call path
        journal = self.journal  # names this execution for the journal (executor/journal/scope.py)
        named = (
            journal.enter_workflow(workflow.workflow_id, item, workspace is self.root) if journal else None
        )
        try:
            if depth > MAX_DEPTH:
                result.fail("", f"workflows nested more than {MAX_DEPTH} deep: a workflow calling itself?")
            elif not workflow.depends_on or await self._dependencies_ok(workspace, workflow, result, depth):
                last_ctx = await run_steps(self, workspace, workflow, state, result, depth)
        except BaseException as exc:
            if is_interrupt(exc):
                self._interrupted(result, started)
            raise
        finally:
            _CALLS.reset(calls)
            if named is not None:
                journal.leave(named)
        self._outputs(workspace, workflow, state, result, last_ctx)
        result.duration_ms = (time.perf_counter() - started) * 1000
        if depth or WorkflowFinished not in self._quiet_at_top:  # (not built for nobody: a row's run)
            self.emit(WorkflowFinished, result, depth)
        if selected:
            self._once[_key(workspace, workflow)] = result
        return result, last_ctx

    def selected_result(self, workspace: Workspace, workflow: Workflow) -> WorkflowResult | None:
        """The result of a workflow selected for the run that already ran (as a dependency), which is not
        run again; None: it is run (`run_workflow(..., selected=True)`, awaited by the caller itself: a
        coroutine fewer that every suspension of the run's steps would resume through)."""
        return self._once.get(_key(workspace, workflow))

    async def _dependencies_ok(
        self, workspace: Workspace, workflow: Workflow, result: WorkflowResult, depth: int
    ) -> bool:
        """Run each dependency once per run, with the run's inputs; False (and `result` failed) if one
        failed."""
        for ref in workflow.depends_on:
            target = workspace.resolve_workflow(ref, (*workflow.at, "dependsOn"))
            key = _key(target.workspace, target.workflow)
            if key in _CALLS.get():  # this execution runs inside that workflow's: it can never complete
                result.fail(
                    None, f"dependency '{ref}' is a cycle: it depends on this workflow", dependency=ref
                )
                return False
            waiting = self._starting.get(key)
            if key not in self._once and waiting is not None:  # run beside this one: its outcome is ours
                await waiting.wait()
            elif key not in self._once:
                self._starting[key] = done = self._event()
                journal = self.journal  # run once per run: named the same from wherever it is first needed
                named = (
                    journal.enter_dependency(
                        target.workflow.workflow_id, journal.document_name(self.root, target.workspace)
                    )
                    if journal
                    else None
                )
                try:
                    dep, _ = await self.run_workflow(
                        target.workspace,
                        target.workflow,
                        dependency_inputs(target.workflow, self.inputs),
                        depth,
                    )
                except InputsError as exc:
                    dep = WorkflowResult(target.workflow.workflow_id)
                    dep.fail("", str(exc))
                finally:
                    if named is not None:
                        journal.leave(named)
                    del self._starting[key]
                    done.set()
                self._once[key] = dep
                result.dependencies.append(dep)
            if not self._once[key].passed:
                result.fail(None, f"dependency '{ref}' failed; the workflow did not run", dependency=ref)
                return False
        return True

    def _event(self) -> Any:
        """What a workflow beside another waits on until that one's dependency has run: an asyncio event,
        or on a runtime that runs one thing at a time (never beside another) one already set."""
        if self.runtime.blocking:
            return _Done()
        import asyncio

        return asyncio.Event()

    def _interrupted(self, result: WorkflowResult, started: float) -> None:
        """This execution is being interrupted: failed (the scheduler said where, or a dependency it was
        running is kept), and kept for the level above."""
        dependency = self.take_interrupted_run()  # not taken by a scheduler: a dependsOn run
        if dependency is not None:
            result.dependencies.append(dependency)
        if result.error is None:
            result.fail(None, "interrupted")
        result.duration_ms = (time.perf_counter() - started) * 1000
        self.interrupted_run = result

    def _outputs(
        self,
        workspace: Workspace,
        workflow: Workflow,
        state: WorkflowState,
        result: WorkflowResult,
        ctx: Context | None,
    ) -> None:
        plan = workspace.compiled(workflow)
        context = base_context(state, self.workflows)
        for name, value in plan.outputs.items():
            if value.is_constant:
                literal_note(result.warnings, value)
            found = derived_output(state.taint, value, context, result.outputs, name)
            kind = type(found)
            if kind is not dict and kind is not list and kind is not Missing:  # a scalar: nothing to walk
                result.outputs[name] = found
                continue
            clean, problems = strip_missing(found, f"workflow output '{name}'")
            result.outputs[name] = None if isinstance(clean, Missing) else clean
            if isinstance(clean, Missing) and isinstance(result.outputs, Outputs):
                why = f"output '{name}' of workflow '{workflow.workflow_id}': {clean.reason}"
                result.outputs.missing[name] = why
            result.warnings.extend(null_output(clean, problems))


class _Done:
    """An event already set (`Runner._event` on a blocking runtime)."""

    def set(self) -> None:
        pass

    async def wait(self) -> None:
        return None


def _key(workspace: Workspace, workflow: Workflow) -> tuple[int, str]:
    return (id(workspace), workflow.workflow_id)


def dependency_inputs(workflow: Workflow, inputs: dict[str, Any]) -> dict[str, Any]:
    """A dependency runs with the run's inputs, narrowed to what its own schema declares (if it says)."""
    schema = workflow.inputs or {}
    props = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(props, dict) and schema.get("additionalProperties") is False:
        return {k: v for k, v in inputs.items() if k in props}
    return dict(inputs)
