"""The type checker over the package: mypy with pyproject's [tool.mypy] (strict on the public API, mypy's
default level elsewhere), as `python -m mypy` runs it by hand (docs/testing.md). The package ships
`py.typed`, so its annotations are a promise to its users' checkers; a type error fails this test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.timeouts import long_test

ROOT = Path(__file__).resolve().parents[2]
CPU_SECONDS = 600  # a cold run is ~40 s of CPU; the cache in .mypy_cache makes later ones a few seconds
# `python -m mypy`, its CPU time bounded first (a runaway checker is killed, not waited for)
BOUNDED_MYPY = (
    "import resource, runpy\n"
    f"resource.setrlimit(resource.RLIMIT_CPU, ({CPU_SECONDS}, {CPU_SECONDS}))\n"
    "runpy.run_module('mypy', run_name='__main__', alter_sys=True)\n"
)


@long_test
def test_the_package_type_checks() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BOUNDED_MYPY, "--no-error-summary", "--hide-error-context"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
