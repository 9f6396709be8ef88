"""The runtimes of a run (executor/runtime.py): `drive` runs a coroutine that never suspends, each
runtime waits its own way, and `blocking_allowed` decides which path a synchronous caller's run takes."""

from __future__ import annotations

import asyncio
import contextvars
import time

import pytest

from arazzo_runner.errors import UsageError
from arazzo_runner.executor.runtime import (
    AsyncioRuntime,
    BlockingRuntime,
    Suspended,
    blocking_allowed,
    drive,
)
from arazzo_runner.http import bounded

MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="outside")


def test_drive_returns_what_the_coroutine_returns_and_raises_what_it_raises() -> None:
    async def inner(value: int) -> int:
        return value * 2

    async def outer() -> int:
        return await inner(3) + await inner(4)

    assert drive(outer()) == 14

    async def failing() -> None:
        await inner(1)
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        drive(failing())


def test_drive_refuses_a_coroutine_that_waits_for_an_event_loop() -> None:
    class Later:
        def __await__(self):
            yield "a future"

    async def waits() -> None:
        await Later()

    with pytest.raises(Suspended, match="the run waited for 'a future', which needs an event loop"):
        drive(waits())


def test_drive_runs_in_a_copy_of_the_callers_context() -> None:
    async def sets() -> str:
        MARK.set("inside")
        return MARK.get()

    assert drive(sets()) == "inside"
    assert MARK.get() == "outside"


def test_the_blocking_runtime_sleeps_and_limits_without_a_loop() -> None:
    runtime = BlockingRuntime()
    started = time.process_time()

    async def work() -> str:
        await runtime.sleep(0)
        return await runtime.within(_answer(), 5)

    assert drive(work()) == "answer"
    assert time.process_time() - started < 5  # a guard against a busy wait, not a measure
    with pytest.raises(RuntimeError, match="cannot run a step beside others"):
        runtime.spawn(_answer())


async def _answer() -> str:
    return "answer"


def test_a_blocking_limit_that_cut_an_operation_is_a_timeout_error() -> None:
    runtime = BlockingRuntime()

    async def cut() -> None:
        limit = bounded._LIMIT.get()
        assert limit is not None
        limit.fired = True  # as the network layer marks it when a socket operation ran out of time
        raise ValueError("read timed out")

    async def failing() -> None:
        raise ValueError("not a timeout")

    with pytest.raises(TimeoutError):
        drive(runtime.within(cut(), 1.0))
    with pytest.raises(ValueError, match="not a timeout"):
        drive(runtime.within(failing(), 1.0))


def test_limits_nest_and_the_tighter_one_holds() -> None:
    with bounded.limited(10) as outer:
        with bounded.limited(100) as inner:
            assert inner.end == outer.end
        with bounded.limited(1) as tight:
            assert tight.end < outer.end
    assert bounded._LIMIT.get() is None


def test_the_asyncio_runtime_times_out_with_the_builtin_timeout_error() -> None:
    runtime = AsyncioRuntime()

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await runtime.within(asyncio.sleep(10), 0.01)
        task = runtime.spawn(_answer())
        assert await task == "answer"

    asyncio.run(main())


@pytest.mark.parametrize(
    ("value", "own_client", "kinds", "expected"),
    [
        (None, True, {"operation"}, True),
        ("auto", True, {"operation", "workflow"}, True),
        ("", True, set(), True),
        ("asyncio", True, {"operation"}, False),
        (" AsyncIO ", True, {"operation"}, False),
        (None, False, {"operation"}, False),  # the caller's client: asyncio
        (None, True, {"operation", "asyncapi"}, False),  # message steps: asyncio
    ],
)
def test_which_runs_may_block(monkeypatch, value, own_client, kinds, expected) -> None:
    if value is None:
        monkeypatch.delenv("ARAZZO_RUN_PATH", raising=False)
    else:
        monkeypatch.setenv("ARAZZO_RUN_PATH", value)
    assert blocking_allowed(own_client, kinds) is expected


def test_an_unknown_run_path_value_is_refused(monkeypatch) -> None:
    monkeypatch.setenv("ARAZZO_RUN_PATH", "threads")
    with pytest.raises(UsageError, match="expected 'auto' \\(the default\\) or 'asyncio'"):
        blocking_allowed(True, {"operation"})
