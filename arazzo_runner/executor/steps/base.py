"""The one small interface every kind of step target implements, and what an attempt returns.

A step names an OpenAPI operation, a workflow or an AsyncAPI message; each kind is one module of this
package (`operation`, `workflow`, `message`) with a `StepKind` that makes one attempt of a step. The
scheduler above them (`executor.scheduler`, `executor.stepping`) decides when a step runs, retries it and
follows its actions; a kind only sees the run through `Host`, so no kind imports the runner.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from ...expressions import Context
from ...records import Record, field
from ...result import Exchange, ResponseExcerpt

if TYPE_CHECKING:
    from ...bounds.deadline import Deadline
    from ...result import StepResult, WorkflowResult
    from ...workspace import Workspace
    from ...workspace.plan import CompiledCriterion, CompiledStep
    from ..context import WorkflowState
    from ..options import RunOptions
    from ..runtime import Runtime


class Host(Protocol):
    """What a step kind may use of the run it is part of (the runner implements it)."""

    options: RunOptions
    deadline: Deadline
    client: Any  # the run's pooled HTTP client
    runtime: Runtime  # how the run waits: asyncio, or blocking its caller's thread
    inputs: dict[str, Any]  # the run's inputs
    root: Workspace  # the run's document: the namespace credentials are keyed in
    operation_facts: dict[tuple[Any, ...], Any]
    placeholders: set[str]
    scheme_owners: dict[str, frozenset[str]] | None
    family_paths: dict[int, tuple[str, ...]] | None  # id(workspace) -> its chain of source names
    resources: dict[str, Any]  # per-run state a kind creates on first use (sessions, connections)
    workflows: dict[str, dict[str, Any]]  # `$workflows.<id>...` of the run
    completed: set[tuple[int, str, str]]  # (id(workspace), workflowId, stepId) of steps that passed
    steps_run: int
    loop_allowance: int  # steps the items of x-forEach loops add to `--max-steps` (`bounds.step_budget`)
    slots: Any  # `--parallel N`: a semaphore of N requests in flight; None: one step at a time
    interrupted_step: StepResult | None  # the step execution an interrupt is unwinding (interrupts.py)
    journal: Any  # the run's journal `Tracker` (executor/journal/), None without one

    def emit(self, event_type: Any, *fields: Any) -> None: ...

    def take_interrupted_run(self) -> WorkflowResult | None: ...

    def take_interrupted_step(self) -> StepResult | None: ...

    def on_close(self, key: str, closer: Callable[[], Awaitable[None]]) -> None: ...

    async def run_workflow(
        self,
        workspace: Workspace,
        workflow: Any,
        inputs: dict[str, Any],
        depth: int = 0,
        validated: bool = False,
        item: int | None = None,
    ) -> tuple[WorkflowResult, Context | None]: ...

    def execute_step(
        self,
        workspace: Workspace,
        workflow: Any,
        cstep: CompiledStep,
        state: WorkflowState,
        depth: int,
        trail: list[StepResult],
        announce: bool = True,
    ) -> Coroutine[Any, Any, tuple[StepResult, Any, Context | None]]: ...


class StepKind:
    """One kind of step target, the base class of each. `attempt` makes one attempt of the step (retries
    are the scheduler's); it never raises for a runtime problem: the Attempt says what failed and why.
    The defaults are those of a step that runs in line and needs nothing before its turn."""

    name: str

    def non_blocking(self, cstep: CompiledStep) -> bool:
        """True: the scheduler runs the step beside the steps after it and joins it later."""
        return False

    async def prepare(
        self, host: Host, workspace: Workspace, cstep: CompiledStep, state: WorkflowState
    ) -> None:
        """Called before each earlier step runs (subscribe-before-send); most kinds do nothing."""
        return None

    async def ready(
        self, host: Host, workspace: Workspace, cstep: CompiledStep, state: WorkflowState
    ) -> tuple[str, list[str]] | None:
        """Called once before the workflow's first step: what would stop this step whatever the steps
        before it do (a broker that does not answer), and the step's warnings, so that the workflow
        fails before anything with side effects is sent; None when nothing is known to. Most kinds
        need nothing."""
        return None

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
        raise NotImplementedError


class Attempt(Record):
    ok: bool
    ctx: Context
    message: str | None = None
    failed_criteria: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    status_code: int | None = None
    method: str | None = None
    url: str | None = None
    retry_after: str | None = None
    exchange: Exchange | None = None
    token_exchanges: list[Exchange] = field(default_factory=list)  # OAuth2 token requests made before it
    response: ResponseExcerpt | None = None  # the start of the response, when the attempt failed on it
    messages: list[Any] = field(default_factory=list)  # AsyncAPI messages sent or received (result.Message)
    # an `x-forEach` step's: each item's context (its child's outputs and exchange), None for an item
    # not run; the step's outputs are evaluated for each (`stepping.record`)
    items: list[Context | None] | None = None

    def __init__(
        self,
        ok: bool,
        ctx: Context,
        message: str | None = None,
        failed_criteria: list[str] | None = None,
        warnings: list[str] | None = None,
        status_code: int | None = None,
        method: str | None = None,
        url: str | None = None,
        retry_after: str | None = None,
        exchange: Exchange | None = None,
        token_exchanges: list[Exchange] | None = None,
        response: ResponseExcerpt | None = None,
        messages: list[Any] | None = None,
        items: list[Context | None] | None = None,
    ) -> None:
        self.ok, self.ctx, self.message = ok, ctx, message
        self.failed_criteria = [] if failed_criteria is None else failed_criteria
        self.warnings = [] if warnings is None else warnings
        self.status_code, self.method, self.url = status_code, method, url
        self.retry_after, self.exchange = retry_after, exchange
        self.token_exchanges = [] if token_exchanges is None else token_exchanges
        self.response = response
        self.messages = [] if messages is None else messages
        self.items = items


def check_criteria(criteria: list[CompiledCriterion], ctx: Context) -> list[str]:
    """Messages of the criteria that fail (all must pass)."""
    failed = []
    for criterion in criteria:
        outcome = criterion.check.evaluate(ctx)
        if not outcome.passed:
            failed.append(outcome.message or f"{criterion.text}: failed")
    return failed
