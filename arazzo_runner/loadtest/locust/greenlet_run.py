"""A user's workflow run in its own greenlet, on Locust's fast HTTP client: the load test's fast path.

Locust runs each user as a greenlet, and with the standard library patched by gevent a blocking call
waits in gevent's hub while the other users run. So a run that only blocks can run right in the user's
greenlet: the engine's one async core driven without an event loop (`executor/runtime.drive`, as
`arazzo run` drives it on a thread), its waits gevent's (`GeventRuntime`: `gevent.sleep`, a
`gevent.Timeout` for the step timeouts and the run's deadline), its requests geventhttpclient's
(`fast_http.FastClient`). No asyncio loop, no hand-over between greenlets, no httpx request models.

What it takes: gevent patched the process (Locust does, unless `LOCUST_SKIP_MONKEY_PATCH`), the workflow
reaches no AsyncAPI step (message transports are asyncio clients), and the user class did not turn it off
(`ArazzoUser.fast_http = False`, or `ARAZZO_LOAD_HTTP=httpx` in the environment); otherwise the run
goes to the asyncio loop of `bridge.py` with httpx, as before.

A run is checked once: each workflow with each row (`api.prepare_run`: admission, inputs, preflight) the
first time a user of the process runs it, not at every iteration (`Prepared`); every user's runs of it
reuse the result with the user's own options (client, event handler, secrets).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

import gevent
from gevent import monkey

from ...api import prepare_run, run_prepared
from ...executor.runtime import Runtime, drive
from ...records import replace
from .fast_http import FastClient

T = TypeVar("T")
HTTP_VARIABLE = "ARAZZO_LOAD_HTTP"  # `httpx`: every run on the asyncio loop with httpx (`bridge.py`)
BLOCKING_KINDS = frozenset({"operation", "workflow"})  # step targets a run in a greenlet can reach
USER_CACHE = 256  # prepared runs a user keeps with its own options (rows per iteration: more are remade)


class GeventRuntime(Runtime):
    """How a run in a user's greenlet waits (see `executor/runtime.py` for the others)."""

    name = "gevent"
    blocking = True

    def new_client(self, timeout: float | None, **options: Any) -> Any:
        """A client for a mutualTLS certificate (`verify`: its context); the run's own is the user's."""
        return FastClient(timeout, options.get("verify"))

    async def sleep(self, seconds: float) -> None:
        gevent.sleep(seconds)

    async def within(self, awaitable: Awaitable[T], seconds: float | None) -> T:
        if seconds is None:
            return await awaitable
        timer = gevent.Timeout(max(seconds, 0.0))
        timer.start()
        try:
            return await awaitable
        except gevent.Timeout as fired:
            if fired is not timer:
                raise
            raise TimeoutError from None
        finally:
            timer.close()

    def spawn(self, coroutine: Coroutine[Any, Any, T]) -> Any:
        coroutine.close()
        raise RuntimeError("a run in a greenlet cannot run steps side by side (AsyncAPI steps take asyncio)")


RUNTIME = GeventRuntime()


def wanted(setting: bool | None) -> bool:
    """Whether a user class's runs go in their greenlets: its `fast_http`, else `ARAZZO_LOAD_HTTP`
    (`httpx`: no), and only when the sockets are gevent's (Locust patched the process)."""
    if setting is None:
        setting = os.environ.get(HTTP_VARIABLE, "").strip().lower() != "httpx"
    return setting and monkey.is_module_patched("socket")


def fast_user(timeout: float | None) -> FastUser | None:
    """A user's fast part, or None when httpx's clients cannot be built as the engine builds them (the
    installed httpx's transports cannot hold a blocking run's limits: `http/bounded.py`)."""
    from ...http.bounded import Unbounded

    try:
        return FastUser(timeout)
    except Unbounded:
        return None


def lanes_line() -> str | None:
    """How many requests this process sent on geventhttpclient and through httpx (None: no fast user)."""
    counts = FastClient.counts
    if not any(counts.values()):
        return None
    fast, slow = counts["geventhttpclient"], counts["httpx"]
    return f"HTTP requests sent on geventhttpclient: {fast}, through httpx: {slow}"


class Prepared:
    """The runs of one plan checked so far in this process: (workflow id, row) -> `api.prepare_run`'s."""

    def __init__(self) -> None:
        self.runs: dict[tuple[str, int | None], Any] = {}

    def get(self, plan: Any, workflow_id: str, row: int | None, inputs: dict[str, Any]) -> Any:
        key = (workflow_id, row)
        found = self.runs.get(key)
        if found is None:
            found = self.runs[key] = prepare_run(
                plan.workspace, workflow_id, inputs, options=plan.new_options()
            )
        return found


class FastUser:
    """A user's part on the fast path: its client and its copies of the prepared runs."""

    __slots__ = ("client", "runs")

    def __init__(self, timeout: float | None) -> None:
        self.client = FastClient(timeout)
        self.runs: dict[tuple[str, int | None], Any] = {}

    def run(self, plan: Any, shared: Prepared, options: Any, workflow_id: str, row: int | None,
            inputs: dict[str, Any], given: bool) -> Any:  # fmt: skip
        """Run the workflow, prepared once per (workflow, row) unless a task `given` inputs of its own;
        the RunResult, or None when the run needs asyncio (`BLOCKING_KINDS`). Raises ArazzoError when
        the run cannot start (as `arun` would)."""
        own = {"client": self.client, "on_event": options.on_event, "secrets": options.secrets}
        if given:
            prepared = prepare_run(plan.workspace, workflow_id, inputs, options=replace(options, **own))
        else:
            key = (workflow_id, row)
            prepared = self.runs.get(key)
            if prepared is None:
                base = shared.get(plan, workflow_id, row, inputs)
                options.secrets.update(base.options.secrets)  # secret inputs it found (format: password)
                if len(self.runs) >= USER_CACHE:
                    self.runs.clear()
                prepared = self.runs[key] = replace(base, options=replace(base.options, **own))
        if not prepared.kinds <= BLOCKING_KINDS:
            return None
        if self.client.has_cookies():
            self.client.cookies.clear()  # each iteration starts with no cookies, as a run of `arazzo run`
        return run_prepared(prepared, RUNTIME)

    def close(self) -> None:
        drive(self.client.aclose())
