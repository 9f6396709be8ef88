"""The package's modules, for the tests that import every one of them (module state, records, import
hygiene).

`arazzo_runner.loadtest.locust` is Locust's entry (like a locustfile), and `arazzo_runner.locust` its public
name (`from arazzo_runner.locust import ArazzoUser`): importing either imports Locust, which
monkey-patches the importing process with gevent (sockets, threads, locks, ssl, select). The pytest
process must stay unpatched, so those modules are left out here, unless `ARAZZO_TEST_LOCUST=1`:
tests/e2e/test_load_hygiene.py sets it for a run of those same tests in a child process of their own,
so the Locust modules are held to the same rules.
"""

from __future__ import annotations

import os
import pkgutil

import arazzo_runner

LOCUST_ENTRIES = ("arazzo_runner.loadtest.locust", "arazzo_runner.locust")
WITH_LOCUST = os.environ.get("ARAZZO_TEST_LOCUST") == "1"


def module_names() -> list[str]:
    """Every module of the package (never `__main__`), the Locust entry only with ARAZZO_TEST_LOCUST=1.
    Walked on disk: `pkgutil.walk_packages` imports each package to find its modules, the Locust entry
    too."""
    return [
        name
        for name in _walk(list(arazzo_runner.__path__), "arazzo_runner.")
        if not name.endswith("__main__")
    ]


def _walk(path: list[str], prefix: str) -> list[str]:
    names = []
    for info in pkgutil.iter_modules(path, prefix):
        if info.name in LOCUST_ENTRIES and not WITH_LOCUST:
            continue
        names.append(info.name)
        if info.ispkg:
            folder = os.path.join(info.module_finder.path, info.name.rsplit(".", 1)[1])
            names += _walk([folder], info.name + ".")
    return names
