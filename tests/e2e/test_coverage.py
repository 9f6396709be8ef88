"""API coverage (`docs/testing.md`, *Coverage*) against the real library server (`tests/servers/library.py`):
`arazzo run --coverage` (the table, `coverage` in --report-json and --format json, the HTML page's data),
the exit codes of `--min-coverage` with the figures and what was missed, `arazzo report --coverage`
merging two runs, and the static `arazzo coverage DOC`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.helpers import cli
from tests.servers.library import DESCRIPTION, KEY, LibraryServer
from tests.timeouts import long_test

TOTALS = "operations 2/7 (28.6%), statuses 3/13 (23.1%), parameters 1/5 (20.0%), body properties 2/10 (20.0%)"
MISSING_BOOK = "00000000-0000-0000-0000-000000000000"
FLOW = {
    "arazzo": "1.0.1",
    "info": {"title": "library coverage", "version": "1"},
    "sourceDescriptions": [{"name": "library", "url": "./library.openapi.yaml", "type": "openapi"}],
    "workflows": [
        {
            "workflowId": "addAndRead",
            "steps": [
                {
                    "stepId": "create",
                    "operationId": "createBook",
                    "requestBody": {"payload": {"title": "Kindred", "author": "Octavia E. Butler"}},
                    "successCriteria": [{"condition": "$statusCode == 201"}],
                    "outputs": {"id": "$response.body#/id"},
                },
                {
                    "stepId": "read",
                    "operationId": "getBook",
                    "parameters": [{"name": "bookId", "in": "path", "value": "$steps.create.outputs.id"}],
                    "successCriteria": [{"condition": "$statusCode == 200"}],
                },
            ],
        },
        {
            "workflowId": "missing",
            "steps": [
                {
                    "stepId": "readMissing",
                    "operationId": "getBook",
                    "parameters": [{"name": "bookId", "in": "path", "value": MISSING_BOOK}],
                    "successCriteria": [{"condition": "$statusCode == 404"}],
                }
            ],
        },
    ],
}


@pytest.fixture(scope="module")
def library():
    with LibraryServer() as server:
        yield server


@pytest.fixture
def flow(tmp_path: Path) -> Path:
    shutil.copy(DESCRIPTION, tmp_path / "library.openapi.yaml")
    path = tmp_path / "library.arazzo.yaml"
    path.write_text(yaml.safe_dump(FLOW, sort_keys=False))
    return path


def _run(capsys: Any, flow: Path, library: Any, *argv: Any) -> Any:
    return cli(
        capsys, "run", flow, "--server", f"library={library.url}", "--auth", f"libraryKey={KEY}", *argv
    )


def _ops(section: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (source,) = section["sources"]
    return {f"{o['method']} {o['path']}": o for o in source["operations"]}


def test_the_table_and_the_report_files_say_what_was_covered(capsys, flow, library, tmp_path) -> None:
    report, page = tmp_path / "run.json", tmp_path / "run.html"
    result = _run(capsys, flow, library, "--coverage", "--report-json", report, "--html", page)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    start = lines.index("API coverage")
    table = [re.sub(r"\s+", " ", line.strip()) for line in lines[start + 1 :]]
    assert table == [
        "library (./library.openapi.yaml)",
        "operation calls statuses parameters body",
        "GET /books listBooks 0 0/1 0/1 -",
        "POST /books createBook 1 1/2 - 2/4",
        "GET /books/{bookId} getBook 2 2/2 1/1 -",
        "DELETE /books/{bookId} deleteBook 0 0/2 0/1 -",
        "PATCH /books/{bookId} updateBook 0 0/2 0/1 0/4",
        "POST /loans lendBook 0 0/2 - 0/2",
        "GET /loans/{loanId} getLoan 0 0/2 0/1 -",
        "operations 2/7 (28.6%), statuses 3/13 (23.1%), parameters 1/5 (20.0%), body properties 2/10 (20.0%)",
    ]
    section = json.loads(report.read_text())["coverage"]
    ops = _ops(section)
    assert ops["POST /books"]["calls"] == 1
    assert ops["POST /books"]["statuses"] == {
        "documented": ["201", "400"],
        "seen": ["201"],
        "undocumented": [],
    }
    assert ops["POST /books"]["bodyProperties"] == {
        "documented": ["title", "author", "year", "tags"],
        "sent": ["title", "author"],
    }
    assert ops["GET /books/{bookId}"]["calls"] == 2
    assert ops["GET /books/{bookId}"]["statuses"]["seen"] == ["200", "404"]
    assert ops["GET /books/{bookId}"]["parameters"] == {
        "documented": ["path bookId"],
        "sent": ["path bookId"],
    }
    assert ops["GET /books"]["calls"] == 0
    assert section["totals"]["operations"] == {"covered": 2, "total": 7, "percent": 28.6}
    assert section["totals"]["statuses"] == {"covered": 3, "total": 13, "percent": 23.1}
    data = page.read_text()
    embedded = re.search(r'<script type="application/json" id="arazzo-data">(.*?)</script>', data, re.S)
    assert embedded is not None
    assert json.loads(embedded.group(1))["coverage"]["totals"] == section["totals"]
    assert "renderCoverage" in data


def test_format_json_holds_the_section_and_no_table(capsys, flow, library) -> None:
    result = _run(capsys, flow, library, "--coverage", "--format", "json", "-w", "missing")
    assert result.code == 0, result.err
    data = result.json
    assert _ops(data["coverage"])["GET /books/{bookId}"]["statuses"]["seen"] == ["404"]
    assert data["coverage"]["totals"]["operations"]["covered"] == 1
    assert "API coverage" not in result.err


def test_min_coverage_exits_1_below_it_with_the_figure_and_what_was_missed(capsys, flow, library) -> None:
    passing = _run(capsys, flow, library, "--min-coverage", "25")
    assert passing.code == 0, passing.err
    assert "API coverage" in passing.out  # implies --coverage
    below = _run(capsys, flow, library, "--min-coverage", "ops:50,status:20,params:30")
    assert below.code == 1
    assert below.err.splitlines() == [
        "coverage: operations 2/7 (28.6%) is below the minimum of 50%; missed: GET /books, "
        "DELETE /books/{bookId}, PATCH /books/{bookId}, POST /loans, GET /loans/{loanId}",
        "coverage: parameters 1/5 (20.0%) is below the minimum of 30%; missed: GET /books query author, "
        "DELETE /books/{bookId} path bookId, PATCH /books/{bookId} path bookId, "
        "GET /loans/{loanId} path loanId",
    ]
    assert "2 of 2 workflows passed" in below.out  # the run passed: only the coverage failed it
    body = _run(capsys, flow, library, "--min-coverage", "body:21")
    assert body.code == 1
    assert "body properties 2/10 (20.0%) is below the minimum of 21%; missed: POST /books year," in body.err


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("ops:eighty", "--min-coverage ops:eighty: 'eighty' is not a percentage from 0 to 100"),
        ("lines:80", "--min-coverage lines:80: unknown kind 'lines' (ops, status, params, body)"),
        ("120", "--min-coverage 120: '120' is not a percentage from 0 to 100"),
    ],
)
def test_a_malformed_minimum_is_a_usage_error_before_anything_runs(
    capsys, flow, library, given, said
) -> None:
    sent = len(library.requests)
    result = _run(capsys, flow, library, "--min-coverage", given)
    assert result.code == 2
    assert said in result.err
    assert len(library.requests) == sent


def test_report_merges_the_coverage_of_two_runs(capsys, flow, library, tmp_path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert _run(capsys, flow, library, "--coverage", "-w", "addAndRead", "--report-json", first).code == 0
    assert _run(capsys, flow, library, "--coverage", "-w", "missing", "--report-json", second).code == 0
    alone = json.loads(second.read_text())["coverage"]
    assert _ops(alone)["GET /books/{bookId}"]["calls"] == 1
    merged = cli(capsys, "report", "--coverage", first, second)
    assert merged.code == 0, merged.err
    rows = {re.sub(r"\s+", " ", line.strip()) for line in merged.out.splitlines()}
    assert "GET /books/{bookId} getBook 2 2/2 1/1 -" in rows  # 200 from one run, 404 from the other
    assert "POST /books createBook 1 1/2 - 2/4" in rows
    page = tmp_path / "merged.html"
    below = cli(capsys, "report", first, second, "-o", page, "--min-coverage", "status:30")
    assert below.code == 1
    assert "coverage: statuses 3/13 (23.1%) is below the minimum of 30%; missed: GET /books 200," in below.err
    assert page.exists()
    plain = tmp_path / "plain.json"
    assert _run(capsys, flow, library, "-w", "missing", "--report-json", plain).code == 0
    assert "coverage" not in json.loads(plain.read_text())
    refused = cli(capsys, "report", "--coverage", first, plain)
    assert refused.code == 2
    assert "--coverage: plain.json: saved without coverage" in refused.err


def test_static_coverage_lists_the_operations_no_workflow_references(capsys, flow) -> None:
    result = cli(capsys, "coverage", flow)
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "library (./library.openapi.yaml)",
        "  2/7 operations referenced by a workflow",
        "  not referenced:",
        "    GET /books  listBooks",
        "    DELETE /books/{bookId}  deleteBook",
        "    PATCH /books/{bookId}  updateBook",
        "    POST /loans  lendBook",
        "    GET /loans/{loanId}  getLoan",
    ]
    data = cli(capsys, "coverage", flow, "--format", "json").json
    ops = {f"{o['method']} {o['path']}": o for o in data["sources"][0]["operations"]}
    assert ops["GET /books/{bookId}"]["referencedBy"] == ["addAndRead.read", "missing.readMissing"]
    assert ops["POST /books"]["referencedBy"] == ["addAndRead.create"]
    assert data["totals"] == {"referenced": 2, "total": 7, "percent": 28.6}
    below = cli(capsys, "coverage", flow, "--min-coverage", "30")
    assert below.code == 1
    assert "coverage: 2/7 operations referenced (28.6%) is below the minimum of 30%" in below.err
    assert cli(capsys, "coverage", flow, "--min-coverage", "28").code == 0


@long_test
def test_load_counts_the_coverage_of_its_runs_and_exits_1_below_the_minimum(library, flow) -> None:
    """A whole Locust run in a child process (Locust patches the process that imports it)."""
    from tests.e2e.loadkit import arazzo_load, finish

    process = arazzo_load(
        flow, "--server", f"library={library.url}", "--auth", f"libraryKey={KEY}", "-u", "1", "-t", "2s",
        "--only-summary", "--min-coverage", "ops:50",
    )  # fmt: skip
    code, out, err = finish(process)
    assert code == 1, out + err
    rows = [re.sub(r"\s+", " ", line.strip()) for line in out.splitlines()]
    start = rows.index("API coverage")
    assert rows[start + 1 : start + 3] == [
        "library (./library.openapi.yaml)",
        "operation calls statuses parameters body",
    ]
    read = next(row for row in rows if row.startswith("GET /books/{bookId} getBook "))
    assert re.fullmatch(r"GET /books/\{bookId\} getBook \d+ 2/2 1/1 -", read), read
    assert "operations 2/7 (28.6%), statuses 3/13 (23.1%)," in out
    assert "coverage: operations 2/7 (28.6%) is below the minimum of 50%; missed: GET /books," in out


def test_load_counts_the_coverage_of_every_worker(library, flow) -> None:
    """`--workers 2`: the runs are the workers', each worker's counts reach the master with its
    statistics reports, and the master's table holds them all (the master itself runs nothing)."""
    from tests.e2e.loadkit import arazzo_load, finish

    before = len(library.requests)  # (the server is the module's)
    process = arazzo_load(
        flow, "--server", f"library={library.url}", "--auth", f"libraryKey={KEY}", "-u", "2", "-t", "3s",
        "--only-summary", "--coverage", "--workers", "2",
    )  # fmt: skip
    code, out, err = finish(process)
    assert code == 0, out + err
    rows = [re.sub(r"\s+", " ", line.strip()) for line in out.splitlines()]
    assert rows.count("API coverage") == 1, out  # the master's table only: a worker prints none
    read = next(row for row in rows if row.startswith("GET /books/{bookId} getBook "))
    assert re.fullmatch(r"GET /books/\{bookId\} getBook \d+ 2/2 1/1 -", read), read
    calls = int(read.split()[3])
    sent = library.requests[before:]
    made = sum(1 for r in sent if r.method == "GET" and r.path.startswith("/books/"))
    assert calls == made  # every read the workers made, counted once
    assert "operations 2/7 (28.6%), statuses 3/13 (23.1%)," in out


def test_the_html_page_shows_a_coverage_tab(capsys, flow, library, tmp_path) -> None:
    from tests.e2e.browserkit import Browser

    page = tmp_path / "run.html"
    assert _run(capsys, flow, library, "--coverage", "--html", page).code == 0
    browser = Browser()
    try:
        browser.open(page)
        browser.click("#tab-coverage")
        totals = browser.find("#coverage-totals").text
        assert totals == TOTALS
        rows = [
            row.text for row in browser.driver.find_elements("css selector", "#view-coverage table tbody tr")
        ]
        assert "POST /books createBook 1 1/2 (missed: 400) - 2/4 (missed: year, tags)" in rows
        assert browser.console_errors() == []
    finally:
        browser.close()


def test_the_markdown_summary_has_a_coverage_section(capsys, flow, library, tmp_path) -> None:
    summary = tmp_path / "summary.md"
    assert _run(capsys, flow, library, "--coverage", "--summary", summary).code == 0
    text = summary.read_text()
    section = text[text.index("#### API coverage") :].splitlines()
    assert section == [
        "#### API coverage",
        "",
        f"**library** (./library.openapi.yaml): {TOTALS}",
        "",
        "| | operation | operationId | calls | statuses | parameters | body |",
        "|---|---|---|---|---|---|---|",
        "| ❌ | GET /books | listBooks | 0 | 0/1 | 0/1 | - |",
        "| ❌ | DELETE /books/{bookId} | deleteBook | 0 | 0/2 | 0/1 | - |",
        "| ❌ | PATCH /books/{bookId} | updateBook | 0 | 0/2 | 0/1 | 0/4 |",
        "| ❌ | POST /loans | lendBook | 0 | 0/2 | - | 0/2 |",
        "| ❌ | GET /loans/{loanId} | getLoan | 0 | 0/2 | 0/1 | - |",
        "| ✅ | POST /books | createBook | 1 | 1/2 | - | 2/4 |",
        "| ✅ | GET /books/{bookId} | getBook | 2 | 2/2 | 1/1 | - |",
    ]
    plain = tmp_path / "plain.md"
    assert _run(capsys, flow, library, "--summary", plain).code == 0
    assert "API coverage" not in plain.read_text()  # only with --coverage


BY_ID = {
    **FLOW,
    "workflows": [
        {
            "workflowId": "byId",
            "inputs": {"type": "object", "properties": {"bookId": {"type": "string"}}},
            "steps": [
                {
                    "stepId": "read",
                    "operationId": "getBook",
                    "parameters": [{"name": "bookId", "in": "path", "value": "$inputs.bookId"}],
                    "successCriteria": [{"condition": "$statusCode == 200"}],
                }
            ],
        }
    ],
}


@pytest.mark.parametrize("held", [False, True], ids=["spooled", "held"])
def test_coverage_counts_across_the_rows_of_an_inputs_file(capsys, library, tmp_path, held) -> None:
    """Each row's calls add up: row 1 reads a book (200), row 2 a missing one (404, the row fails)."""
    from tests.servers.library import SEEDED

    shutil.copy(DESCRIPTION, tmp_path / "library.openapi.yaml")
    path = tmp_path / "byid.arazzo.yaml"
    path.write_text(yaml.safe_dump(BY_ID, sort_keys=False))
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"bookId": SEEDED}) + "\n" + json.dumps({"bookId": MISSING_BOOK}) + "\n")
    report = tmp_path / "rows.json"
    argv = ["--inputs-file", rows, "--coverage", "--report-json", report]
    argv += ["--summary", tmp_path / "rows.md"] if held else []  # every row held for the summary
    result = _run(capsys, path, library, *argv)
    assert result.code == 1, result.err  # row 2 failed
    assert "1 of 2 rows passed" in result.out
    table = [re.sub(r"\s+", " ", line.strip()) for line in result.out.splitlines()]
    assert "GET /books/{bookId} getBook 2 2/2 1/1 -" in table
    assert table[-1].startswith("operations 1/7 (14.3%), statuses 2/13 (15.4%)")
    section = json.loads(report.read_text())["coverage"]
    assert _ops(section)["GET /books/{bookId}"]["statuses"]["seen"] == ["200", "404"]
    assert _ops(section)["GET /books/{bookId}"]["calls"] == 2
    as_json = _run(capsys, path, library, "--inputs-file", rows, "--format", "json", "--min-coverage", "20")
    assert as_json.code == 1
    assert as_json.json["coverage"]["totals"]["operations"] == {"covered": 1, "total": 7, "percent": 14.3}
    assert "coverage: operations 1/7 (14.3%) is below the minimum of 20%; missed: GET /books," in as_json.err


def test_the_static_gate_never_passes_what_it_cannot_measure(capsys, flow) -> None:
    """`arazzo coverage --min-coverage status:90` kept only the operations' minimum and passed (exit 0,
    nothing said); with the description unreadable, `--min-coverage 80` passed too (found by review)."""
    refused = cli(capsys, "coverage", flow, "--min-coverage", "status:90")
    assert refused.code == 2
    assert "reference; statuses are counted by a run (`arazzo run --coverage`)" in refused.err
    (flow.parent / "library.openapi.yaml").unlink()
    unread = cli(capsys, "coverage", flow, "--min-coverage", "80")
    assert unread.code == 1
    assert "coverage: the minimum of 80% cannot be checked: not read: library" in unread.err
