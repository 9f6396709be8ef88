"""Data-driven runs: `--inputs-file rows.jsonl` once per row, `--concurrency N`, per-row reports."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, workflow

SCHEMA = {
    "type": "object",
    "required": ["petId"],
    "properties": {
        "petId": {"type": "integer"},
        "trace": {"type": "string", "default": "none"},
        "password": {"type": "string", "format": "password", "minLength": 16},
    },
}


def _doc() -> dict:
    get = op_step(
        "get",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": "$inputs.petId"},
            {"name": "X-Trace", "in": "header", "value": "$inputs.trace"},
        ],
        successCriteria=[{"condition": "$statusCode == 200"}],
        outputs={"name": "$response.body#/name"},
    )
    return arazzo_doc(workflow("flow", get, inputs=SCHEMA, outputs={"name": "$steps.get.outputs.name"}))


@pytest.fixture
def pets(server):
    """GET /pets/{id}: 200 with a name, 404 for id 0."""

    @server.route("GET", "/pets/{id}")
    def pet(request):
        if request.params["id"] == "0":
            return 404, {"error": "no such pet"}
        return 200, {"name": f"pet-{request.params['id']}"}

    return server


def _rows(tmp_path, *lines: str):
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_one_run_per_row_merged_over_the_other_inputs(capsys, write, pets, tmp_path):
    rows = _rows(tmp_path, '{"petId": 1}', "", "   ", '{"petId": 2, "trace": "row"}')
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--input", "trace=flag", server=pets)
    assert result.code == 0, result.err
    data = result.json
    assert data["status"] == "passed"
    assert [(r["row"], r["line"], r["inputs"]) for r in data["rows"]] == [
        (1, 1, {"petId": 1}),
        (2, 4, {"petId": 2, "trace": "row"}),
    ]
    outputs = [r["result"]["workflows"][0]["outputs"] for r in data["rows"]]
    assert outputs == [{"name": "pet-1"}, {"name": "pet-2"}]
    sent = sorted((r.path, r.headers["x-trace"]) for r in pets.requests)
    assert sent == [("/pets/1", "flag"), ("/pets/2", "row")]  # a row's value wins over --input


def test_a_failed_row_fails_the_run_and_the_others_still_run(capsys, write, pets, tmp_path):
    rows = _rows(tmp_path, '{"petId": 1}', '{"petId": 0}', '{"petId": 3}')
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "2", server=pets)
    assert result.code == 1
    data = result.json
    assert data["status"] == "failed"
    assert [r["result"]["status"] for r in data["rows"]] == ["passed", "failed", "passed"]
    assert len(pets.requests) == 3


def test_rows_run_concurrently(capsys, write, server, tmp_path):
    """Six rows against a route that takes 0.4 s: with --concurrency 6 the server sees several requests
    in flight at once."""
    in_flight, peak, lock = [0], [0], threading.Lock()

    @server.route("GET", "/pets/{id}")
    def slow(request):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.4)
        with lock:
            in_flight[0] -= 1
        return 200, {"name": request.params["id"]}

    rows = _rows(tmp_path, *(json.dumps({"petId": n}) for n in range(1, 7)))
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "6", server=server)
    assert result.code == 0, result.err
    assert peak[0] >= 3  # several requests in flight at once (no wall-clock limit: see bench/)
    names = [r["result"]["workflows"][0]["outputs"]["name"] for r in result.json["rows"]]
    assert names == ["1", "2", "3", "4", "5", "6"]  # reported in row order, whatever order they finished


def test_text_output_has_a_header_per_row_and_a_count(capsys, write, pets, tmp_path):
    rows = _rows(tmp_path, '{"petId": 1}', '{"petId": 0, "trace": "a-very-long-trace-value-cut-short"}')
    for concurrency in ("1", "2"):
        result = cli(capsys, "run", write(_doc()), "--server", f"pets={pets.url}", "--inputs-file", rows,
                     "--concurrency", concurrency)  # fmt: skip
        assert result.code == 1
        lines = result.out.splitlines()
        headers = [line for line in lines if line.startswith("== row")]
        assert sorted(headers) == [
            "== row 1 (line 1): petId=1",
            "== row 2 (line 2): petId=0, trace=a-very-long-trace-val...",
        ]
        for header in headers:  # each row's trace follows its header, never interleaved
            assert lines[lines.index(header) + 1].startswith("workflow flow")
        # the marks of a single run on this (UTF-8) stdout, also for rows buffered while they run
        marks = sorted(line.split("  GET")[0] for line in lines if "  GET " in line)
        assert marks == ["  ✓  get", "  ✗  get"]
        assert "✓ flow passed (1 step" in result.out and "✗ flow failed (1 step" in result.out
        assert lines[-1] == "1 of 2 rows passed"


def test_row_secrets_are_masked_in_the_report_and_in_errors(capsys, write, pets, tmp_path):
    rows = _rows(tmp_path, '{"petId": 1, "password": "hunter2-secret-value"}')
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, server=pets)
    assert result.code == 0, result.err
    assert result.json["rows"][0]["inputs"] == {"petId": 1, "password": "***"}
    assert "hunter2-secret" not in result.out
    text = cli(capsys, "run", write(_doc()), "--server", f"pets={pets.url}", "--inputs-file", rows)
    assert "== row 1 (line 1): petId=1, password=***" in text.out and "hunter2" not in text.out
    short = _rows(tmp_path, '{"petId": 1}', '{"petId": 2, "password": "short-secret"}')
    invalid = cli(capsys, "run", write(_doc()), "--inputs-file", short)
    assert invalid.code == 2 and "is too short (--inputs-file row 2, line 2)" in invalid.err
    assert "short-secret" not in invalid.err and "***" in invalid.err


def test_report_files_hold_every_row_each_masked_with_its_own_secrets(capsys, write, pets, tmp_path):
    import xml.etree.ElementTree as ET

    import xmlschema

    secret = "hunter2-secret-value"
    rows = _rows(tmp_path, json.dumps({"petId": 1, "password": secret}), '{"petId": 0}')
    paths = {flag: tmp_path / name for flag, name in [("--report-json", "r.json"), ("--junit", "r.xml"),
                                                       ("--har", "r.har")]}  # fmt: skip
    flags = [str(item) for pair in paths.items() for item in pair]
    result = cli(capsys, "run", write(_doc()), "--server", f"pets={pets.url}", "--inputs-file", rows, *flags)
    assert result.code == 1, result.err  # row 2 failed (404)
    for path in paths.values():
        assert secret not in path.read_text()
    report = json.loads(paths["--report-json"].read_text())
    assert report["status"] == "failed" and report["masked"] is True
    assert [(r["row"], r["line"], r["result"]["status"]) for r in report["rows"]] == [
        (1, 1, "passed"),
        (2, 2, "failed"),
    ]
    assert report["rows"][0]["inputs"] == {"petId": 1, "password": "***"}
    urls = [r["result"]["workflows"][0]["steps"][0]["exchanges"][0]["request"]["url"] for r in report["rows"]]
    assert [url.rsplit("/", 1)[1] for url in urls] == ["1", "0"]
    xmlschema.XMLSchema(str(Path(__file__).with_name("junit.xsd"))).validate(str(paths["--junit"]))
    root = ET.parse(paths["--junit"]).getroot()
    suites = [(s.get("name"), s.get("tests"), s.get("failures")) for s in root.iter("testsuite")]
    assert suites == [("row 1 / flow", "1", "0"), ("row 2 / flow", "1", "1")]
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    entries = json.loads(paths["--har"].read_text())["log"]["entries"]
    comments = sorted(e["comment"] for e in entries)
    assert comments == ["row 1 / flow / get (attempt 1)", "row 2 / flow / get (attempt 1)"]


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([f'{{"petId": {DEEP}}}'], "line 1: not read: it nests deeper than 128 levels"),
        (['{"petId": 1}', f'{{"petId": 2, "trace": {"[" * 129 + "]" * 129}}}'], "line 2: not read: it nests"),
    ],
)
def test_a_row_nesting_too_deep_is_a_usage_error_at_its_line(capsys, write, pets, tmp_path, lines, message):
    """Rows are read by the rule for JSON from outside (`bounds/json_text.py`): 128 levels at most."""
    result = cli(
        capsys, "run", write(_doc()), "--server", f"pets={pets.url}", "--inputs-file", _rows(tmp_path, *lines)
    )
    assert result.code == 2
    assert f"--inputs-file {tmp_path / 'rows.jsonl'}, {message}" in result.err
    assert pets.requests == []


def test_a_lone_surrogate_in_a_row_reads_as_u_fffd(capsys, write, pets, tmp_path):
    """`"\\ud800"` is JSON that no UTF-8 carries: read as U+FFFD, as in every JSON from outside."""
    rows = _rows(tmp_path, '{"petId": 1, "trace": "a\\ud800b\\ud83d\\ude00"}')
    result = run_json(capsys, write(_doc()), "--inputs-file", rows, server=pets)
    assert result.code == 0, result.err
    assert result.json["rows"][0]["inputs"] == {"petId": 1, "trace": "a\ufffdb\U0001f600"}
    assert [r.path for r in pets.requests] == ["/pets/1"]
    named = cli(capsys, "run", write(_doc()), "--inputs-file", _rows(tmp_path, '{"petId": 2, "\\udfff": 1}'))
    assert named.code == 2
    assert "unknown input '\ufffd' (--inputs-file row 1, line 1)" in named.err


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"petId": 1}', "", '{"petId": 2'], "line 3: not valid JSON"),
        (['{"petId": 1}', "[1, 2]"], "line 2: a row must be a JSON object"),
        (["", "  "], "no rows"),
        (['{"petId": 1}', '{"trace": "x"}'], "(--inputs-file row 2, line 2)"),
        (
            ['{"petId": 1}', '{"petId": "one"}'],
            '"one" is not of type "integer" (--inputs-file row 2, line 2)',
        ),
    ],
)
def test_a_bad_row_is_a_usage_error_before_anything_is_sent(capsys, write, pets, tmp_path, lines, message):
    result = cli(
        capsys, "run", write(_doc()), "--server", f"pets={pets.url}", "--inputs-file", _rows(tmp_path, *lines)
    )
    assert result.code == 2
    assert message in result.err
    assert result.out == ""
    assert pets.requests == []


def test_a_missing_input_in_a_row_says_how_to_supply_it(capsys, write, pets, tmp_path):
    result = cli(capsys, "run", write(_doc()), "--inputs-file", _rows(tmp_path, "{}"))
    assert "workflow 'flow' (--inputs-file row 1, line 1) needs inputs that were not given" in result.err
    assert "--input petId=..." in result.err


def test_rows_from_stdin(capsys, monkeypatch, write, pets):
    monkeypatch.setattr("sys.stdin", io.StringIO('{"petId": 5}\n{"petId": 6}\n'))
    result = run_json(capsys, write(_doc()), "--inputs-file", "-", server=pets)
    assert result.code == 0, result.err
    assert len(result.json["rows"]) == 2


def test_an_unreadable_inputs_file_is_a_usage_error(capsys, write, tmp_path):
    result = cli(capsys, "run", write(_doc()), "--inputs-file", tmp_path / "nope.jsonl")
    assert result.code == 2 and "cannot read" in result.err
    bad = cli(capsys, "run", write(_doc()), "--inputs-file", tmp_path / "x", "--concurrency", "0")
    assert bad.code == 2 and "--concurrency" in bad.err


def test_rows_from_a_pipe_as_process_substitution_gives_them(capsys, write, pets):
    """`--inputs-file <(cmd)`: a path to a pipe, which can be read once (as stdin is); every row runs."""
    import os

    read, written = os.pipe()
    try:
        os.write(written, b'{"petId": 5}\n{"petId": 6}\n')
        os.close(written)
        result = run_json(capsys, write(_doc()), "--inputs-file", f"/dev/fd/{read}", server=pets)
    finally:
        os.close(read)
    assert result.code == 0, result.err
    assert [r["inputs"] for r in result.json["rows"]] == [{"petId": 5}, {"petId": 6}]
    assert sorted(r.path for r in pets.requests) == ["/pets/5", "/pets/6"]


@pytest.mark.parametrize("where", ["file", "stdin"])
def test_rows_starting_with_a_byte_order_mark_are_read(capsys, monkeypatch, write, pets, tmp_path, where):
    """Editors on Windows save UTF-8 with a BOM: the first row is still a row (line 1), not invalid JSON."""
    text = '\ufeff{"petId": 5}\n{"petId": 6}\n'
    if where == "file":
        path = tmp_path / "rows.jsonl"
        path.write_bytes(text.encode())
    else:
        path = "-"
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))
    result = run_json(capsys, write(_doc()), "--inputs-file", path, server=pets)
    assert result.code == 0, result.err
    assert [(r["line"], r["inputs"]) for r in result.json["rows"]] == [(1, {"petId": 5}), (2, {"petId": 6})]
