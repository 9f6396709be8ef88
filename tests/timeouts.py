"""Per-test time limits (pytest-timeout; the default is in pyproject's [tool.pytest.ini_options]).

The default fails a hung test instead of stalling the suite. The few tests that do much more than the
others (several processes, a whole Locust run, 50 MB documents, every key file twice) are marked
`@long_test`: they may take this long before they count as hung, and they are `slow`, left out of the
fast tier (`python -m pytest -m "not slow"`, tests/tiers.py). A limit is a guard against a hang, never a
measure of speed (that is `bench/`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest

LONG_TEST = 900  # seconds
Test = TypeVar("Test", bound=Callable[..., object])


def long_test(test: Test) -> Test:
    """A test that may run for LONG_TEST seconds, and is in the full suite only (marked `slow`)."""
    return pytest.mark.slow(pytest.mark.timeout(LONG_TEST)(test))
