"""Shared pieces of the fuzz suite: example counts, per-input bounds, a tally of the inputs fuzzed.

Every fuzz test feeds generated input to one entry point and requires a result or an `ArazzoError`:
any other exception fails the test, and so does an input that uses more CPU time than the per-input
deadline (`SlowInput`) or that never returns (`bounded`, a CPU-time watchdog). CPU time of this
process, never the wall clock: other processes on a shared machine must not fail a test.

Example counts are modest so the suite stays fast in CI, and the inputs are the same on every run (the
`deterministic` hypothesis profile, tests/conftest.py); `ARAZZO_FUZZ_EXAMPLES=N` runs a random campaign
of N examples per test instead. The number of inputs actually fuzzed is printed at the end of the run.
"""

from __future__ import annotations

import collections
import functools
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from hypothesis import HealthCheck, settings

from arazzo_runner.errors import ArazzoError
from tests.cputime import interrupted_after

EXAMPLES = int(os.environ.get("ARAZZO_FUZZ_EXAMPLES") or 0)
DEADLINE = int(os.environ.get("ARAZZO_FUZZ_DEADLINE_MS") or 1000) / 1000  # CPU seconds per input
HANG_SECONDS = 10.0  # CPU seconds after which an input is taken to never return
FUZZED: collections.Counter[str] = collections.Counter()


INPUTS: collections.Counter[str] = collections.Counter()  # generated inputs, per test


def fuzz(default: int) -> Callable[[Any], Any]:
    """Decorate a `@given` test: `default` examples (or ARAZZO_FUZZ_EXAMPLES), the per-input CPU-time
    deadline, and a tally of the inputs it ran on."""
    chosen = settings(
        max_examples=EXAMPLES or default,
        deadline=None,  # hypothesis measures wall-clock time: `counted` bounds CPU time instead
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )

    def decorate(test: Any) -> Any:
        inner = test.hypothesis.inner_test  # hypothesis documents this hook for wrapping the body

        @functools.wraps(inner)
        def counted(*args: Any, **kwargs: Any) -> Any:
            INPUTS[test.__name__] += 1
            started = time.process_time()
            result = inner(*args, **kwargs)
            spent = time.process_time() - started
            if spent > DEADLINE:
                raise SlowInput(f"one input used {spent:.2f} s of CPU (deadline {DEADLINE:g} s)")
            return result

        test.hypothesis.inner_test = counted
        return chosen(test)

    return decorate


class SlowInput(AssertionError):
    """An input that returned, but used more CPU time than the per-input deadline."""


class Hang(BaseException):
    """An input that did not finish in time; a BaseException so that no `except Exception` swallows it."""


@contextmanager
def bounded(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Raise `Hang` in the main thread once the body has used `seconds` of this process's CPU time (time
    spent waiting, or in other processes, does not count; `tests/cputime.py`'s watchdog, not a CPU-time
    timer, under which `counted` read the time at the kernel's ticks only); a no-op elsewhere."""
    with interrupted_after(seconds, lambda: Hang(f"no result after {seconds} s of CPU time")):
        yield


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
    """The best of `repeat` CPU-time measurements of `function()` (the minimum filters out the noise of
    caches and frequency changes; other processes do not count at all).

    The calling thread's CPU time: while the watchdog's process-wide CPU timer is armed, Linux updates
    the process clock only at each scheduler tick (4 ms steps), the thread clock stays exact."""
    best = float("inf")
    for _ in range(repeat):
        started = time.thread_time()
        with bounded(), suppress(ArazzoError):
            function()
        best = min(best, time.thread_time() - started)
    return best
