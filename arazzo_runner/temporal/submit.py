"""The client side of a run on Temporal (`arazzo run --temporal HOST:PORT`, and the library): one workflow
execution per run or per row of `--inputs-file`, their results gathered back into `RunResult`s.

What a workflow execution receives: the document's absolute path and a digest of its content (each
worker reads its own copy, and refuses one that differs), the selected workflows, the inputs, and the
run's options that are plain values (servers, limits, validation, trace), and its `--rate`s (also in
the execution's memo, where workers find the rated task queues: `rated.py`). Never credentials: `--auth`
is refused with `--temporal`, the workers resolve `ARAZZO_AUTH_*` from their own environment.
"""

from __future__ import annotations

import os
from typing import Any

from .identity import DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE, WORKFLOW, document_digest

# the RunOptions fields a workflow execution is given (plain values); the others stay with the client
PASSED_OPTIONS = (
    "servers",
    "server_variables",
    "timeout",
    "max_steps",
    "max_retry_delay",
    "max_body",
    "max_attempts",
    "max_retry_total",
    "validate_requests",
    "validate_responses",
    "contract",
    "trace",
    "parallel",
    "max_loop_items",
    "idempotency_header",
)


def run_spec(path: str, workflows: Any, inputs: dict[str, Any], options: Any) -> dict[str, Any]:
    """A workflow execution's input."""
    if getattr(options, "http_replay", None) is not None:
        from ..errors import UsageError

        raise UsageError("http_replay: a run on Temporal sends from its workers; replay it locally")
    path = os.path.abspath(path)
    chosen = [workflows] if isinstance(workflows, str) else (list(workflows) if workflows else None)
    passed = {name: getattr(options, name) for name in PASSED_OPTIONS}
    rates = dict(options.rate.rates) if getattr(options, "rate", None) is not None else {}
    return {"document": path, "digest": document_digest(path), "workflows": chosen, "inputs": inputs,
            "options": passed, "rates": rates}  # fmt: skip


async def connect(address: str, namespace: str = DEFAULT_NAMESPACE) -> Any:
    from temporalio.client import Client

    from .codec import data_converter

    try:
        return await Client.connect(address, namespace=namespace, data_converter=data_converter())
    except Exception as exc:
        from ..errors import UsageError

        raise UsageError(f"--temporal {address}: cannot connect: {exc}") from None


async def start(client: Any, spec: dict[str, Any], task_queue: str, workflow_id: str) -> Any:
    """Start one workflow execution; its handle."""
    from .rated import RATES_MEMO

    memo = {RATES_MEMO: spec["rates"]} if spec.get("rates") else None  # how workers find rated queues
    return await client.start_workflow(WORKFLOW, spec, id=workflow_id, task_queue=task_queue, memo=memo)


async def outcome(handle: Any) -> Any:
    """The execution's `RunResult` (a worker's refusal of the run is a usage error naming it)."""
    from ..errors import UsageError
    from .results import decode

    answer = await handle.result()
    if not isinstance(answer, dict) or ("result" not in answer and "error" not in answer):
        raise UsageError(f"Temporal workflow {handle.id}: not a result of this version")
    if "error" in answer:
        raise UsageError(f"Temporal workflow {handle.id}: {answer['error']}")
    return decode(answer["result"])


async def arun_on_temporal(
    document: str | os.PathLike[str],
    workflows: str | list[str] | None = None,
    inputs: dict[str, Any] | None = None,
    *,
    address: str,
    namespace: str = DEFAULT_NAMESPACE,
    task_queue: str = DEFAULT_TASK_QUEUE,
    options: Any = None,
    workflow_id: str | None = None,
) -> Any:
    """The library's way to run on Temporal workers: `arun`'s result for the document at `document` (a
    path the workers can read), run by a worker of `task_queue`. `options`: a `RunOptions` whose plain
    fields (`PASSED_OPTIONS`) the workers use, and whose `rate` (`http.rate.RateLimits`) is one rate over
    all the workers (`rated.py`); credentials are the workers' own (docs/scale.md)."""
    import secrets

    from ..executor.options import RunOptions

    client = await connect(address, namespace)
    spec = run_spec(os.fspath(document), workflows, dict(inputs or {}), options or RunOptions())
    name = workflow_id or f"arazzo-{secrets.token_hex(6)}-1"
    return await outcome(await start(client, spec, task_queue, name))
