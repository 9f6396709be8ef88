"""Load testing, the parts that need no Locust: what every user of a load test shares (`plan`), the
names its statistics use (`naming`) and the thresholds judged on them (`thresholds`).

The Locust side (`arazzo_runner.locust`: the `ArazzoUser` class, the asyncio loop inside gevent, the
`arazzo load` driver) imports Locust, which monkey-patches the process with gevent; nothing here does,
so the command line can check everything before Locust is even imported.
"""

from __future__ import annotations

import importlib.util


def missing_locust() -> str:
    """The one line saying Locust is missing, with the install command that fits this installation."""
    from ..extras import install_hint

    return f"Locust is not installed; load testing needs it: {install_hint('load')}"


def locust_installed() -> bool:
    """Whether Locust can be imported (found without importing it: importing it patches the process)."""
    return importlib.util.find_spec("locust") is not None
