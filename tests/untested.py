"""Skips that leave a claim of the project untested, said so at the end of the run.

A skip because this machine lacks something (a module of an extra, node and Redocly CLI, brotli, the
shared folder, Linux's /proc) hides a claim the README or docs/ make: the run passes, yet that claim was
not checked. Every such skip goes through these helpers, whose reasons end in "NOT TESTED here";
tests/conftest.py lists every reason so worded again in a "claims NOT TESTED on this machine" section
at the end of the run (as the brokers' skips are: tests/e2e/processkit.py), where it cannot be missed.

A skip that hides nothing keeps plain `pytest.skip`: a case that does not apply (this session already
runs on asyncio; a parameter combination the test does not need; a feature the platform does not have,
such as named pipes or os.fork on Windows), and a documented block the docs test is told to skip.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

NOT_TESTED = "NOT TESTED here"


def untested(reason: str, claim: str) -> str:
    """The skip reason: why, and which claim goes untested."""
    return f"{reason}: {claim} is {NOT_TESTED}"


def skip_untested(reason: str, claim: str) -> None:
    """Skip the running test (or, at module level, the module), listing `claim` at the end of the run."""
    pytest.skip(untested(reason, claim), allow_module_level=True)


def skipif_untested(condition: Any, reason: str, claim: str) -> pytest.MarkDecorator:
    """`pytest.mark.skipif`, its reason listed at the end of the run."""
    return pytest.mark.skipif(bool(condition), reason=untested(reason, claim))


def not_installed(module: str, claim: str, where: str = "the test extra") -> str:
    """The reason for `pytest.importorskip(module, reason=...)` at the top of a module (ruff lets imports
    follow that call, not a wrapper's)."""
    return untested(f"{module} is not installed ({where})", claim)


def importorskip_untested(module: str, claim: str, where: str = "the test extra") -> ModuleType:
    """`pytest.importorskip(module)` inside a test, its skip listed at the end of the run."""
    return pytest.importorskip(module, reason=not_installed(module, claim, where))
