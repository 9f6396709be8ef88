"""How a run waits: on asyncio, or blocking its caller's thread.

The engine is one async core: the scheduler, a step's attempts and retries, the step kinds
(`scheduler.py`, `stepping.py`, `steps/`) are coroutines whoever calls them. What differs between callers
is only how the run waits, and the `Runtime` the run is given is the one place where it does:

| what                                   | `AsyncioRuntime`          | `BlockingRuntime`                     |
|----------------------------------------|---------------------------|---------------------------------------|
| an HTTP exchange                       | `httpx.AsyncClient`       | `httpx.Client` (`http/run_client.py`) |
| its time limit (step `timeout`, the    | `asyncio.wait_for`        | each socket operation gets at most    |
| run deadline)                          | cancels it                | the time left (`http/bounded.py`)     |
| a retry's wait                         | `asyncio.sleep`           | `time.sleep`                          |
| a step waiting beside the next ones    | an asyncio task           | none: such a run takes asyncio        |
| steps side by side (`--parallel`)      | asyncio tasks             | none: such a run takes asyncio        |

None of the blocking runtime's awaits suspends, so `drive` runs the whole coroutine with one
`send(None)`: no event loop and no asyncio import (~15 ms of a one-step `arazzo run`), and httpx's sync
client. A synchronous caller (`run()`, `arazzo run`) gets it when the run can have it (`blocking_allowed`):
the run makes its own client, and no step it can reach is an AsyncAPI step (message transports are
asyncio clients). `arun` always runs on asyncio. `ARAZZO_RUN_PATH=asyncio` sends synchronous callers to
asyncio too: the test suite runs both ways (`pytest --run-path asyncio`).
"""

from __future__ import annotations

import contextvars
import os
import sys
import time
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

from ..errors import UsageError

T = TypeVar("T")
_TIMEOUT_CONTEXT = sys.version_info >= (3, 11)  # asyncio.timeout()
PATH_VARIABLE = "ARAZZO_RUN_PATH"  # `asyncio`: synchronous callers run on asyncio too; unset/`auto`: choose


class Runtime:
    """How a run waits (see the module's table); one instance per run (but `PooledRuntime`)."""

    name = "runtime"
    blocking = False

    def new_client(self, timeout: float | None, **options: Any) -> Any:
        """A pooled HTTP client for the run (closed by whoever made it, with `aclose`)."""
        from ..http.transport import new_client

        return new_client(timeout, blocking=self.blocking, **options)

    async def sleep(self, seconds: float) -> None:
        raise NotImplementedError

    async def within(self, awaitable: Awaitable[T], seconds: float | None) -> T:
        """`awaitable`'s result; TimeoutError when it has not completed after `seconds` (None: no limit,
        the awaitable awaited as it is, on every runtime: a caller on a step's path awaits it itself then,
        one coroutine less for every resume of what it awaits)."""
        raise NotImplementedError

    def spawn(self, coroutine: Coroutine[Any, Any, T]) -> Any:
        """Start `coroutine` beside the caller; the task is awaited later (or cancelled)."""
        raise NotImplementedError

    async def first_done(self, tasks: list[Any]) -> list[Any]:
        """Wait until at least one of `tasks` (`spawn`'s) is done; the done ones, in `tasks` order."""
        raise NotImplementedError

    def slots(self, count: int) -> Any:
        """A semaphore of `count` (`async with` it): the requests a run has in flight at once."""
        raise NotImplementedError


class AsyncioRuntime(Runtime):
    name = "asyncio"

    async def sleep(self, seconds: float) -> None:
        import asyncio

        await asyncio.sleep(seconds)

    async def within(self, awaitable: Awaitable[T], seconds: float | None) -> T:
        if seconds is None:  # (before the import: an import statement costs ~1 µs a call, 3 a row)
            return await awaitable
        import asyncio

        if seconds <= 0:  # no time left: not started (as wait_for cancels it before it runs)
            close = getattr(awaitable, "close", None)
            if close is not None:
                close()
            raise TimeoutError
        if _TIMEOUT_CONTEXT:  # 3.11: no task of its own for the awaitable (wait_for makes one)
            async with asyncio.timeout(seconds):
                return await awaitable
        try:
            return await asyncio.wait_for(awaitable, seconds)
        except asyncio.TimeoutError:  # the builtin TimeoutError from 3.11, another class before
            raise TimeoutError from None

    def spawn(self, coroutine: Coroutine[Any, Any, T]) -> Any:
        import asyncio

        return asyncio.ensure_future(coroutine)

    async def first_done(self, tasks: list[Any]) -> list[Any]:
        import asyncio

        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        return [task for task in tasks if task in done]

    def slots(self, count: int) -> Any:
        import asyncio

        return asyncio.Semaphore(count)


class PooledRuntime(AsyncioRuntime):
    """asyncio, with one connection pool under the clients of every run it is given to: a server's tool
    calls (`arazzo mcp`), the rows of `arazzo run --inputs-file`, each still a run of its own with its
    own cookie jar (http/run_client.py, `shared`), whose requests to an API an earlier run reached reuse
    its open connection instead of connecting (and shaking hands over TLS) again: ~0.7 ms of CPU a call
    for one plain-http request here. The pool takes and gives back connections in constant time however
    many requests are in flight (http/lean_pool.py). A client
    with TLS settings of its own (a step's client certificate) has its own connections, as in any run.
    Shared by many runs, unlike the other runtimes; `aclose` closes the pool.

    The environment's proxies (`HTTP_PROXY`, `ALL_PROXY`, ...) are read once, when the runtime is made:
    a client given a transport ignores them (httpx), so when any is set every run's client routes by
    them with pools of its own, as a run's client does. Reading them at each client cost ~50 µs a call
    (the whole environment decoded), for a server whose environment is set when it starts."""

    def __init__(self) -> None:
        self._pool: Any = None
        self._clients: dict[float | None, Any] = {}  # one httpx client per run timeout, over the pool
        self._view: Any = None  # makes a run's client (`http.run_client.run_view`), once a first is made
        self._proxied = _environment_proxies()

    def new_client(self, timeout: float | None, **options: Any) -> Any:
        if options or self._proxied:  # pools of its own: the environment's proxies, TLS settings
            return super().new_client(timeout, **options)
        client = self._clients.get(timeout)
        if client is None:
            from ..http.run_client import run_view
            from ..http.transport import shared_client, shared_pool

            if self._pool is None:
                self._pool = shared_pool()
            client = self._clients[timeout] = shared_client(timeout, self._pool)
            # a run's client over it, the function kept rather than imported for each run: an import
            # statement costs ~2 µs a call
            self._view = run_view
        return self._view(client)

    async def aclose(self) -> None:
        self._clients.clear()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close_pool()


def _environment_proxies() -> bool:
    """Whether the environment names a proxy (`HTTP_PROXY`, `ALL_PROXY`, ...: what httpx reads)."""
    import urllib.request

    return any(scheme != "no" for scheme in urllib.request.getproxies())


class BlockingRuntime(Runtime):
    name = "blocking"
    blocking = True

    async def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def within(self, awaitable: Awaitable[T], seconds: float | None) -> T:
        if seconds is None:
            return await awaitable
        from ..http.bounded import limited

        with limited(seconds) as limit:
            try:
                return await awaitable
            except Exception:
                if limit.fired:  # the limit cut a socket operation: the limit is the cause, as on asyncio
                    raise TimeoutError from None
                raise

    def spawn(self, coroutine: Coroutine[Any, Any, T]) -> Any:
        coroutine.close()
        raise RuntimeError("a blocking run cannot run a step beside others (AsyncAPI steps take asyncio)")


class Suspended(RuntimeError):
    """A coroutine driven without an event loop waited for something only a loop can deliver."""


def drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine`, whose every wait blocks (`BlockingRuntime`), to its end without an event loop, in
    a copy of the caller's context (as `asyncio.run` does: what the run sets there stays there)."""
    try:
        yielded = contextvars.copy_context().run(coroutine.send, None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise Suspended(f"the run waited for {yielded!r}, which needs an event loop")


def blocking_allowed(own_client: bool, kinds: set[str]) -> bool:
    """Whether a synchronous caller's run may block its thread instead of running on asyncio: it makes
    its own client and reaches no AsyncAPI step (`kinds`: the step target kinds it can reach)."""
    wanted = os.environ.get(PATH_VARIABLE, "").strip().lower() or "auto"
    if wanted not in ("auto", "asyncio"):
        from ..errors import UsageError

        raise UsageError(f"{PATH_VARIABLE}={wanted!r}: expected 'auto' (the default) or 'asyncio'")
    return wanted == "auto" and own_client and kinds <= {"operation", "workflow"}


def sync_call(coroutine: Any, name: str, async_name: str) -> Any:
    """Run `coroutine` to completion from synchronous code; inside a running loop, say what to use.

    The probe runs apart from `asyncio.run`: an error the run raises must not carry the probe's "no
    running event loop" RuntimeError as its `__context__` (a traceback would show it as the cause)."""
    if loop_running():
        coroutine.close()  # never awaited: close it so Python does not warn
        raise UsageError(
            f"{name}() was called inside a running event loop; use `await {async_name}(...)` there"
        )
    import asyncio

    return asyncio.run(coroutine)


def run_on_asyncio(coroutine: Coroutine[Any, Any, Any]) -> None:
    """`asyncio.run(coroutine)`, its result dropped (the caller holds it already: the run's `RunResult`).

    Why not `asyncio.run` itself: on the main thread it installs a SIGINT handler holding the main task,
    and on the way out `signal.getsignal` and `signal.signal` each try that handler as a
    `signal.Handlers` member, whose ValueError formats the handler's repr, with the finished task's and
    its result's: the whole result, twice a run (~0.8 ms of CPU for ten steps, growing with the run).
    The task's result here is None."""
    import asyncio

    asyncio.run(_dropping(coroutine))


async def _dropping(coroutine: Coroutine[Any, Any, Any]) -> None:
    await coroutine


def loop_running() -> bool:
    asyncio = sys.modules.get("asyncio")  # not imported: no event loop can be running
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
