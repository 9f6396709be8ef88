"""The library entry points: `load` once, then `run` / `arun` as many times as you like."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .bounds import budget
from .bounds.deadline import Deadline, arm
from .errors import NotRunnable, RunInterrupted, UsageError, problem_of
from .executor.interrupts import is_interrupt
from .executor.options import RunOptions
from .executor.preflight import BatchChecks, family_servers, preflight, replay_opened, select_workflows
from .executor.preflight import inputs_for as _inputs_for
from .executor.runner import Runner
from .executor.runtime import (
    AsyncioRuntime,
    BlockingRuntime,
    Runtime,
    blocking_allowed,
    drive,
    loop_running,
    run_on_asyncio,
    sync_call,
)
from .model import Workflow
from .records import Record, field
from .result import RunResult, WorkflowResult
from .workspace import Workspace

if TYPE_CHECKING:
    from .executor.dry_run import PlannedRequest

Source = Workspace | str | os.PathLike[str]
DEADLINE_GRACE = 1.0  # seconds past `RunOptions.deadline` before the whole run is cancelled


def load(path: str | os.PathLike[str], *, allow_paths: Iterable[str | os.PathLike[str]] = ()) -> Workspace:
    """Load an Arazzo document (YAML or JSON). Raises DocumentError with file, line and column.

    Its sources (and their `$ref`s) are read wherever they are, relative paths against the document that
    names them. For a document you do not trust, `allow_paths` is a sandbox (the CLI's `--sandbox DIR`):
    a local file outside those folders fails with a SourceError when it would be loaded.
    """
    return Workspace.from_path(path, allow_paths=allow_paths)


def loads(
    text: str | bytes, location: str = "<string>", *, allow_paths: Iterable[str | os.PathLike[str]] = ()
) -> Workspace:
    """Load an Arazzo document from text; relative source URLs resolve against `location` (the working
    directory for `<string>`). An http(s) `location` makes it a remote document: it reads no local file.
    `allow_paths`: the sandbox, as for `load`."""
    return Workspace.from_text(text, location, allow_paths=allow_paths)


def run(
    source: Source,
    workflows: str | Iterable[str] | None = None,
    inputs: dict[str, Any] | None = None,
    *,
    options: RunOptions | None = None,
    **option_values: Any,
) -> RunResult:
    """Run workflows synchronously; the result is `arun`'s. The run blocks this thread, without an event
    loop, when it can (it makes its own client and reaches no AsyncAPI step); otherwise it runs on
    asyncio. The engine is the same either way (`executor/runtime.py`).

    Interrupted (Ctrl-C), it raises `RunInterrupted`, a `KeyboardInterrupt` whose `result` holds what
    ran until then (`RunResult.interrupted`)."""
    if loop_running():
        raise UsageError("run() was called inside a running event loop; use `await arun(...)` there")
    opts = options or RunOptions(**option_values)
    with arm(Deadline(opts.deadline)) as deadline:  # before the first fetch: loading sources counts
        prepared = _prepare(source, workflows, inputs, opts)
        result = RunResult()  # filled as the workflows end; what ran, when interrupted
        try:
            if blocking_allowed(opts.client is None, prepared.kinds):
                runtime = BlockingRuntime()
                client = _blocking_client(runtime, prepared)
                if client is not None:
                    return drive(_execute(prepared, deadline, runtime, client, result))
            run_on_asyncio(_execute(prepared, deadline, AsyncioRuntime(), None, result))
            return result
        except KeyboardInterrupt as exc:  # asyncio.run turns its cancelled task into this too
            result.interrupted = True
            raise RunInterrupted(result) from exc


async def arun(
    source: Source,
    workflows: str | Iterable[str] | None = None,
    inputs: dict[str, Any] | None = None,
    *,
    options: RunOptions | None = None,
    runtime: Runtime | None = None,
    **option_values: Any,
) -> RunResult:
    """Run the selected workflows (all, in document order, when none are named) and return the result.

    Document problems (bad expressions, unresolvable targets or sources) and invalid inputs raise before
    any request is sent; failures while running are reported in the result, never raised. The deadline
    (`RunOptions.deadline`) counts from this call, loading the sources included; a caller that armed one
    before (`deadline.arm`, as `arazzo run` does when it starts) keeps it, when it ends first.
    `runtime`: the asyncio runtime to run on, for a caller running many runs (`PooledRuntime`: their
    clients share one connection pool); by default one of the run's own.
    """
    return await arun_into(
        RunResult(), source, workflows, inputs, options=options, runtime=runtime, **option_values
    )


async def arun_into(
    result: RunResult,
    source: Source,
    workflows: str | Iterable[str] | None = None,
    inputs: dict[str, Any] | None = None,
    *,
    options: RunOptions | None = None,
    runtime: Runtime | None = None,
    checks: BatchChecks | None = None,
    **option_values: Any,
) -> RunResult:
    """`arun`, filling `result` (and returning it): a caller that may cancel the run keeps what ran,
    `result.interrupted` set (`arazzo run --inputs-file` does, for the rows in flight at Ctrl-C).
    `runtime`: an asyncio runtime of the caller's (`PooledRuntime`: a server's tool calls). `checks`:
    a batch's, whose every run has the same workflows and options (`preflight.BatchChecks`: the rows of
    `--inputs-file`): what is the same for each is checked once."""
    opts = options or RunOptions(**option_values)
    with arm(Deadline(opts.deadline)) as deadline:  # before the first fetch: loading sources counts
        prepared = _prepare(source, workflows, inputs, opts, checks)
        return await _execute(prepared, deadline, runtime or AsyncioRuntime(), None, result)


def prepare_run(
    source: Source,
    workflows: str | Iterable[str] | None = None,
    inputs: dict[str, Any] | None = None,
    *,
    options: RunOptions | None = None,
) -> _Prepared:
    """A run checked as `run` checks it (admission, inputs, preflight) and not started, for a front end
    that runs the same checked run many times (`arazzo load`: each workflow and row once per process);
    `run_prepared` runs it. Raises as `run` does. Its `options` have `servers` keyed by family name: a
    copy with other fields (`replace(prepared.options, ...)`) runs the same run with them."""
    opts = options or RunOptions()
    with arm(Deadline(opts.deadline)):
        return _prepare(source, workflows, inputs, opts)


def run_prepared(prepared: _Prepared, runtime: Runtime) -> RunResult:
    """Run `prepared` (`prepare_run`) on `runtime`, whose waits all block the caller (`drive`: no event
    loop), with the client of its options, else one of the runtime's; the deadline counts from now."""
    with arm(Deadline(prepared.options.deadline)) as deadline:
        return drive(_execute(prepared, deadline, runtime, None, RunResult()))


class _Prepared(Record):
    """A run checked and ready: its options, document, workflows, inputs, what its preflight found."""

    options: RunOptions  # the caller's, `servers` keyed by family name
    workspace: Workspace
    selected: list[Workflow]
    given: dict[str, Any]  # the run's inputs (dependencies receive them)
    inputs: dict[str, dict[str, Any]]  # per selected workflow, validated (defaults applied)
    bases: set[str]  # the base URLs of every operation the run may call
    # the step target kinds it may reach (operation, workflow, asyncapi), and `concurrent` when
    # `--parallel` runs steps of it side by side (asyncio's tasks: such a run does not block a thread)
    kinds: set[str]
    refused: dict[str, list[dict[str, Any]]]  # selected workflows that are not run, and why
    # what stays the same for an operation (its base URL, parameter index: `steps/operation._facts`)
    # and a workflow (its secret inputs), found by the first run and reused by the next runs of this
    # prepared run and of its copies (`Runner.operation_facts`)
    facts: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    # written out: one per run (each row of a batch makes one)
    def __init__(self, options: RunOptions, workspace: Workspace, selected: list[Workflow],
                 given: dict[str, Any], inputs: dict[str, dict[str, Any]], bases: set[str], kinds: set[str],
                 refused: dict[str, list[dict[str, Any]]], facts: dict[tuple[Any, ...], Any] | None = None,
                 ) -> None:  # fmt: skip
        self.options, self.workspace, self.selected, self.given = options, workspace, selected, given
        self.inputs, self.bases, self.kinds, self.refused = inputs, bases, kinds, refused
        self.facts = {} if facts is None else facts


def _prepare(
    source: Source,
    workflows: str | Iterable[str] | None,
    inputs: dict[str, Any] | None,
    opts: RunOptions,
    checks: BatchChecks | None = None,
) -> _Prepared:
    """The run checked before anything is sent. A selected workflow that cannot run with one meaning
    (`admission`) is refused, with its reasons, and the others run; when none can, the problem is
    raised (`NotRunnable`, or the one error that stopped the only workflow). `checks`: `arun_into`'s."""
    workspace = source if isinstance(source, Workspace) else load(source)
    opts = family_servers(opts, workspace, checks)
    opts = replay_opened(opts)
    facts = None if checks is None else checks.run_facts(workspace, workflows)
    if checks is not None and facts is not None:  # a run of a trusted batch: its inputs validated, the
        # rest as its first run found
        given = dict(inputs or {})
        checked = checks.trusted_inputs(workspace, facts, given, opts.secrets)
        return _Prepared(opts, workspace, list(facts.selected), given, checked, *facts.copies(), checks.facts)
    selected = select_workflows(workspace, workflows)
    given = dict(inputs or {})
    per_workflow = {w.workflow_id: _inputs_for(w, given, len(selected) > 1) for w in selected}
    kinds: set[str] = set()
    refused = admitted(workspace, selected, checks)
    stopped: dict[str, Any] = dict.fromkeys(refused)
    bases = preflight(workspace, selected, per_workflow, given, opts, kinds, stopped, checks)
    for workflow_id, error in stopped.items():
        if error is not None:
            refused[workflow_id] = [problem_of(error)]
    if selected and len(refused) == len(selected):
        errors = [e for e in stopped.values() if e is not None]
        if len(errors) == len(selected) == 1:
            raise errors[0]  # the one workflow's own problem, as it was found
        raise NotRunnable(workspace.file, [(w.workflow_id, refused[w.workflow_id]) for w in selected])
    if opts.http_replay is not None and "asyncapi" in kinds:
        raise UsageError(
            "an HTTP replay (--replay-http) answers HTTP requests only; the run reaches AsyncAPI steps, "
            "whose messages would go to the real brokers: run it without a replay"
        )
    prepared = _Prepared(opts, workspace, selected, given, per_workflow, bases, kinds, refused)
    if checks is not None:  # a batch's runs share what stays the same for an operation, as `prepare_run`'s
        prepared.facts = checks.facts
        checks.keep_run_facts(workspace, workflows, selected, stopped, refused, bases, kinds)
    return prepared


def admitted(
    workspace: Workspace, selected: list[Workflow], checks: BatchChecks | None
) -> dict[str, list[dict[str, Any]]]:
    """`admission`, found once in a batch (each run is given its own copy, which `_prepare` extends)."""
    if checks is None:
        return admission(workspace, selected)
    key = ("admission", id(workspace), *(w.workflow_id for w in selected))
    return dict(checks.once(key, lambda: admission(workspace, selected)))


def admission(workspace: Workspace, selected: list[Workflow]) -> dict[str, list[dict[str, Any]]]:
    """The selected workflows the validator's findings stop (`validate/admission.py`), with those
    findings as problems."""
    from .validate.admission import admit

    found = admit(workspace, selected)
    return {
        workflow_id: [problem_of(finding) for finding in findings]
        for workflow_id, findings in found.refused.items()
    }


def _own_client(runtime: Runtime, prepared: _Prepared) -> Any:
    replay = prepared.options.http_replay
    if replay is not None:  # `--replay-http`: answered from a HAR file, nothing sent
        return runtime.new_client(prepared.options.timeout, replay=replay)
    if not runtime.blocking and "operation" not in prepared.kinds:  # messages (and workflows) only
        return _OnFirstUse(lambda: runtime.new_client(prepared.options.timeout))
    for base in prepared.bases:  # (a loop, not `any` over a generator: each row of a batch asks)
        if base.startswith("https:"):
            from .sources.tls import default_tls_context

            default_tls_context().prefetch()  # read the CAs while httpx is imported and set up
            break
    return runtime.new_client(prepared.options.timeout)


class _OnFirstUse:
    """The run's HTTP client, made when something first uses it: a run that reaches no operation (an
    event-driven workflow) imports no httpx and builds no TLS context unless it fetches (a token)."""

    def __init__(self, make: Any) -> None:
        self._make = make
        self._client: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._client is None:
            self._client = self._make()
        return getattr(self._client, name)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


def _blocking_client(runtime: Runtime, prepared: _Prepared) -> Any:
    """The blocking run's client, or None when this httpx's transports cannot hold the run's time
    limits (`http/bounded.py`, checked by a test against the installed httpx): then asyncio runs it."""
    try:
        return _own_client(runtime, prepared)
    except Exception as exc:
        from .http.bounded import Unbounded

        if isinstance(exc, Unbounded):
            return None
        raise


async def _execute(
    prepared: _Prepared, deadline: Deadline | None, runtime: Runtime, client: Any, result: RunResult
) -> RunResult:
    """The run itself, on `runtime`, with the caller's client, else `client`, else one made here; the
    workflows' results go into `result` as they end (and what ran, if the run is interrupted)."""
    opts = prepared.options
    owned = opts.client is None
    workspace, selected = prepared.workspace, prepared.selected
    tracker = opened = None  # the run's journal (executor/journal/), and the one it opened from a path
    try:
        if opts.journal is not None or opts.idempotency_header is not None:
            from .executor.journal import tracker_for  # a journal of another run: refused, nothing sent

            tracker, opened = tracker_for(opts, workspace, selected, prepared.given, prepared.kinds)
        if owned and client is None:
            client = _own_client(runtime, prepared)
        elif not owned:
            client = opts.client
        # the deadline armed at the start
        runner = Runner(opts, client, prepared.given, deadline, root=workspace, runtime=runtime,
                        operation_facts=prepared.facts)  # fmt: skip
        runner.journal = tracker
        try:
            run_all = _run_all(runner, workspace, selected, prepared.inputs, prepared.refused, result)
            backstop = _backstop(runner.deadline.remaining())
            await (run_all if backstop is None else runtime.within(run_all, backstop))
        except TimeoutError:  # only if the runner's own deadline checks did not end the run
            _fail_unfinished(result, selected, runner.deadline.message)
        except BaseException as exc:
            if is_interrupt(exc):  # the workflow in flight, as far as it went (interrupts.py)
                result.interrupted = True
                unfinished = runner.take_interrupted_run()
                if unfinished is not None and all(w is not unfinished for w in result.workflows):
                    result.workflows.append(unfinished)
            raise
        finally:
            await runner.close()
        return result
    finally:
        try:
            if owned and client is not None:
                await client.aclose()
        finally:
            if opened is not None:
                opened.close()


async def _run_all(
    runner: Runner,
    workspace: Workspace,
    selected: list[Workflow],
    inputs: dict[str, dict[str, Any]],
    refused: dict[str, list[dict[str, Any]]],
    result: RunResult,
) -> None:
    # every criterion, selector and replacement evaluated in the run ends at its deadline (budget.py)
    with budget.deadline(runner.deadline.bound()):
        for workflow in selected:
            problems = refused.get(workflow.workflow_id)
            if problems is not None:
                result.workflows.append(WorkflowResult.not_run(workflow.workflow_id, problems))
                continue
            ran = runner.selected_result(workspace, workflow)  # as a dependency of one before
            if ran is None:
                inputs_of = inputs[workflow.workflow_id]  # validated by the preflight
                ran, _ = await runner.run_workflow(
                    workspace, workflow, inputs_of, validated=True, selected=True
                )
            result.workflows.append(ran)


def _backstop(remaining: float | None) -> float | None:
    """The run deadline plus a grace period: the runner stops itself at the deadline (failing the step in
    flight with its cause); this outer timeout only guarantees the bound if something did not."""
    return None if remaining is None else remaining + DEADLINE_GRACE


def _fail_unfinished(result: RunResult, selected: list[Workflow], message: str) -> None:
    """The workflows cut off by the backstop are reported failed (their steps so far are not known)."""
    for workflow in selected[len(result.workflows) :]:
        failed = WorkflowResult(workflow.workflow_id)
        failed.fail("", message)
        result.workflows.append(failed)


def plan_requests(
    source: Source,
    workflows: str | Iterable[str] | None = None,
    inputs: dict[str, Any] | None = None,
    *,
    options: RunOptions | None = None,
    **option_values: Any,
) -> list[PlannedRequest]:
    """The requests a run would send down the linear path (each step assumed to pass), built by the
    engine's own request code and never sent; see `executor/dry_run.py`. Raises like `run` on document
    problems and invalid inputs."""
    coroutine = aplan_requests(source, workflows, inputs, options=options, **option_values)
    planned: list[PlannedRequest] = sync_call(coroutine, "plan_requests", "aplan_requests")
    return planned


async def aplan_requests(
    source: Source,
    workflows: str | Iterable[str] | None = None,
    inputs: dict[str, Any] | None = None,
    *,
    options: RunOptions | None = None,
    **option_values: Any,
) -> list[PlannedRequest]:
    opts = options or RunOptions(**option_values)
    with arm(Deadline(opts.deadline)):
        prepared = _prepare(source, workflows, inputs, opts)
    from .executor.dry_run import PlannedRequest, Planner, offline_client  # only dry runs need it

    token_urls: list[str] = []
    async with offline_client(token_urls) as client:
        planner = Planner(prepared.options, client, prepared.given, token_urls, root=prepared.workspace)
        for workflow in prepared.selected:
            problems = prepared.refused.get(workflow.workflow_id)
            if problems is not None:  # what a run would say of it: not run, nothing sent
                error = WorkflowResult.not_run(workflow.workflow_id, problems).error or {}
                planner.planned.append(
                    PlannedRequest(workflow.workflow_id, "", "not_run", error=error["message"])
                )
                continue
            await planner.workflow(prepared.workspace, workflow, prepared.inputs[workflow.workflow_id])
    return planner.planned
