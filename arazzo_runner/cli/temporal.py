"""`arazzo worker --temporal HOST:PORT` and `arazzo run ... --temporal HOST:PORT`: runs on Temporal
workers (the `[temporal]` extra; arazzo_runner/temporal/, docs/scale.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import UsageError


def add_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--temporal",
        metavar="HOST:PORT",
        help="run on Temporal workers (`arazzo worker`): one workflow execution per run or row; the "
        "results are written here as a local run's",
    )
    add_queue_flags(run)


def add_queue_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--namespace", default=None, metavar="N", help="Temporal namespace (default: default)"
    )
    parser.add_argument("--task-queue", default=None, metavar="Q", help="task queue (default: arazzo)")


def register(commands: Any) -> None:
    worker = commands.add_parser("worker", help="run a Temporal worker for `arazzo run --temporal`")
    worker.add_argument("--temporal", required=True, metavar="HOST:PORT", help="the Temporal service")
    add_queue_flags(worker)
    worker.add_argument(
        "--max-exchanges", type=int, default=None, metavar="N",
        help="HTTP exchanges this worker sends at once (default: Temporal's, 1000)",
    )  # fmt: skip
    worker.add_argument(
        "--rate", action="append", type=_rate, default=[], metavar="HOST=N/s",
        help="start at most N requests a second to HOST from this worker (per worker: N workers, N times "
        "the rate; `arazzo run --temporal --rate` is one rate over all the workers)",
    )  # fmt: skip
    worker.set_defaults(handler=worker_command)


def _rate(text: str) -> tuple[str, float]:
    from .limit_flags import _rate as parsed

    return parsed(text)


def check_flags(args: argparse.Namespace) -> None:
    """Flags a run on Temporal cannot honour, refused before anything is submitted."""
    if not getattr(args, "temporal", None):
        if args.namespace is not None or args.task_queue is not None:
            raise UsageError("--namespace and --task-queue go with --temporal")
        return
    _temporal_available()
    refused = [
        ("auth", "--auth: credentials are not sent to Temporal; give them to the workers "
                 "(ARAZZO_AUTH_* in their environment)"),
        ("journal", "--journal: Temporal's history is the journal of a run on Temporal"),
        ("deadline", "--deadline is not supported with --temporal (a workflow reads no wall clock)"),
        ("dry_run", "--dry-run sends nothing: run it without --temporal"),
        ("rerun_failed", "--rerun-failed is not supported with --temporal yet"),
    ]  # fmt: skip
    for name, message in refused:
        if getattr(args, name, None):
            raise UsageError(message)


def _temporal_available() -> None:
    try:
        import temporalio  # noqa: F401
    except ImportError:
        raise UsageError(
            "--temporal needs the temporal extra: pip install 'arazzo-engine[temporal]'"
        ) from None


def queue(args: argparse.Namespace) -> tuple[str, str]:
    from ..temporal.identity import DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE

    return args.namespace or DEFAULT_NAMESPACE, args.task_queue or DEFAULT_TASK_QUEUE


def run_one(args: argparse.Namespace, workspace: Any, inputs: dict[str, Any], options: Any) -> Any:
    """The run's result, run by a worker."""

    async def one() -> Any:
        submit = await submitter(args)
        return await submit(workspace, inputs, options, None)

    import asyncio  # here: a local run of the blocking path imports no asyncio (test_run_paths)

    result = asyncio.run(one())
    replay_events(result, options.on_event)
    return result


async def submitter(args: argparse.Namespace) -> Any:
    """An async function running one run (or row: its `line`) as a workflow execution, returning its
    `RunResult`; one connection for all of them."""
    import secrets

    from ..temporal.submit import connect, outcome, run_spec, start

    namespace, task_queue = queue(args)
    client = await connect(args.temporal, namespace)
    batch = f"arazzo-{secrets.token_hex(6)}"  # the executions' ids: this batch's, then the row or run
    count = [0]

    async def submit(workspace: Any, inputs: dict[str, Any], options: Any, line: int | None) -> Any:
        if count[0] == 0:
            _refuse_messages(workspace)
        count[0] += 1
        spec = run_spec(workspace.file, args.workflows, inputs, options)
        name = f"{batch}-{count[0]}" if line is None else f"{batch}-row{line}"
        return await outcome(await start(client, spec, task_queue, name))

    return submit


def replay_events(result: Any, on_event: Any) -> None:
    """The run's events, told from its result once it is over (the steps ran on a worker): the console
    prints each workflow and step as a local run does, after the fact; a retry's own line is not told
    (its wait and reason are in the step's result)."""
    if on_event is None:
        return
    for workflow in result.workflows:
        _workflow_events(workflow, 0, on_event)


def _workflow_events(workflow: Any, depth: int, on_event: Any) -> None:
    from ..executor.events import (
        RequestSent,
        ResponseReceived,
        StepFinished,
        StepStarted,
        WorkflowFinished,
        WorkflowStarted,
    )

    for dependency in workflow.dependencies:
        _workflow_events(dependency, depth + 1, on_event)
    on_event(WorkflowStarted(workflow.workflow_id, depth))
    for step in workflow.steps:
        on_event(StepStarted(workflow.workflow_id, step.step_id, depth))
        for exchange in step.exchanges:
            on_event(RequestSent(step.step_id, exchange))
            on_event(ResponseReceived(step.step_id, exchange))
        for child in [*step.earlier_workflows, *([step.workflow] if step.workflow is not None else [])]:
            _workflow_events(child, depth + 1, on_event)
        on_event(StepFinished(workflow.workflow_id, step, depth))
    on_event(WorkflowFinished(workflow, depth))


def _refuse_messages(workspace: Any) -> None:
    """AsyncAPI steps would publish and receive from inside the workflow: not on Temporal yet."""
    for workflow in workspace.document.workflows:
        if any(step.target_kind == "asyncapi" for step in workflow.steps):
            raise UsageError(
                f"--temporal: workflow '{workflow.workflow_id}' has AsyncAPI steps, which do not run on "
                "Temporal workers yet; run it without --temporal"
            )


def worker_command(args: argparse.Namespace) -> int:
    _temporal_available()
    from ..temporal.worker import serve

    namespace, task_queue = queue(args)

    def ready() -> None:
        print(f"arazzo worker: polling task queue {task_queue!r} of {args.temporal} ({namespace})",
              file=sys.stderr, flush=True)  # fmt: skip

    import asyncio

    asyncio.run(serve(args.temporal, namespace, task_queue, ready, args.max_exchanges, dict(args.rate)))
    return 0
