"""`--inputs-file` streams: rows are read as places free up (`--concurrency`), and what they write is
made as each row ends. The outputs are byte for byte those of one document built from every row, and
memory does not grow with the number of rows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.helpers import cli
from tests.e2e.test_cli_batch import _doc, _rows

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pets(server):
    """GET /pets/{id}: 200 with a name, 404 for id 0."""

    @server.route("GET", "/pets/{id}")
    def pet(request):
        if request.params["id"] == "0":
            return 404, {"error": "no such pet"}
        return 200, {"name": f"pet-{request.params['id']}"}

    return server


def test_streamed_outputs_are_those_of_one_document_of_every_row(capsys, monkeypatch, write, pets, tmp_path):
    """The same rows written both ways: held (as the reports of every row at once are) and streamed from
    the spools the run filled as its rows ended, in another order than the rows' (concurrency 3)."""
    from arazzo_runner.cli import batch_out

    made: list[batch_out.RowsOut] = []

    class Recorded(batch_out.RowsOut):  # spooling as well, though the rows are held
        def __init__(self, args, workspace, spooled) -> None:
            super().__init__(args, workspace, spooled=True)
            made.append(self)

    monkeypatch.setattr(batch_out, "RowsOut", Recorded)
    monkeypatch.setattr(batch_out, "held", lambda args: True)
    lines = [json.dumps({"petId": n, "password": f"row-{n}-secret-value-ab"}) for n in (3, 0, 1, 7, 2)]
    rows = _rows(tmp_path, lines[0], "", *lines[1:])
    held = {"--report-json": tmp_path / "held.json", "--junit": tmp_path / "held.xml"}
    flags = [str(item) for pair in held.items() for item in pair]
    result = cli(capsys, "run", write(_doc()), "--server", f"pets={pets.url}", "--inputs-file", rows,
                 "--concurrency", "3", "--format", "json", *flags)  # fmt: skip
    assert result.code == 1, result.err  # row 2 (petId 0) failed
    (out,) = made
    assert out.rows == 5 and out.passed == 4
    streamed = {"--report-json": tmp_path / "streamed.json", "--junit": tmp_path / "streamed.xml"}
    out.args.report_json, out.args.junit = (str(path) for path in streamed.values())
    assert out.finish() == []
    assert capsys.readouterr().out == result.out
    assert [r["row"] for r in json.loads(result.out)["rows"]] == [1, 2, 3, 4, 5]
    assert "secret" not in result.out
    assert streamed["--junit"].read_text() == held["--junit"].read_text()

    def without_time(path: Path) -> list[str]:
        return [line for line in path.read_text().splitlines() if '"generatedAt"' not in line]

    assert without_time(streamed["--report-json"]) == without_time(held["--report-json"])
    assert "row-3-secret" not in streamed["--report-json"].read_text()


MEASURE = """
import sys, tracemalloc
tracemalloc.start()
from arazzo_runner.cli import main
code = main(sys.argv[1:])
print(tracemalloc.get_traced_memory()[1], code)
"""


def test_memory_does_not_grow_with_the_rows(write, pets, tmp_path):
    """Peak traced memory of 50 rows and of 450 (JSON output, a JSON report and JUnit): holding
    every row to the end took ~35 KB a row here (14 MiB more for the larger); the rows now pass through."""
    document = write(_doc())
    peaks = {}
    for count in (50, 450):
        rows = tmp_path / f"rows-{count}.jsonl"
        rows.write_text("".join(json.dumps({"petId": n}) + "\n" for n in range(1, count + 1)))
        argv = ["run", str(document), "--server", f"pets={pets.url}", "--inputs-file", str(rows),
                "--concurrency", "10", "--format", "json", "--report-json", str(tmp_path / "r.json"),
                "--junit", str(tmp_path / "r.xml")]  # fmt: skip
        command = [sys.executable, "-c", MEASURE, *argv]
        proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
        peak, code = proc.stdout.splitlines()[-1].split()
        assert code == "0", proc.stderr
        peaks[count] = int(peak)
    assert peaks[450] < peaks[50] + 2 * 2**20, peaks  # before: 14 MiB more


def test_concurrent_text_rows_mask_their_secrets_in_their_headers(capsys, write, pets, tmp_path):
    """A row's header is printed after its run with `--concurrency` > 1 (checked once, in the first pass,
    then run): the masker knows the row's `format: password` input by then."""
    rows = _rows(tmp_path, json.dumps({"petId": 1, "password": "hunter2-secret-value"}), '{"petId": 2}')
    text = cli(capsys, "run", write(_doc()), "--server", f"pets={pets.url}", "--inputs-file", rows,
               "--concurrency", "2")  # fmt: skip
    assert text.code == 0, text.err
    assert "== row 1 (line 1): petId=1, password=***" in text.out and "hunter2" not in text.out
