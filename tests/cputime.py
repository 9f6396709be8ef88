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
from collections.abc import Callable, Iterator
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

    A runaway body (quadratic, or looping forever) is interrupted once it has used 1.1x the bound, so
    the test fails then rather than hours later (`interrupted_after`); the assertion at the end decides.
    Off the main thread nothing is interrupted: only the assertion applies. While the body runs a
    watchdog thread is alive (`threading.active_count()` counts it)."""
    spent = Spent()
    started = time.process_time()
    message = f"{what} used more than {seconds} s of CPU: interrupted"
    try:
        with interrupted_after(seconds * 1.1, lambda: CpuBoundExceeded(message)):
            yield spent
    finally:
        spent.seconds = time.process_time() - started
    assert spent.seconds < seconds, f"{what} used {spent.seconds:.2f} s of CPU (bound {seconds} s)"


@contextmanager
def interrupted_after(seconds: float, exception: Callable[[], BaseException]) -> Iterator[None]:
    """Raise `exception()` in the body (the main thread) once this process has used `seconds` of CPU time
    since it began, and again every quarter of that (1 s at least) while the body runs on: a raise that
    lands in a finalizer is swallowed ("Exception ignored"). A no-op off the main thread.

    A watchdog thread reads the process's CPU time every `_LOOK` seconds of wall-clock time and signals
    the main thread (SIGPROF), whose handler raises. Not a CPU-time timer (ITIMER_PROF, ITIMER_VIRTUAL):
    while one is armed, this kernel updates the process's CPU clock only at its ticks (4 ms here), so a
    body timing its own small steps with `time.process_time` read 0. Once the body has ended, neither
    the watchdog signals nor the handler raises, so the clean-up always runs to its end."""
    if not hasattr(signal, "pthread_kill") or threading.current_thread() is not threading.main_thread():
        yield
        return
    done = threading.Event()

    def expire(signum: int, frame: Any) -> None:
        if not done.is_set():
            raise exception()

    previous = signal.signal(signal.SIGPROF, expire)
    watcher = threading.Thread(
        target=_watch, args=(done, seconds, threading.get_ident()), name="cpu-bound", daemon=True
    )
    try:
        watcher.start()
        yield
    finally:
        try:
            done.set()
            watcher.join()
        finally:
            signal.signal(signal.SIGPROF, previous)


_LOOK = 0.05  # seconds of wall-clock time between two looks of the watchdog at the CPU time


def _watch(done: threading.Event, seconds: float, main: int) -> None:
    """`interrupted_after`'s watchdog: signal the thread `main` once the process has used `seconds` of
    CPU from now, then every quarter of that (1 s at least), until `done` is set."""
    due = time.process_time() + seconds
    while not done.wait(_LOOK):
        now = time.process_time()
        if now >= due and not done.is_set():
            signal.pthread_kill(main, signal.SIGPROF)
            due = now + max(1.0, seconds / 4)
