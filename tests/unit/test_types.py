"""The type checker over the package: mypy with pyproject's [tool.mypy] (strict on the public API, mypy's
default level elsewhere), as `python -m mypy` runs it by hand (docs/testing.md). The package ships
`py.typed`, so its annotations are a promise to its users' checkers; a type error fails this test."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

from tests.timeouts import long_test

ROOT = Path(__file__).resolve().parents[2]
CPU_SECONDS = 600  # a cold run is ~40 s of CPU; the cache in .mypy_cache makes later ones a few seconds


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


@long_test
def test_the_package_type_checks() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=_bounded,
    )
    assert done.returncode == 0, done.stdout + done.stderr
