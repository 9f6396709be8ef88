"""The README cannot rot: its library example runs as written, from the repository root (where the
README says to run it), and prints what it says; the numbers of tests it says read ../shared are right
(collected and run with the folder hidden, `ARAZZO_SHARED`)."""

from __future__ import annotations

import os
import re
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


def _said(section: str, pattern: str) -> int:
    found = re.findall(pattern.replace("(N)", r"([\d,]+)"), section)
    assert len(found) == 1, f"the README's Tests section says {pattern!r} {len(found)} times"
    return int(found[0].replace(",", ""))


def _collected(env: dict[str, str]) -> int:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=", "-p", "no:cacheprovider"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return int(re.search(r"^(\d+) tests? collected", proc.stdout, re.M).group(1))


def _readers() -> list[str]:
    """The test files that read ../shared: they import `tests.shared`, or a helper module that does."""
    modules = {"tests.shared"}
    texts = {path: path.read_text(encoding="utf-8") for path in (ROOT / "tests").rglob("*.py")}
    while True:
        more = {
            ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for path, text in texts.items()
            if any(re.search(rf"^(?:from|import) {re.escape(m)}\b", text, re.M) for m in modules)
        }
        if more <= modules:
            break
        modules |= more
    return sorted(
        str(path.relative_to(ROOT))
        for path, text in texts.items()
        if path.name.startswith("test_") and path.name != Path(__file__).name
        and ".".join(path.relative_to(ROOT).with_suffix("").parts) in modules
    )  # fmt: skip


def test_the_counts_of_the_tests_that_read_shared_are_right(tmp_path):
    """The suite collected with the shared folder hidden (`ARAZZO_SHARED`, tests/shared.py) and with it:
    as many fewer tests, and as many skips, each saying why, as the README says."""
    from tests.shared import SHARED

    section = " ".join(_section("Tests").split())
    reading = _said(section, r"(N) tests read `\.\./shared`")
    absent = _said(section, r"Without that folder (N) of them are not collected")
    skipping = _said(section, r"and the other (N) skip")
    assert absent + skipping == reading
    hidden = {**os.environ, "ARAZZO_SHARED": str(tmp_path / "no-shared")}
    readers = _readers()
    assert len(readers) >= 10, readers
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-o", "addopts=", "-p", "no:cacheprovider", *readers],
        capture_output=True, text=True, cwd=ROOT, env=hidden, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:]
    skips = re.findall(r"^SKIPPED \[(\d+)\] (\S+): (.*)$", proc.stdout, re.M)
    assert all("../shared" in reason and "not available" in reason for _, _, reason in skips), skips
    assert sum(int(count) for count, _, _ in skips) == skipping
    if SHARED.is_dir():  # else the suite cannot be collected with it: the skips were still counted
        assert _collected(dict(os.environ)) - _collected(hidden) == absent
