"""The tests' CPU-time bound (`tests/cputime.py`): a runaway body is interrupted, again when a
finalizer swallows the first interruption, and the body can still time its own small steps."""

from __future__ import annotations

import sys
import time

import pytest

from tests.cputime import CpuBoundExceeded, cpu_bound


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
