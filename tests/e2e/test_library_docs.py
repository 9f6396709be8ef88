"""docs/library.md cannot rot: every Python example runs (as a script, from the repository root), the
pytest-plugin example runs under pytest, and every public name is documented."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

import arazzo_runner
from tests.e2e.helpers import ROOT

pytest_plugins = ["pytester"]

DOC = ROOT / "docs/library.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


def blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(DOC.read_text(encoding="utf-8")) if lang == language]


SCRIPTS = [b for b in blocks("python") if not b.startswith("# conftest.py")]


def test_the_page_has_the_four_examples_and_the_plugin_example():
    assert len(SCRIPTS) == 4
    assert any(b.startswith("# conftest.py") for b in blocks("python"))


@pytest.mark.parametrize("index", range(len(SCRIPTS)), ids=["run", "custom-client", "events", "agent"])
def test_each_example_runs(tmp_path, index):
    script = tmp_path / f"example_{index}.py"
    script.write_text(SCRIPTS[index], encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    expected = {
        0: "['createCompletion', 'resolveToolCall']",
        1: "createCompletion 200 end\nHello from mock-1!",
        2: "-> createCompletion\n<- createCompletion: passed (HTTP 200)",
        3: "1 chat-completion-tool-call passed ['userMessage']\n2 Based on the tool result:",
    }[index]
    assert expected in proc.stdout


def test_the_pytest_plugin_example_passes(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    # a project of its own: workflows/ reading ../openapi/, as in this repository
    project = pytester.mkdir("project")
    monkeypatch.chdir(project)
    (conftest,) = [b for b in blocks("python") if b.startswith("# conftest.py")]
    (ini,) = blocks("ini")
    for folder, name in [
        ("workflows", "chat-completion-tool-call.arazzo.yaml"),
        ("openapi", "chatgpt-chat-completions-api-openapi.yml"),
    ]:
        (project / folder).mkdir()
        shutil.copy(ROOT / folder / name, project / folder / name)
    (project / "conftest.py").write_text(conftest, encoding="utf-8")
    (project / "pytest.ini").write_text(ini, encoding="utf-8")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    (console,) = [b for b in blocks("console") if b.startswith("$ python -m pytest -v\n")]
    result.stdout.fnmatch_lines([f"*{console.splitlines()[-1]}*"])


def test_every_public_name_is_documented():
    text = DOC.read_text(encoding="utf-8")
    missing = [name for name in arazzo_runner.__all__ if f"`{name}" not in text]
    assert missing == []
