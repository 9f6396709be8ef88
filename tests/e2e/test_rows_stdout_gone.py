"""Rows whose stdout's reader goes away (`arazzo run --inputs-file ... | head -3`): the batch stops as it
did before the rows' texts were held for one write a pass (issue 43, sixth round), rather than print a
traceback for every pass and send every row's requests to nobody."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import op_step, workflow

ROWS = 3000  # a batch of ~1 s of CPU: the reader leaves long before it could end


def test_a_batch_whose_reader_has_gone_stops_sending(write, server, tmp_path):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    get = op_step("get", "getPet", parameters=[{"name": "petId", "in": "path", "value": "$inputs.petId"}])
    inputs = {"type": "object", "properties": {"petId": {"type": "integer"}}}
    path = write(arazzo_doc(workflow("flow", get, inputs=inputs)))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"petId": {n}}}\n' for n in range(ROWS)))
    command = [sys.executable, "-m", "arazzo_runner.cli", "run", str(path), "--server", f"pets={server.url}",
               "--inputs-file", str(rows), "--concurrency", "20"]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as process:
        assert process.stdout is not None and process.stderr is not None
        for _ in range(3):  # `| head -3`
            process.stdout.readline()
        process.stdout.close()
        errors = process.stderr.read().decode()
        code = process.wait()
    assert "Exception in callback" not in errors, errors
    assert errors.count("Traceback") <= 1, errors
    assert code in (0, 1), (code, errors)
    assert len(server.requests) < ROWS, len(server.requests)  # stopped: not every row sent
