"""Shared pieces of the fuzz suite: example counts, per-input bounds, a tally of the inputs fuzzed.

Every fuzz test feeds generated input to one entry point and requires a result or an `ArazzoError`:
any other exception fails the test, and so does an input that takes longer than the per-example
deadline (a hypothesis `deadline`) or that never returns (`bounded`, a SIGALRM watchdog).

Example counts are modest so the suite stays fast in CI; `ARAZZO_FUZZ_EXAMPLES=N` runs N examples per
test instead. The number of inputs actually fuzzed is printed at the end of the run.
"""

from __future__ import annotations

import collections
import functools
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, settings

from arazzo_runner.errors import ArazzoError

EXAMPLES = int(os.environ.get("ARAZZO_FUZZ_EXAMPLES") or 0)
DEADLINE = timedelta(milliseconds=int(os.environ.get("ARAZZO_FUZZ_DEADLINE_MS") or 1000))
HANG_SECONDS = 10.0
FUZZED: collections.Counter[str] = collections.Counter()


INPUTS: collections.Counter[str] = collections.Counter()  # generated inputs, per test


def fuzz(default: int) -> Callable[[Any], Any]:
    """Decorate a `@given` test: `default` examples (or ARAZZO_FUZZ_EXAMPLES), the per-input deadline,
    and a tally of the inputs it ran on."""
    chosen = settings(
        max_examples=EXAMPLES or default,
        deadline=DEADLINE,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )

    def decorate(test: Any) -> Any:
        inner = test.hypothesis.inner_test  # hypothesis documents this hook for wrapping the body

        @functools.wraps(inner)
        def counted(*args: Any, **kwargs: Any) -> Any:
            INPUTS[test.__name__] += 1
            return inner(*args, **kwargs)

        test.hypothesis.inner_test = counted
        return chosen(test)

    return decorate


class Hang(BaseException):
    """An input that did not finish in time; a BaseException so that no `except Exception` swallows it."""


@contextmanager
def bounded(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Raise `Hang` in the main thread if the body runs longer than `seconds` (no-op elsewhere)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise Hang(f"no result after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def outcome(target: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call `function` on one fuzzed input: its result, or the `ArazzoError` it raised (returned, not
    raised). Anything else propagates and fails the test."""
    FUZZED[target] += 1
    with bounded():
        try:
            return function(*args, **kwargs)
        except ArazzoError as error:
            assert str(error), "an error must say what is wrong"
            return error


def seconds(function: Callable[[], Any], repeat: int = 5) -> float:
    """The best of `repeat` timings of `function()` (the minimum filters out scheduler noise)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        with bounded(), suppress(ArazzoError):
            function()
        best = min(best, time.perf_counter() - started)
    return best
