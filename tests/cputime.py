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

    A runaway body (quadratic, or looping forever) is interrupted once it has used the bound, so the
    test fails then rather than hours later: a watchdog thread reads the process's CPU time every
    `_LOOK` seconds and, past the bound, signals the main thread, whose handler raises
    CpuBoundExceeded, and again every quarter of the bound (1 s at least) while the body runs on (a
    raise that lands in a finalizer is swallowed, "Exception ignored"). Not a CPU-time timer
    (ITIMER_PROF): while one is armed, this kernel updates the process's CPU clock only at its ticks
    (4 ms here), so a body timing its own small steps with `time.process_time` read 0."""
    spent = Spent()
    watchdog = hasattr(signal, "pthread_kill") and threading.current_thread() is threading.main_thread()
    started = time.process_time()
    if watchdog:

        def expire(signum: int, frame: Any) -> None:
            raise CpuBoundExceeded(f"{what} used more than {seconds} s of CPU: interrupted")

        previous = signal.signal(signal.SIGPROF, expire)
        done = threading.Event()
        watcher = threading.Thread(
            target=_watch, args=(done, started, seconds, threading.get_ident()), name="cpu-bound", daemon=True
        )
        watcher.start()
    try:
        yield spent
    finally:
        spent.seconds = time.process_time() - started
        if watchdog:
            done.set()
            watcher.join()
            signal.signal(signal.SIGPROF, previous)
    assert spent.seconds < seconds, f"{what} used {spent.seconds:.2f} s of CPU (bound {seconds} s)"


_LOOK = 0.05  # seconds of wall-clock time between two looks of the watchdog at the CPU time


def _watch(done: threading.Event, started: float, seconds: float, main: int) -> None:
    """`cpu_bound`'s watchdog: signal the thread `main` once the process has used `seconds` * 1.1 of CPU
    since `started` (past the bound: the assertion decides), then every quarter of the bound."""
    due = started + seconds * 1.1
    while not done.wait(_LOOK):
        now = time.process_time()
        if now >= due:
            signal.pthread_kill(main, signal.SIGPROF)
            due = now + max(1.0, seconds / 4)
