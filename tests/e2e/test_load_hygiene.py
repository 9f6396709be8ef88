"""The Locust entry (`arazzo_runner.locust`) is held to the package's rules in a process of its own
(importing it patches the process with gevent, so the pytest process never does), and nothing else
imports Locust or gevent: not `arazzo run`, not `import arazzo_runner`, not `arazzo load --help`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.e2e.helpers import ROOT

HYGIENE = ["tests/unit/test_module_state.py", "tests/unit/test_records.py"]


def _child(argv: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )


def test_the_locust_modules_pass_the_module_state_and_record_checks_in_their_own_process() -> None:
    listed = _child(
        ["-c", "import json; from tests.modules import module_names; print(json.dumps(module_names()))"],
        ARAZZO_TEST_LOCUST="1",
    )
    names = set(json.loads(listed.stdout))
    assert {
        "arazzo_runner.loadtest.locust.bridge",
        "arazzo_runner.loadtest.locust.user",
        "arazzo_runner.loadtest.locust.command",
    } <= names
    done = _child(["-m", "pytest", "-q", "-p", "no:cacheprovider", *HYGIENE], ARAZZO_TEST_LOCUST="1")
    assert done.returncode == 0, done.stdout + done.stderr


def test_nothing_but_the_load_entry_imports_locust_or_gevent() -> None:
    code = (
        "import json, sys\n"
        "import arazzo_runner, arazzo_runner.loadtest.plan, arazzo_runner.loadtest.thresholds\n"
        "from arazzo_runner.cli import main\n"
        "try:\n    main(['load', '--help'])\nexcept SystemExit:\n    pass\n"
        "main(['--version'])\n"
        "found = [m for m in sys.modules if m.split('.')[0] in ('locust', 'gevent', 'greenlet')]\n"
        "print(json.dumps(sorted(found)))\n"
    )
    done = _child(["-c", code])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_no_module_of_the_package_shadows_a_public_name() -> None:
    """`arazzo_runner.load` is the function: a subpackage of that name, once imported, would replace it
    (Python sets a package's attribute to each submodule imported), and `arazzo_runner.load(path)`
    would call a module."""
    import pkgutil

    import arazzo_runner

    modules = {info.name for info in pkgutil.iter_modules(arazzo_runner.__path__)}
    assert set(arazzo_runner.__all__) & modules == set()
