"""The README cannot rot: its library example runs as written, from the repository root (where the
README says to run it), and prints what it says."""

from __future__ import annotations

import re
import subprocess
import sys

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
