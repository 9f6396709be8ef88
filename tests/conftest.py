"""Session-wide test settings: an isolated validation cache, how hypothesis runs, and which path
synchronous runs take.

`--run-path asyncio` sends every synchronous run (`run()`, `arazzo run`, in this process and in the
processes tests start) down the asyncio path instead of blocking its thread (`executor/runtime.py`): the
suite passes both ways, which is what keeps the two paths one engine (CI runs the key files both ways).

Property and fuzz tests are deterministic by default (`derandomize`: each test's inputs follow from its
own code, and no example database is read or written), so CI gives the same verdict on every run of a
commit. `ARAZZO_FUZZ_EXAMPLES=N` starts a campaign instead: N random inputs per fuzz test, with the
example database, so that a failure found there replays locally (then keep it as an explicit
`@example`). No hypothesis deadline: it is wall-clock time, which a busy machine inflates; the fuzz
suite bounds the CPU time of each input instead (tests/fuzz/kit.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.tiers import slow_file, slow_reason

ROOT = Path(__file__).resolve().parents[1]

_SLOW_ON_A_BUSY_MACHINE = [HealthCheck.too_slow]  # measured in wall-clock time
settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=_SLOW_ON_A_BUSY_MACHINE,
    print_blob=True,
)
settings.register_profile(
    "campaign", deadline=None, suppress_health_check=_SLOW_ON_A_BUSY_MACHINE, print_blob=True
)
settings.load_profile("campaign" if os.environ.get("ARAZZO_FUZZ_EXAMPLES") else "deterministic")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-path",
        choices=("auto", "asyncio"),
        default=None,
        help="the path synchronous runs take: auto (blocking where possible, the default) or asyncio",
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--run-path")
    if path is not None:  # the environment, so that `arazzo` processes the tests start follow it too
        os.environ["ARAZZO_RUN_PATH"] = path


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under `-m "not slow"`, a file whose tests are all slow is not even collected: importing the
    end-to-end modules and making the corpus's parameters is a good part of the fast tier's CPU time."""
    if config.getoption("markexpr", "") != "not slow" or not collection_path.is_relative_to(ROOT):
        return None
    path = collection_path.relative_to(ROOT).as_posix()
    return True if collection_path.is_file() and slow_file(path) else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests tests/tiers.py names are `slow`: out of the fast tier, `-m "not slow"`."""
    for item in items:
        path = Path(item.path)
        if path.is_relative_to(ROOT):
            nodeid = "::".join([path.relative_to(ROOT).as_posix(), *item.nodeid.split("::")[1:]])
            if slow_reason(nodeid):
                item.add_marker(pytest.mark.slow)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Brokers whose tests were skipped because this machine lacks them (ARAZZO_TESTS_WITHOUT): said
    again at the end, where it cannot be missed (tests/e2e/processkit.py)."""
    reasons = set()
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
        if "NOT TESTED here" in reason:
            reasons.add(reason.removeprefix("Skipped: "))
    if reasons:
        terminalreporter.section("claims NOT TESTED on this machine", sep="!", red=True, bold=True)
        for reason in sorted(reasons):
            terminalreporter.line(reason, red=True)


@pytest.fixture(autouse=True, scope="session")
def _isolated_validation_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """`arazzo run` remembers documents that validated clean; tests keep that out of the user's cache."""
    mp = pytest.MonkeyPatch()
    mp.setenv("ARAZZO_CACHE_DIR", str(tmp_path_factory.mktemp("arazzo-cache")))
    mp.delenv("ARAZZO_NO_CACHE", raising=False)
    yield
    mp.undo()
