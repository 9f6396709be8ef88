"""The README cannot rot: its library example runs as written, from the repository root (where the
README says to run it), and prints what it says; the number of tests it says need ../shared is right."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.e2e.helpers import ROOT

README = ROOT / "README.md"


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_library_example_runs_as_written(tmp_path):
    (example,) = re.findall(r"^```python\n(.*?)^```$", _section("As a library"), re.S | re.M)
    script = tmp_path / "readme_example.py"
    script.write_text(example, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.startswith("passed Based on the tool result: "), proc.stdout
    assert '"conditions": "sunny"' in proc.stdout


def test_the_count_of_tests_that_skip_without_shared_is_right(tmp_path):
    """Run the test files that read ../shared from a copy of the repository with no ../shared beside it:
    as many skip, each saying why, as the README says."""
    section = " ".join(_section("Tests").split())
    said = re.search(r"(\d+) tests read `\.\./shared`", section)
    assert said, "the README's Tests section says how many tests need ../shared"
    skipping = re.search(r"Without that folder those (\d+) skip", section)
    assert skipping and skipping.group(1) == said.group(1), "the README gives two different counts"
    copy = tmp_path / "repo"  # tmp_path / "shared" does not exist
    junk = shutil.ignore_patterns(".*", "__pycache__", "bench")
    shutil.copytree(ROOT, copy, ignore=junk)
    readers = sorted(  # the files that build a path to it: `... / "shared"`, `... / "shared/arazzo/..."`
        str(path.relative_to(copy))
        for path in (copy / "tests").rglob("test_*.py")
        if path.name != Path(__file__).name and re.search(r'/ "shared[/"]', path.read_text(encoding="utf-8"))
    )
    assert len(readers) >= 6, readers
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *readers],
        capture_output=True,
        text=True,
        cwd=copy,
        env={**os.environ, "PYTHONPATH": str(copy)},
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    skips = re.findall(r"^SKIPPED \[(\d+)\] (\S+): (.*)$", proc.stdout, re.M)
    assert all("../shared" in reason and "not available" in reason for _, _, reason in skips), skips
    assert sum(int(count) for count, _, _ in skips) == int(said.group(1))
