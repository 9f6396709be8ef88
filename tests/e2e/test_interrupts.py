"""Ctrl-C: a real `arazzo run` (and `arazzo load`, and a script calling `run()`) gets SIGINT while a
request hangs on a local server; it exits 130 and what ran is printed and written (JUnit, HAR, the
JSON report, `--format json`), marked interrupted, the step in flight failed as "interrupted before it
completed". The test waits for the hanging request to arrive before it sends the signal (no timing)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import ROOT
from tests.servers.scripted import Recorded, ScriptedServer

PETSTORE = ROOT / "examples/petstore/petstore.arazzo.yaml"
PET = {"id": 1, "name": "Rex", "species": "dog", "status": "available"}
PATIENCE = 120  # seconds to wait for a process to reach a point (a busy machine is slow, never this slow)


@pytest.fixture
def petstore() -> Iterator[tuple[ScriptedServer, threading.Event]]:
    """The example pet store's routes: a pet answers at once; the list of pets hangs until released."""
    release = threading.Event()
    with ScriptedServer() as server:
        server.reply("GET", "/pets/{id}", (200, PET))

        @server.route("GET", "/pets")
        def hang(_: Recorded) -> tuple:
            release.wait(PATIENCE)
            return 200, [PET]

        try:
            yield server, release
        finally:
            release.set()


def _start(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    environment = {k: v for k, v in os.environ.items() if k != "ARAZZO_RUN_PATH"}
    environment.update(env or {})
    return subprocess.Popen(
        argv, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _interrupt_when(process: subprocess.Popen, reached: callable) -> tuple[int, str, str]:
    """SIGINT to `process` once `reached()` holds; its exit code and output."""
    give_up = time.monotonic() + PATIENCE
    while not reached():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < give_up, "the process never got there"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=PATIENCE)
    return process.returncode, out, err


def _hanging(server: ScriptedServer) -> callable:
    return lambda: any(r.path == "/pets" for r in server.requests)


def _arazzo_run(server: ScriptedServer, tmp_path: Path, *extra: str, env: dict | None = None):
    argv = [sys.executable, "-m", "arazzo_runner.cli", "run", str(PETSTORE), "-w", "pet_status",
            "-w", "list_available", "--input", "petId=1", "--server", f"petstore={server.url}",
            *extra]  # fmt: skip
    return _interrupt_when(_start(argv, tmp_path, env), _hanging(server))


@pytest.mark.parametrize("path", ["auto", "asyncio"])
def test_arazzo_run_writes_what_ran_and_exits_130(petstore, tmp_path, path):
    server, _ = petstore
    reports = ["--junit", "run.xml", "--har", "run.har", "--report-json", "run.json"]
    code, out, err = _arazzo_run(server, tmp_path, *reports, env={"ARAZZO_RUN_PATH": path})
    assert code == 130, out + err
    assert "Traceback" not in err
    assert "  ✓  getPet  GET " in out
    assert "  ✗  listAvailable  " in out and "interrupted before it completed" in out
    assert "✗ list_available failed (1 step, " in out
    assert "step listAvailable: interrupted while step 'listAvailable' ran" in out
    assert "1 of 2 workflows passed" in out
    assert err.endswith(
        "interrupted (Ctrl-C) after 2 workflow execution(s); --report-json run.json, --junit run.xml, "
        "--har run.har: written with what ran, marked interrupted\n"
    )

    report = json.loads((tmp_path / "run.json").read_text())
    assert report["interrupted"] is True and report["status"] == "failed"
    first, second = report["workflows"]
    assert (first["workflowId"], first["status"], first["outputs"]["name"]) == ("pet_status", "passed", "Rex")
    assert second["error"] == {
        "stepId": "listAvailable",
        "message": "interrupted while step 'listAvailable' ran",
    }
    (step,) = second["steps"]
    assert (step["stepId"], step["status"], step["error"]) == (
        "listAvailable",
        "failed",
        "interrupted before it completed",
    )

    junit = ET.parse(tmp_path / "run.xml").getroot()
    suites = junit.findall("testsuite")
    assert [s.get("name") for s in suites] == ["pet_status", "list_available"]
    for suite in suites:
        assert [(p.get("name"), p.get("value")) for p in suite.iter("property")] == [("interrupted", "true")]
    (error,) = suites[1].iter("error")
    assert (error.get("type"), error.get("message")) == ("interrupted", "interrupted before it completed")
    assert junit.get("errors") == "1" and junit.get("failures") == "0"

    har = json.loads((tmp_path / "run.har").read_text())["log"]
    assert [e["request"]["url"] for e in har["entries"]] == [f"{server.url}/pets/1"]
    assert har["comment"].startswith("interrupted (Ctrl-C): the exchanges that completed before it")


def test_the_json_document_says_it_was_interrupted(petstore, tmp_path):
    server, _ = petstore
    code, out, err = _arazzo_run(server, tmp_path, "--format", "json")
    assert code == 130, err
    data = json.loads(out)  # one document, as on every exit code
    assert data["interrupted"] is True and data["status"] == "failed"
    assert [w["status"] for w in data["workflows"]] == ["passed", "failed"]


def test_rows_keep_what_ran_and_leave_out_those_not_started(petstore, tmp_path):
    """Each row lists the pets, which hangs: the first row is cut, the others never start."""
    server, _ = petstore
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"limit": 3}\n{"limit": 4}\n{"limit": 5}\n')
    argv = [sys.executable, "-m", "arazzo_runner.cli", "run", str(PETSTORE), "-w", "list_available",
            "--server", f"petstore={server.url}", "--inputs-file", str(rows), "--format", "json",
            "--junit", "rows.xml"]  # fmt: skip
    code, out, err = _interrupt_when(_start(argv, tmp_path), _hanging(server))
    assert code == 130, err
    data = json.loads(out)
    assert data["interrupted"] is True
    (row,) = data["rows"]  # the first row is the one that hangs: it ran, as far as it went
    assert row["row"] == 1 and row["result"]["interrupted"] is True
    assert row["result"]["workflows"][0]["steps"][0]["error"] == "interrupted before it completed"
    suites = ET.parse(tmp_path / "rows.xml").getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == ["row 1 / list_available"]


def test_run_raises_run_interrupted_with_what_ran(petstore, tmp_path):
    server, _ = petstore
    script = tmp_path / "script.py"
    script.write_text(
        "import json, sys\n"
        "import arazzo_runner\n"
        f"doc = arazzo_runner.load({str(PETSTORE)!r})\n"
        "try:\n"
        "    arazzo_runner.run(doc, ['pet_status', 'list_available'], {'petId': 1},\n"
        f"                      servers={{'petstore': {server.url!r}}})\n"
        "except arazzo_runner.RunInterrupted as interrupt:\n"
        "    assert isinstance(interrupt, KeyboardInterrupt)\n"
        "    print(json.dumps(interrupt.result.to_dict()))\n"
    )
    code, out, err = _interrupt_when(_start([sys.executable, str(script)], ROOT), _hanging(server))
    assert code == 0, err
    data = json.loads(out)
    assert data["interrupted"] is True
    assert [(w["workflowId"], w["status"]) for w in data["workflows"]] == [
        ("pet_status", "passed"),
        ("list_available", "failed"),
    ]


def test_arazzo_load_prints_its_statistics_and_exits_130(tmp_path):
    """No run time: the test runs until Ctrl-C, which ends it as its run time would."""
    with ScriptedServer() as server:
        server.reply("GET", "/pets/{id}", (200, PET))
        argv = [sys.executable, "-m", "arazzo_runner.cli", "load", str(PETSTORE), "-w", "pet_status",
                "--input", "petId=1", "--server", f"petstore={server.url}", "-u", "2", "-t", "0",
                "--only-summary", "--junit", "load.xml",
                "--threshold", "failures(pet_status)<1%"]  # fmt: skip
        code, out, err = _interrupt_when(_start(argv, tmp_path), lambda: len(server.requests) >= 20)
    assert code == 130, out + err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "interrupted (Ctrl-C): stopping the users" in err
    assert "pet_status.getPet" in err and "Aggregated" in err  # Locust's statistics table
    steps = int(out.split("arazzo load: ", 1)[1].split(" steps run", 1)[0])
    assert steps >= 20
    assert "steps run (0 failed)" in out  # the workflows in flight finished: none was cut
    assert "thresholds:\n  ok     failures(pet_status)<1%" in out
    assert out.rstrip().endswith(
        "arazzo load: interrupted (Ctrl-C); the statistics are those of what ran until then"
    )
    cases = ET.parse(tmp_path / "load.xml").getroot().iter("testcase")
    assert [c.get("name") for c in cases] == ["failures(pet_status)<1%", "no failed requests"]
