"""stdout that cannot be written (a full disk, a quota: `/dev/full` here): the command says so in one
line on stderr and exits 2, in every mode, rather than end on a traceback (a batch's held texts raised
the same error in every row's task, a traceback hundreds of frames long) and an "Exception ignored" at
the interpreter's last flush."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import op_step, workflow

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
LINE = "error: stdout: cannot write: No space left on device\n"


@pytest.fixture
def document(write, server):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    get = op_step("get", "getPet", parameters=[{"name": "petId", "in": "path", "value": "$inputs.petId"}])
    inputs = {"type": "object", "properties": {"petId": {"type": "integer"}}}
    return write(arazzo_doc(workflow("flow", get, inputs=inputs)))


def _to_full(args: list[str], unbuffered: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [sys.executable, "-m", "arazzo_runner.cli", *args], stdout=full, stderr=subprocess.PIPE,
            text=True, env=env, timeout=300,
        )  # fmt: skip


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("mode", ["single", "json", "rows", "rows-json", "validate"])
def test_an_unwritable_stdout_is_one_line_and_exit_2(document, server, tmp_path, mode, unbuffered):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"petId": {n}}}\n' for n in range(300)))
    run = ["run", str(document), "--server", f"pets={server.url}"]
    args = {
        "single": [*run, "--input", "petId=1"],
        "json": [*run, "--input", "petId=1", "--format", "json"],
        "rows": [*run, "--inputs-file", str(rows), "--concurrency", "20"],
        "rows-json": [*run, "--inputs-file", str(rows), "--concurrency", "20", "--format", "json"],
        "validate": ["validate", str(document)],
    }[mode]
    done = _to_full(args, unbuffered)
    assert done.stderr == LINE, done.stderr
    assert done.returncode == 2
