"""Fuzz suite hooks: print how many inputs were fuzzed; never leave a watchdog alarm armed.

The helpers live in `kit.py` (one module instance, so the tally is shared with the tests).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fuzz.kit import FUZZED, INPUTS


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if INPUTS:
        calls = ", ".join(f"{name} {count}" for name, count in sorted(FUZZED.items()))
        inputs = f"{sum(INPUTS.values())} generated inputs in {len(INPUTS)} tests"
        terminalreporter.write_line(f"fuzz: {inputs}; calls per entry point: {calls}")


@pytest.fixture(autouse=True)
def _no_leftover_alarm() -> Iterator[None]:
    yield
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_PROF, 0)
