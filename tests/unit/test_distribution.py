"""Our distribution has a name of its own: `arazzo-runner` is another project's (same import package,
`arazzo_runner`). Everything that names the tool uses `arazzo_runner.DISTRIBUTION`."""

from __future__ import annotations

import re
from pathlib import Path

import arazzo_runner

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_names_the_distribution_arazzo_engine():
    project = ROOT.joinpath("pyproject.toml").read_text(encoding="utf-8").split("\n[", 2)[1]
    assert project.startswith("project]")
    assert re.search(r'^name = "([^"]+)"$', project, re.M).group(1) == arazzo_runner.DISTRIBUTION
    assert arazzo_runner.DISTRIBUTION == "arazzo-engine"
    # the import package and the command keep their names
    assert 'arazzo = "arazzo_runner.cli:entry"' in ROOT.joinpath("pyproject.toml").read_text(encoding="utf-8")


def test_the_readme_says_the_two_engines_cannot_share_an_environment():
    readme = ROOT.joinpath("README.md").read_text(encoding="utf-8")
    assert readme.startswith("# arazzo-engine\n")
    text = " ".join(readme.split())
    assert "is published as `arazzo-runner`" in text
    assert "the two engines cannot share one environment" in text


def test_no_file_of_the_package_calls_the_tool_arazzo_runner():
    package = ROOT / "arazzo_runner"
    named = [
        str(path.relative_to(ROOT))
        for path in package.rglob("*")
        if path.suffix in (".py", ".yaml", ".json") and "arazzo-runner" in path.read_text(encoding="utf-8")
    ]
    named.remove("arazzo_runner/__init__.py")  # its comment on DISTRIBUTION names the other project
    assert named == []
