"""Per-test time limits (pytest-timeout; the default is in pyproject's [tool.pytest.ini_options]).

The default fails a hung test instead of stalling the suite. The few tests that do much more than the
others (several processes, a whole Locust run, 50 MB documents, every key file twice) are marked
`@long_test`: they may take this long before they count as hung. A limit is a guard against a hang,
never a measure of speed (that is `bench/`)."""

from __future__ import annotations

import pytest

LONG_TEST = 900  # seconds
long_test = pytest.mark.timeout(LONG_TEST)
