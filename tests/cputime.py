"""CPU-time bounds for tests: what the code under test controls, whatever else the machine is running.

A wall-clock bound fails a good build on a busy machine (`took 6.40 s (bound 5.0 s)` while other
processes used the CPUs); the CPU time of this process does not grow with the load, yet still grows
with a quadratic blow-up or a busy hang. `time.process_time` counts every thread of this process (a
server thread of the test included), never the time spent waiting or in other processes.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Spent:
    """What the body of `cpu_bound` used, in CPU seconds (set when it ends)."""

    seconds = 0.0


class CpuBoundExceeded(AssertionError):
    """Raised in the middle of a body that has used up its CPU-time bound."""


@contextmanager
def cpu_bound(seconds: float, what: str = "the call") -> Iterator[Spent]:
    """Fail if the body uses more than `seconds` of this process's CPU time; yields what it used.

    A runaway body (quadratic, or looping forever) is interrupted once it has used the bound, by a
    process CPU-time timer (ITIMER_PROF), so the test fails then rather than hours later."""
    spent = Spent()
    watchdog = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if watchdog:

        def expire(signum: int, frame: Any) -> None:
            raise CpuBoundExceeded(f"{what} used more than {seconds} s of CPU: interrupted")

        previous = signal.signal(signal.SIGPROF, expire)
        signal.setitimer(signal.ITIMER_PROF, seconds * 1.1)  # past the bound: the assertion below decides
    started = time.process_time()
    try:
        yield spent
    finally:
        spent.seconds = time.process_time() - started
        if watchdog:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
    assert spent.seconds < seconds, f"{what} used {spent.seconds:.2f} s of CPU (bound {seconds} s)"
