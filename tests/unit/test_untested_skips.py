"""Skips that hide a claim are listed again at the end of the run (tests/untested.py, tests/conftest.py):
a module of an extra that is missing, a tool that is not installed, a platform without /proc."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "claims NOT TESTED on this machine"

TESTS = """
import pytest

from tests.untested import importorskip_untested, not_installed, skip_untested, skipif_untested

def test_inside():
    importorskip_untested("arazzo_no_such_module_a", "claim A")

def test_skipped_by_a_call():
    skip_untested("no tool here", "claim B")

@skipif_untested(True, "no /proc", "claim C")
def test_skipped_by_a_mark():
    pass

def test_plain_skip_hides_nothing():
    pytest.skip("this case does not apply")
"""
MODULE = """
import pytest

from tests.untested import not_installed

pytest.importorskip("arazzo_no_such_module_d", reason=not_installed("arazzo_no_such_module_d", "claim D"))
"""


def _pytest(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", str(folder)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_skip_that_hides_a_claim_is_listed_at_the_end(tmp_path):
    (tmp_path / "test_inside.py").write_text(TESTS)
    (tmp_path / "test_module.py").write_text(MODULE)
    done = _pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    section = done.stdout.split(SECTION, 1)
    assert len(section) == 2, done.stdout
    listed = section[1]
    assert "arazzo_no_such_module_a is not installed (the test extra): claim A is NOT TESTED here" in listed
    assert "no tool here: claim B is NOT TESTED here" in listed
    assert "no /proc: claim C is NOT TESTED here" in listed
    assert "arazzo_no_such_module_d is not installed (the test extra): claim D is NOT TESTED here" in listed
    assert "does not apply" not in listed  # a skip that hides nothing is not listed


def test_the_suite_skips_only_through_the_helpers_where_a_claim_is_hidden():
    """A missing module of an extra hides a claim: no test calls `pytest.importorskip` without the
    helpers' reason (`not_installed`), which is what puts it in the list."""
    bare = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.importorskip":
                reason = next((k.value for k in node.keywords if k.arg == "reason"), None)
                if not (isinstance(reason, ast.Call) and ast.unparse(reason.func) == "not_installed"):
                    bare.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not bare, "\n".join(bare)
