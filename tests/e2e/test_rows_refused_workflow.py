"""Rows of `--inputs-file` selecting a workflow that cannot run with one meaning (a condition that does not
parse) beside one that can: each row runs the one that can and reports the other not run, with why, as a
single `arazzo run` of the same document does (exit 1), where the batch used to stop before any row with
exit 2 and the error printed twice."""

from __future__ import annotations

import json

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow

INPUTS = {"type": "object", "properties": {"petId": {"type": "integer"}}}


def _doc() -> dict:
    def get(condition: str) -> dict:
        return op_step(
            "get",
            "getPet",
            parameters=[{"name": "petId", "in": "path", "value": "$inputs.petId"}],
            successCriteria=[{"condition": condition}],
        )

    good = workflow("good", get("$statusCode == 200"), inputs=INPUTS)
    bad = workflow("bad", get("$statusCode == == 200"), inputs=INPUTS)
    return arazzo_doc(good, bad)


def test_each_row_runs_what_can_run_and_reports_the_refused_workflow(capsys, write, server, tmp_path):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    path = write(_doc())
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n{"petId": 2}\n')
    single = cli(capsys, "run", path, "--server", f"pets={server.url}", "--input", "petId=7")
    batch = cli(capsys, "run", path, "--server", f"pets={server.url}", "--inputs-file", rows)
    assert single.code == batch.code == 1, (single.err, batch.err)
    assert [r.path for r in server.requests] == ["/pets/7", "/pets/1", "/pets/2"]
    for row in ("== row 1 (line 1): petId=1", "== row 2 (line 2): petId=2"):
        assert row in batch.out
    assert batch.out.count("✓ good passed") == 2 and batch.out.count("✗ bad not run (nothing was sent)") == 2
    assert batch.out.count("condition-syntax: invalid simple condition") == 2
    assert batch.out.rstrip().endswith("0 of 2 rows passed")
    refusal = "error: workflow 'bad' is not run: invalid simple condition"
    assert single.err.count(refusal) == batch.err.count(refusal) == 1, batch.err


def test_the_json_rows_say_the_same(capsys, write, server, tmp_path):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n')
    batch = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}", "--inputs-file", rows,
                "--format", "json")  # fmt: skip
    assert batch.code == 1, batch.err
    document = json.loads(batch.out)
    (row,) = document["rows"]
    runs = {w["workflowId"]: w for w in row["result"]["workflows"]}
    assert runs["good"]["status"] == "passed"
    assert runs["bad"]["status"] == "not_run"
