"""The workflow state machine: steps in order, success/failure actions, retries, goto, nested workflows.

A `Runner` holds the state of ONE run (HTTP client, step budget, dependency results) and is never shared
between runs; the loaded documents it reads are immutable.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from ..errors import ArazzoError
from ..expressions import Context, Missing
from ..model import Workflow
from ..result import FAILED, PASSED, NullOutput, StepResult, WorkflowResult
from ..taint import Taint
from ..workspace import Workspace
from .actions import Decision, describe_action, find_action, transfer
from .bounds import Deadline, RetryBudget, with_cause
from .context import WorkflowState, base_context
from .events import StepFinished, StepRetrying, StepStarted, WorkflowFinished, WorkflowStarted
from .inputs import InputsError, mark_secret_inputs, validate_inputs
from .operation import Attempt, attempt_operation
from .options import RunOptions
from .plan import CompiledAction, CompiledStep
from .retrying import before_retry, failure_action
from .values import Outputs, derived_output, strip_missing
from .workflow_step import attempt_workflow

_STEP_REF = re.compile(
    r"^\$(?:workflows|sourceDescriptions\.([A-Za-z0-9_\-]+))\.([A-Za-z0-9_\-]+)\.steps\.([A-Za-z0-9_\-]+)$"
)
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
    ) -> None:
        self.options = options
        # the run's document: the namespace of source names credentials are keyed in (http/credentials.py)
        self.root = root
        self.deadline = deadline or Deadline(options.deadline)  # `RunOptions.deadline`, from now
        self.client = client
        self.inputs = dict(inputs or {})  # the run's inputs: what every dependency receives
        self.steps_run = 0
        self.workflows: dict[str, dict[str, Any]] = {}  # `$workflows.<id>.inputs|outputs|steps`
        self._once: dict[tuple[int, str], WorkflowResult] = {}  # selected workflows and dependencies
        self._running: set[tuple[int, str]] = set()
        self._completed: set[tuple[int, str, str]] = set()  # steps that passed in this run (step dependsOn)
        self.operation_facts: dict[int, Any] = {}  # per operation: what the run's options make constant
        self.placeholders: set[str] = set()  # a dry run's `<$steps.a.outputs.b>` stand-ins (dry_run.py)
        self.scheme_owners: dict[str, frozenset[str]] | None = None  # scheme -> its sources, made when asked
        self.family_paths: dict[int, tuple[str, ...]] | None = None  # id(workspace) -> its source-name chain
        self.taint: Taint | None = None  # which values derive from a secret; made with the first workflow

    def emit(self, event_type: Any, *fields: Any) -> None:
        """Build and deliver an event, only when someone listens (this runs several times per step)."""
        handler = self.options.on_event
        if handler is not None:
            handler(event_type(*fields))

    # -- workflows -----------------------------------------------------------------------------------

    async def run_workflow(
        self,
        workspace: Workspace,
        workflow: Workflow,
        inputs: dict[str, Any],
        depth: int = 0,
        validated: bool = False,
    ) -> tuple[WorkflowResult, Context | None]:
        """Run one workflow; InputsError propagates (a usage error at the top, a step failure below).
        `validated`: the inputs were validated already (defaults applied), by the run's preflight."""
        if not validated:
            schema_at = "/" + "/".join(str(t) for t in (*workflow.at, "inputs"))
            raw = workspace.document.raw
            secrets = self.options.secrets
            inputs = validate_inputs(
                workflow.workflow_id, workflow.inputs, inputs, raw, schema_at, secrets, workspace.error
            )
        inputs = mark_secret_inputs(inputs, workflow.inputs, workspace.document.raw)
        result = WorkflowResult(workflow.workflow_id, outputs=Outputs())
        started = time.perf_counter()
        self.emit(WorkflowStarted, workflow.workflow_id, depth)
        self.taint = self.taint or Taint(self.options.secrets, workspace)  # apiKey names: the run's documents
        state = WorkflowState(workspace, inputs, taint=self.taint)
        # `$workflows.<id>.inputs|outputs|steps...`: this (latest) execution's, filled in as it runs
        self.workflows[workflow.workflow_id] = {
            "inputs": inputs,
            "outputs": result.outputs,
            "steps": state.steps,
        }
        last_ctx = None
        key = _key(workspace, workflow)
        running = key in self._running
        self._running.add(key)
        try:
            if depth > MAX_DEPTH:
                result.fail("", f"workflows nested more than {MAX_DEPTH} deep: a workflow calling itself?")
            elif await self._dependencies_ok(workspace, workflow, result, depth):
                last_ctx = await self._run_steps(workspace, workflow, state, result, depth)
        finally:
            if not running:
                self._running.discard(key)
        self._outputs(workspace, workflow, state, result, last_ctx)
        result.duration_ms = (time.perf_counter() - started) * 1000
        self.emit(WorkflowFinished, result, depth)
        return result, last_ctx

    async def run_selected(
        self, workspace: Workspace, workflow: Workflow, inputs: dict[str, Any], validated: bool = False
    ) -> WorkflowResult:
        """A workflow selected for the run; one that already ran as a dependency is not run again."""
        key = _key(workspace, workflow)
        if key not in self._once:
            self._once[key], _ = await self.run_workflow(workspace, workflow, inputs, validated=validated)
        return self._once[key]

    async def _dependencies_ok(
        self, workspace: Workspace, workflow: Workflow, result: WorkflowResult, depth: int
    ) -> bool:
        """Run each dependency once per run, with the run's inputs; False (and `result` failed) if one
        failed."""
        for ref in workflow.depends_on:
            target = workspace.resolve_workflow(ref, (*workflow.at, "dependsOn"))
            key = _key(target.workspace, target.workflow)
            if key in self._running:
                result.fail(
                    None, f"dependency '{ref}' is a cycle: it depends on this workflow", dependency=ref
                )
                return False
            if key not in self._once:
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
                self._once[key] = dep
                result.dependencies.append(dep)
            if not self._once[key].passed:
                result.fail(None, f"dependency '{ref}' failed; the workflow did not run", dependency=ref)
                return False
        return True

    async def _run_steps(
        self,
        workspace: Workspace,
        workflow: Workflow,
        state: WorkflowState,
        result: WorkflowResult,
        depth: int,
    ) -> Context | None:
        plan = workspace.compiled(workflow)
        index = 0
        last_ctx: Context | None = None
        while index < len(plan.steps):
            cstep = plan.steps[index]
            if self.deadline.expired():  # no step starts once the run's deadline has passed
                result.fail(cstep.step_id, self.deadline.message)
                return last_ctx
            if self.steps_run >= self.options.max_steps:
                result.fail(
                    cstep.step_id, f"stopped after {self.options.max_steps} steps (max-steps): a goto loop?"
                )
                return last_ctx
            self.steps_run += 1
            step_result, decision, last_ctx = await self._step(
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
                await self._goto_workflow(workspace, cstep, decision, state, result, last_ctx, depth)
                return last_ctx
            else:
                result.fail(cstep.step_id, decision.message or step_result.error or "step failed")
                return last_ctx
        return last_ctx

    async def _goto_workflow(
        self,
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
        inputs = self._action_inputs(action, ctx or base_context(state, self.workflows))
        try:
            child, _ = await self.run_workflow(target.workspace, target.workflow, inputs, depth + 1)
        except InputsError as exc:
            result.fail(cstep.step_id, str(exc))
            return
        result.steps[-1].add_workflow(child)  # after any the step ran itself (a retry's, its own)
        if not child.passed:
            message = (child.error or {}).get("message", "failed")
            result.fail(
                cstep.step_id, f"workflow '{child.workflow_id}' (goto from '{action.name}') failed: {message}"
            )

    def _action_inputs(self, action: CompiledAction, ctx: Context) -> dict[str, Any]:
        inputs = {}
        for param in action.params:
            value, _ = strip_missing(param.value.evaluate(ctx), f"parameter '{param.name}'")
            if not isinstance(value, Missing):
                inputs[param.name] = value
        return inputs

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
            found = derived_output(state.taint, value, context, result.outputs, name)
            clean, problems = strip_missing(found, f"workflow output '{name}'")
            result.outputs[name] = None if isinstance(clean, Missing) else clean
            if isinstance(clean, Missing) and isinstance(result.outputs, Outputs):
                why = f"output '{name}' of workflow '{workflow.workflow_id}': {clean.reason}"
                result.outputs.missing[name] = why
            result.warnings.extend(_null_output(clean, problems))

    # -- steps ---------------------------------------------------------------------------------------

    async def _step(
        self,
        workspace: Workspace,
        workflow: Workflow,
        cstep: CompiledStep,
        state: WorkflowState,
        depth: int,
        trail: list[StepResult],
    ) -> tuple[StepResult, Decision, Context | None]:
        """Run one step execution (all its attempts); `trail` receives steps run before a retry."""
        step_result = StepResult(cstep.step_id)
        self.emit(StepStarted, workflow.workflow_id, cstep.step_id, depth)
        started = time.perf_counter()
        retries: dict[str, int] = {}
        budget = RetryBudget(self.options, self.deadline, started)
        while True:
            attempt = await self._attempt(workspace, cstep, state, step_result, depth)
            step_result.attempts += 1
            self._record(step_result, attempt, cstep, state)
            if attempt.ok:
                self._completed.add((id(workspace), workflow.workflow_id, cstep.step_id))
                decision = self._on_success(cstep, attempt.ctx)
                break
            if self.deadline.expired():  # past the deadline no onFailure action runs, not even a retry
                step_result.error = with_cause(attempt.message, self.deadline.message)
                decision = Decision("fail", message=step_result.error)
                break
            action, delay, refusal = failure_action(self, cstep, attempt, retries, budget, step_result)
            if action is None:
                step_result.error = with_cause(attempt.message, refusal) if refusal else attempt.message
                decision = Decision("fail", message=step_result.error)
                break
            if action.type == "retry":
                retries[action.name] = retries.get(action.name, 0) + 1
                failure = await before_retry(
                    self, workspace, workflow, cstep, action, attempt, state, depth, step_result, trail
                )
                if failure:
                    step_result.error = f"{attempt.message}; {failure}"
                    decision = Decision("fail", message=step_result.error)
                    break
                self.emit(
                    StepRetrying,
                    workflow.workflow_id,
                    cstep.step_id,
                    step_result.attempts + 1,
                    delay,
                    attempt.message or "failed",
                    depth,
                )
                await asyncio.sleep(delay)
                continue
            decision = transfer(action)
            break
        step_result.duration_ms = (time.perf_counter() - started) * 1000
        if decision.action is not None:
            step_result.action = describe_action(decision.action)
        self.emit(StepFinished, workflow.workflow_id, step_result, depth)
        return step_result, decision, attempt.ctx

    def _on_success(self, cstep: CompiledStep, ctx: Context) -> Decision:
        action = find_action(cstep.on_success, ctx, {})
        return Decision("next") if action is None else transfer(action)

    def _record(
        self, step_result: StepResult, attempt: Attempt, cstep: CompiledStep, state: WorkflowState
    ) -> None:
        step_result.status = PASSED if attempt.ok else FAILED
        step_result.error = None if attempt.ok else attempt.message
        step_result.failed_criteria = attempt.failed_criteria
        step_result.response = attempt.response
        step_result.status_code = attempt.status_code
        step_result.method, step_result.url = attempt.method, attempt.url
        step_result.warnings.extend(w for w in attempt.warnings if w not in step_result.warnings)
        step_result.exchanges.extend(attempt.token_exchanges)
        if attempt.exchange is not None:
            step_result.exchanges.append(attempt.exchange)
        outputs = Outputs()
        for name, value in cstep.outputs.items():
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
                problems = _null_output(clean, problems)
                step_result.warnings.extend(p for p in problems if p not in step_result.warnings)
        step_result.outputs = outputs
        state.steps[cstep.step_id] = outputs
        if attempt.ok:
            state.completed.add(cstep.step_id)

    async def _attempt(
        self,
        workspace: Workspace,
        cstep: CompiledStep,
        state: WorkflowState,
        step_result: StepResult,
        depth: int,
    ) -> Attempt:
        base = base_context(state, self.workflows)
        step = cstep.step
        waiting = [d for d in step.depends_on if not self._step_completed(workspace, d, state)]
        if waiting:
            return Attempt(False, base, f"depends on step(s) {', '.join(waiting)}, which have not completed")
        kind = step.target_kind
        if kind == "workflow":
            return await attempt_workflow(self, workspace, cstep, base, step_result, depth)
        if kind == "asyncapi":
            return Attempt(
                False, base, "AsyncAPI steps (channelPath/action) are not supported by this engine"
            )
        return await attempt_operation(self, cstep, base, workspace)

    def _step_completed(self, workspace: Workspace, ref: str, state: WorkflowState) -> bool:
        """A step `dependsOn` entry: a step of this workflow execution, `$workflows.<w>.steps.<s>` or
        `$sourceDescriptions.<name>.<w>.steps.<s>` (a step completed earlier in this run)."""
        match = _STEP_REF.match(ref)
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
        return (id(workspace), workflow_id, step_id) in self._completed


def _key(workspace: Workspace, workflow: Workflow) -> tuple[int, str]:
    return (id(workspace), workflow.workflow_id)


def dependency_inputs(workflow: Workflow, inputs: dict[str, Any]) -> dict[str, Any]:
    """A dependency runs with the run's inputs, narrowed to what its own schema declares (if it says)."""
    schema = workflow.inputs or {}
    props = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(props, dict) and schema.get("additionalProperties") is False:
        return {k: v for k, v in inputs.items() if k in props}
    return dict(inputs)


def _null_output(value: Any, problems: list[str]) -> list[str]:
    """An output that is absent as a whole has one problem: mark it a `NullOutput` (shown by the console
    only with --verbose). Members missing from an output that has a value stay plain warnings."""
    return [NullOutput(p) for p in problems] if isinstance(value, Missing) else problems
