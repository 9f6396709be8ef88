"""The tests' CPU-time bound (`tests/cputime.py`): a runaway body is interrupted, again when a
finalizer swallows the first interruption, and the body can still time its own small steps."""

from __future__ import annotations

import signal
import sys
import threading
import time

import pytest

from tests.cputime import CpuBoundExceeded, cpu_bound, interrupted_after


def _spin() -> None:
    while True:
        sum(range(100))


def test_a_runaway_body_is_interrupted_past_its_bound():
    started = time.process_time()
    wanted = r"the loop used more than 0\.3 s of CPU: interrupted"
    with pytest.raises(CpuBoundExceeded, match=wanted), cpu_bound(0.3, "the loop"):
        _spin()
    assert time.process_time() - started < 3  # interrupted, not left to run


class _Swallowing:
    """Garbage whose finalizer spins: the watchdog's first raise lands in it and is swallowed."""

    def __del__(self) -> None:
        end = time.process_time() + 0.6
        while time.process_time() < end:
            sum(range(100))


def test_a_swallowed_interruption_is_raised_again(monkeypatch):
    swallowed: list = []
    monkeypatch.setattr(sys, "unraisablehook", swallowed.append)
    started = time.process_time()
    with pytest.raises(CpuBoundExceeded), cpu_bound(0.2, "the loop"):
        _Swallowing()  # freed at once: its finalizer runs past the bound, and swallows the raise
        _spin()
    assert [type(event.exc_value) for event in swallowed] == [CpuBoundExceeded]
    assert time.process_time() - started < 5


def test_the_body_reads_its_own_small_steps():
    """A CPU-time timer (ITIMER_PROF) armed made `time.process_time` move only at the kernel's ticks: a
    step of ~1 ms read 0 most of the time."""
    with cpu_bound(10):
        steps = []
        for _ in range(5):
            started = time.process_time()
            sum(range(20_000))  # ~0.5 ms
            steps.append(time.process_time() - started)
    assert min(steps) > 0


def test_the_watchdog_is_gone_and_the_handler_restored_however_the_body_ends():
    previous = signal.getsignal(signal.SIGPROF)
    with cpu_bound(10):
        assert "cpu-bound" in [thread.name for thread in threading.enumerate()]
    with pytest.raises(CpuBoundExceeded), cpu_bound(0.2):
        _spin()
    with pytest.raises(KeyError), cpu_bound(10):
        raise KeyError("the body's own failure")
    assert "cpu-bound" not in [thread.name for thread in threading.enumerate()]
    assert signal.getsignal(signal.SIGPROF) is previous


def test_an_interruption_due_as_the_body_ends_is_not_raised_in_the_clean_up():
    """The watchdog's signal may arrive once the body has ended: the handler then does nothing, so the
    clean-up (joining the watchdog, restoring the handler) runs to its end."""
    with interrupted_after(10, lambda: CpuBoundExceeded("late")):
        handler = signal.getsignal(signal.SIGPROF)
    handler(signal.SIGPROF, None)  # the handler of a body that has ended: nothing raised
