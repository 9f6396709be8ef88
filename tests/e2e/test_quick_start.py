"""The README's quick start is light: it installs the engine without any extra, and `arazzo demo` runs
from that alone (every module of a distribution that only an extra brings is made unimportable)."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys

from tests.e2e.helpers import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


def _quick_start_commands() -> list[str]:
    text = ROOT.joinpath("README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Quick start\n") :].split("\n## ", 2)[1]
    block = re.findall(r"^```console\n(.*?)^```$", section, re.S | re.M)[0]  # the first one
    return [line[2:] for line in block.splitlines() if line.startswith("$ ")]


def _extra_only_modules() -> list[str]:
    """The top-level modules of the distributions the extras name and the core dependencies do not."""
    project = tomllib.loads(ROOT.joinpath("pyproject.toml").read_text(encoding="utf-8"))["project"]

    def names(requirements: list[str]) -> set[str]:
        return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}

    core = names(project["dependencies"])
    extra = set().union(*(names(reqs) for reqs in project["optional-dependencies"].values())) - core
    modules = {
        module
        for module, dists in importlib.metadata.packages_distributions().items()
        if any(d.lower().replace("_", "-") in extra for d in dists) and module.isidentifier()
    }
    assert {"openapi_core", "mcp", "locust", "openai", "aiomqtt"} <= modules, sorted(modules)
    return sorted(modules)


def test_the_quick_start_installs_no_extra() -> None:
    install, *rest = _quick_start_commands()
    assert install == "pip install -e ."
    assert rest == ["arazzo demo"]


def test_arazzo_demo_runs_without_any_extra() -> None:
    blocked = _extra_only_modules()
    code = (
        "import sys\n"
        f"for name in {blocked!r}:\n"
        "    sys.modules[name] = None  # what an environment without the extras gives: ImportError\n"
        "from arazzo_runner.cli import entry\n"
        "sys.argv = ['arazzo', 'demo']\n"
        "sys.exit(entry())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "finalContent" in proc.stdout and "directContent" in proc.stdout
    assert "Traceback" not in proc.stderr
