"""The Temporal workflow of one run (one row of `--inputs-file`): the engine itself, run inside the
workflow, with each HTTP exchange an activity (`exchange.py`).

Why the engine runs in the workflow: a run is deterministic given the answers it gets (the journal's
premise, docs/semantics.md *Resuming a run*): the same answers, the same steps, criteria, goto and retry
decisions. Temporal replays a workflow by running its code again with the activities' results from its
history, which is exactly what `--journal` does with its file. The step loop is the engine's own, so
Arazzo's semantics are the local run's, not a re-implementation.

How: the run's `journal` is a `Tracker` whose `send` executes the exchange activity instead of
sending. A retry's wait (`retryAfter`, a Retry-After header) is the runtime's `asyncio.sleep`, which
Temporal's workflow event loop turns into a durable timer: it is held by the service, no worker needs
to run while it waits. A step's `timeout` is the activity's schedule-to-close timeout (start-to-close
for an exchange to a host of the run's `--rate`: its wait in its rated queue is not the step's).

The engine is not written for Temporal's sandbox (it reads files, imports lazily), so the workflow runs
unsandboxed (`UnsandboxedWorkflowRunner`), and deterministic by construction: the wall clock it reads
only stamps durations in the result; no decision reads it (a run `--deadline`, which does, is refused
by the client). Deadlock detection is off (`debug_mode`): loading a big document is CPU, not a deadlock.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

from ..executor.journal.scope import Tracker
from .exchange import ACTIVITY, HEARTBEAT_TIMEOUT, request_payload, response_row
from .identity import WORKFLOW, document_digest

NO_STEP_TIMEOUT = timedelta(hours=1)  # an exchange with no step timeout: at most this per attempt


class ActivityTracker(Tracker):
    """The run's exchanges as activities; positions are named as the journal names them (the activity's
    summary), and idempotency keys (`--idempotency-header`) derive from the workflow's id."""

    def __init__(
        self, run_id: str, header: str | None, sealed: bool, rates: dict[str, float] | None = None
    ) -> None:
        super().__init__(None, run_id, "", header)
        self.sealed = sealed  # payloads are encrypted (ARAZZO_TEMPORAL_KEY): credentials may go in them
        self.rates = rates or {}  # `arazzo run --temporal --rate`: host -> requests a second, shared

    def _queue(self, url: str) -> tuple[str | None, bool]:
        """The task queue of an exchange to `url` (None: the run's own) and whether it is rated: a host
        given `--rate` has a queue of its own, which the service dispatches at the rate (`exchange.py`)."""
        from ..http.rate import rated_host
        from .exchange import poll_rated, rated_queue

        host = rated_host(url, self.rates) if self.rates else None
        if host is None:
            return None, False
        queue = rated_queue(workflow.info().task_queue, host, self.rates[host])
        poll_rated(queue, self.rates[host])  # this worker polls it (and any other that runs such a run)
        return queue, True

    def replays_next(self) -> bool:
        return False  # a retry's wait is a timer: Temporal skips it itself when it replays

    async def send(
        self, send: Any, request: Any, client: Any, max_body: int, concurrent: bool = False, **limits: Any
    ) -> Any:
        from ..executor.journal.replay import response_of, store_cookies
        from ..executor.journal.scope import _SCOPE
        from ..http.transport import TransportError

        if request.tls is not None:
            raise TransportError("a client certificate (mutualTLS) cannot be sent by a Temporal worker yet")
        cookie = _cookie_header(client, request)  # a credential by name, as every writer masks it
        if not self.sealed and (cookie or _carries_secret(request, limits.get("secrets") or ())):
            what = "a cookie of the run's jar" if cookie else "a credential"
            raise TransportError(
                f"request not sent: it carries {what}, which would enter Temporal's history in "
                "clear; set ARAZZO_TEMPORAL_KEY (the same on the workers and the client) to encrypt it"
            )
        scope = _SCOPE.get() or self.root
        scope.sends += 1
        payload = request_payload(request, cookie, limits.get("timeout"), max_body, limits)
        step_limit = limits.get("limit")  # applied by the activity; the service's timeout is the backstop
        queue, rated = self._queue(request.url)
        # a rated exchange may wait in its queue for its turn: as a local run's rate wait, that wait is
        # not the step's, so its backstop counts from the start (start-to-close), not from the schedule
        backstop = None if step_limit is None else timedelta(seconds=step_limit + HEARTBEAT_TIMEOUT)
        try:
            answer = await workflow.execute_activity(
                ACTIVITY,
                payload,
                task_queue=queue,
                summary=f"{scope.key}@{scope.sends} {request.method}",
                schedule_to_close_timeout=None if rated else backstop,
                start_to_close_timeout=NO_STEP_TIMEOUT
                if step_limit is None
                else (backstop if rated else None),
                heartbeat_timeout=timedelta(seconds=HEARTBEAT_TIMEOUT),
                retry_policy=RetryPolicy(maximum_attempts=0, non_retryable_error_types=["ValueError"]),
            )
        except ActivityError as exc:  # the step's timeout passed (or the activity failed)
            raise TransportError(
                limits.get("timeout_message") or f"the exchange failed: {exc.cause}"
            ) from None
        if answer.get("failure") is not None:  # a transport failure, reported by the activity as a value
            raise TransportError(str(answer["failure"]))
        response = response_of(response_row(answer), max_body)
        store_cookies(client, request, response)
        return response


def _carries_secret(request: Any, secrets: Any) -> bool:
    """Whether the request holds a credential the engine added or a value derived from one (what every
    writer prints as `***`): its secrets found in the URL, a header or the body."""
    if request.shown is not None:
        return True
    content = request.content or b""
    for secret in secrets:
        if not secret:
            continue
        if secret in request.url or any(secret in value for _, value in request.headers):
            return True
        if content and secret.encode() in content:
            return True
    return False


def _cookie_header(client: Any, request: Any) -> str | None:
    """The Cookie header the run's cookie jar gives this request (httpx would add it when sending)."""
    cookies = getattr(client, "cookies", None)
    if not cookies:
        return None
    import httpx

    probe = httpx.Request(request.method, request.url)
    cookies.set_cookie_header(probe)
    return probe.headers.get("cookie")


def _workflow_client() -> Any:
    """The run's client inside the workflow: it holds the cookie jar; it never sends (the exchanges are
    activities). An OAuth2 token request, which would be sent from the workflow, fails saying why."""
    import httpx

    from ..http.run_client import RunClient

    class WorkflowClient(RunClient):
        async def post(self, url: str, **options: Any) -> Any:
            raise httpx.TransportError("not made on Temporal workers yet (an OAuth2 token request)")

        def stream(self, method: str, url: str, **options: Any) -> Any:
            raise RuntimeError("a run on Temporal sends its exchanges as activities")

    # a transport that never sends and no proxies from the environment: httpx would otherwise build an
    # SSL context for each run (loading the CA bundle: ~60 of the 110 ms CPU a worker spent a 3-step row)
    return WorkflowClient(
        httpx.AsyncClient(follow_redirects=False, transport=_no_transport(), trust_env=False)
    )


def _no_transport() -> Any:
    """The workflow client's transport: a run on Temporal sends nothing from its workflow."""
    import httpx

    class NoTransport(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            raise httpx.TransportError("a run on Temporal sends its exchanges as activities")

    return NoTransport()


_WORKSPACES: dict[tuple[str, str], Any] = {}  # (path, digest) -> the loaded document, per worker process


@workflow.defn(name=WORKFLOW, sandboxed=False)
class ArazzoRun:
    @workflow.run
    async def run(self, spec: dict[str, Any]) -> dict[str, Any]:
        from ..api import arun
        from ..errors import ArazzoError
        from ..executor.options import RunOptions
        from ..masking.secrets import Masker
        from .results import encode

        options = RunOptions()
        try:
            workspace = _workspace(spec["document"], spec.get("digest", ""))
            options = RunOptions(**spec.get("options", {}))
            options.client = _workflow_client()
            options.environ = os.environ  # credentials: the worker's own ARAZZO_AUTH_*, never the client's
            info = workflow.info()
            sealed = bool(os.environ.get("ARAZZO_TEMPORAL_KEY"))
            options.journal = ActivityTracker(
                f"{info.workflow_id}", options.idempotency_header, sealed, spec.get("rates")
            )
            result = await arun(workspace, spec.get("workflows"), spec.get("inputs") or {}, options=options)
        except ArazzoError as exc:
            return {"error": Masker.over(options.secrets).text(str(exc))}
        except Exception as exc:  # the worker's own failure: said to the client, not retried for ever
            failure = f"the worker failed: {type(exc).__name__}: {exc}"
            return {"error": Masker.over(options.secrets).text(failure)}
        return {"result": encode(result, Masker.over(options.secrets))}


def _workspace(path: str, digest: str) -> Any:
    """The document at `path` as this worker has it, checked to be the client's (same content digest)."""
    from ..api import load
    from ..errors import UsageError

    key = (path, digest)
    found = _WORKSPACES.get(key)
    if found is None:
        mine = document_digest(path)
        if digest and mine != digest:
            raise UsageError(
                f"{path}: the worker's copy differs from the client's (deploy the same document)"
            )
        found = _WORKSPACES[key] = load(path)
    return found
