"""`arazzo load` headless against a real local server: distributed (a master and two workers, each its
own process, on loopback and free ports), local workers (`--workers 2`), thresholds and their JUnit
report, and every usage error caught before Locust starts."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET

import pytest

from arazzo_runner.extras import install_hint
from tests.e2e.helpers import subprocess_cli
from tests.e2e.loadkit import (
    SECRET,
    Counter,
    arazzo_load,
    finish,
    free_port,
    serve,
    stats_rows,
    write_documents,
)
from tests.servers.scripted import ScriptedServer
from tests.timeouts import long_test

STEP_ROWS = {"browse.list", "browse.show", "adopt.create"}
WORKFLOW_ROWS = {"workflow browse", "workflow adopt"}


@pytest.fixture
def shop(tmp_path):
    path = write_documents(tmp_path)
    (tmp_path / "rows.jsonl").write_text('{"who": "ann"}\n{"who": "bob"}\n{"who": "cyd"}\n')
    counter = Counter()
    with ScriptedServer() as server:
        serve(server, counter)
        yield path, server, counter


def flags(shop, *extra):
    path, server, _ = shop
    return [
        path, "-w", "browse=3", "-w", "adopt", "--server", f"pets={server.url}", "--auth", f"bearer={SECRET}",
        "--inputs-file", path.parent / "rows.jsonl", "--only-summary", *extra,
    ]  # fmt: skip


@long_test
def test_a_master_and_two_workers_count_exactly_what_the_server_answered(shop, tmp_path) -> None:
    port = free_port()
    prefix = tmp_path / "run"
    master = arazzo_load(
        *flags(shop, "--expect-workers", 2, "--master-port", port, "-u", 4, "-t", "3s"),
        "--csv", prefix, "--html", tmp_path / "report.html",
    )  # fmt: skip
    workers = [arazzo_load(*flags(shop, "--worker", "--master-port", port)) for _ in range(2)]
    code, out, err = finish(master)
    ended = [finish(worker) for worker in workers]
    assert code == 0, out + err
    assert [worker[0] for worker in ended] == [0, 0], ended
    assert "2 workers connected" in err
    rows = stats_rows(prefix)
    assert set(rows) == STEP_ROWS | WORKFLOW_ROWS | {"Aggregated"}
    assert {rows[name]["Type"] for name in STEP_ROWS} == {"GET", "POST"}
    assert {rows[name]["Type"] for name in WORKFLOW_ROWS} == {"WORKFLOW"}
    assert all(row["Failure Count"] == "0" for row in rows.values())
    counter = shop[2]
    steps = {name: int(rows[name]["Request Count"]) for name in STEP_ROWS}
    assert steps == {"browse.list": counter.count["list"], "browse.show": counter.count["show"],
                     "adopt.create": counter.count["create"]}  # fmt: skip
    assert sum(steps.values()) == counter.total > 0
    runs = {name: int(rows[name]["Request Count"]) for name in WORKFLOW_ROWS}
    assert runs == {"workflow browse": steps["browse.list"], "workflow adopt": steps["adopt.create"]}
    assert runs["workflow browse"] > runs["workflow adopt"]  # weights 3 : 1, over hundreds of runs
    assert counter.tokens == {f"Bearer {SECRET}"}
    assert counter.traces == {
        "ann",
        "bob",
        "cyd",
    }  # a row per user: worker 0 starts at row 1, worker 1 at row 2
    assert f"arazzo load: {counter.total} steps run (0 failed)" in out
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "browse.show" in html and SECRET not in html


@long_test
def test_a_threshold_that_cannot_hold_exits_1_and_is_named(shop, tmp_path) -> None:
    """Also: local workers (`--workers 2`), and `--rows-per iteration`: two users go through all three
    rows (one row per user would show two)."""
    junit = tmp_path / "out" / "load.xml"  # the folder is made, as Locust makes --csv's
    process = arazzo_load(
        *flags(shop, "--workers", 2, "--master-port", free_port(), "-u", 2, "-t", "2s", "--junit", junit),
        "--rows-per", "iteration", "--threshold", "p95(show)<60s", "--threshold", "rps(browse)>=1000000",
        "--threshold", "failures(adopt.create)<1%", "--threshold", "avg(*)<60s",
    )  # fmt: skip
    code, out, err = finish(process)
    assert code == 1, out + err
    assert "BROKEN rps(browse)>=1000000" in out
    assert "1 of 4 thresholds broken: rps(browse)>=1000000" in out
    assert "ok     p95(show)<60s" in out and "ok     failures(adopt.create)<1%" in out
    assert "ok     avg(*)<60s" in out and "(every step)" in out  # Locust's own entries, merged
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == {"p95(show)<60s", "rps(browse)>=1000000", "failures(adopt.create)<1%",
                          "avg(*)<60s", "no failed requests"}  # fmt: skip
    assert [name for name, case in cases.items() if case.find("failure") is not None] == [
        "rps(browse)>=1000000"
    ]
    assert suite.get("tests") == "5" and suite.get("failures") == "1"
    assert "(workflow browse)" in cases["rps(browse)>=1000000"].find("failure").get("message")
    assert shop[2].traces == {"ann", "bob", "cyd"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--threshold", "p95(nothing)<1s"], "no step or workflow 'nothing'"),
        (["--threshold", "p95(show)<1%"], "p95 is a time: give ms or s"),
        (["--threshold", "fast(show)"], "expected METRIC(NAME) OP LIMIT"),
        (["--worker", "--threshold", "rps(browse)>1"], "--threshold is the master's"),
        (["--master-host", "10.0.0.1"], "add --worker"),
        (["-w", "browse=x"], "the weight after '=' is a whole number"),
        (["-w", "nope"], "no workflow 'nope'"),
    ],
)
def test_usage_errors_stop_before_locust_starts(shop, extra, message) -> None:
    result = subprocess_cli("load", *flags(shop, *extra))
    assert result.code == 2, result.out + result.err
    assert message in result.err
    assert "Starting Locust" not in result.err


def test_a_row_missing_a_required_input_is_named_with_its_line(shop, tmp_path) -> None:
    (tmp_path / "rows.jsonl").write_text('{"who": "ann"}\n\n{"limit": 3}\n')
    result = subprocess_cli("load", *flags(shop))
    assert result.code == 2
    assert "workflow 'adopt' (--inputs-file row 2, line 3) needs inputs that were not given" in result.err
    assert "Starting Locust" not in result.err


def test_without_locust_one_line_says_what_to_install(shop) -> None:
    args = json.dumps(["load", *map(str, flags(shop))])
    code = (
        "import sys; sys.modules['locust'] = None\n"  # what find_spec and import see without Locust
        f"from arazzo_runner.cli import main; sys.exit(main({args}))"
    )
    result = subprocess_cli_code(code)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: Locust is not installed; load testing needs it: {install_hint('load')}"
    ]


def subprocess_cli_code(code: str):
    import subprocess

    from tests.e2e.helpers import ROOT

    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )
