"""`arazzo run --journal FILE`: a run killed (SIGKILL) while a request is in flight, then the same command
again, against a real local server that counts what it receives. The server holds the request it is
told to hold until the test has killed the client: events, not sleeps, order the two."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from tests.e2e.counter_flows import step as _step
from tests.e2e.counter_flows import write_flow
from tests.e2e.helpers import ROOT, subprocess_cli
from tests.servers.scripted import ScriptedServer

HANG_GUARD = 300  # seconds: only so that a broken test ends; nothing here measures time


def _write(tmp_path: Path, steps: list[dict[str, Any]], outputs: dict[str, str]) -> Path:
    return write_flow(tmp_path, steps, outputs, "journal")


def _three_steps(tmp_path: Path) -> Path:
    steps = [
        _step("first", "one", outputs={"token": "$response.body#/token"}),
        _step(
            "second",
            "two",
            requestBody={"payload": {"token": "$steps.first.outputs.token"}},
            outputs={"echo": "$response.body#/echo"},
        ),
        _step("third", "three", outputs={"count": "$response.body#/count"}),
    ]
    outputs = {
        "token": "$steps.first.outputs.token",
        "echo": "$steps.second.outputs.echo",
        "count": "$steps.third.outputs.count",
    }
    return _write(tmp_path, steps, outputs)


class _Hold:
    """Holds the requests it is asked to (`holding`) until `release`; `arrived` is set once `expected`
    of them are held."""

    def __init__(self, expected: int = 1) -> None:
        self.arrived = threading.Event()
        self.released = threading.Event()
        self.holding = True
        self.expected = expected
        self._lock = threading.Lock()

    def maybe(self) -> None:
        if self.holding:
            with self._lock:
                self.expected -= 1
                if self.expected <= 0:
                    self.arrived.set()
            assert self.released.wait(HANG_GUARD)

    def release(self) -> None:
        self.holding = False
        self.released.set()


def _argv(doc: Path, server: ScriptedServer, journal: Path, *extra: Any) -> list[str]:
    return [
        "run", str(doc), "--server", f"api={server.url}", "--journal", str(journal),
        "--idempotency-header", "Idempotency-Key", *map(str, extra),
    ]  # fmt: skip


def _killed_when(hold: _Hold, argv: list[str]) -> None:
    """`arazzo ARGV` as a child process, SIGKILLed once the server holds its request."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arazzo_runner.cli", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    try:
        while not hold.arrived.wait(0.05):  # the held request arrives, or the run ended without it
            assert proc.poll() is None, f"the run ended (exit {proc.returncode}) before the held request"
        proc.kill()  # SIGKILL: no handler, no cleanup, the journal as it was on disk
        assert proc.wait(HANG_GUARD) == -9
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        hold.release()


def _counting_server(hold: _Hold, held_path: str) -> ScriptedServer:
    server = ScriptedServer()

    @server.route("POST", "/one/{id}")
    def one(request):
        return 200, {"token": f"t{request.params['id']}"}

    @server.route("POST", "/two/{id}")
    def two(request):
        if request.path == held_path:
            hold.maybe()
        return 200, {"echo": request.json()["token"]}

    @server.route("POST", "/three/{id}")
    def three(request):
        return 200, {"count": len(server.requests)}

    return server


def test_killed_in_step_two_resumes_sending_step_two_again_and_nothing_before(tmp_path):
    doc = _three_steps(tmp_path)
    journal = tmp_path / "run.journal"
    hold = _Hold()
    with _counting_server(hold, "/two/7") as server:
        _killed_when(hold, _argv(doc, server, journal, "--input", "id=7"))
        assert [r.path for r in server.requests] == ["/one/7", "/two/7"]
        assert stat.S_IMODE(os.stat(journal).st_mode) == 0o600  # it holds responses
        wal = Path(f"{journal}-wal")
        if wal.exists():  # SQLite's write-ahead log, left by the killed run: the same mode
            assert stat.S_IMODE(os.stat(wal).st_mode) == 0o600
        report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
        resumed = subprocess_cli(
            *_argv(doc, server, journal, "--input", "id=7", "--format", "json"),
            *("--report-json", report, "--junit", junit),
            timeout=HANG_GUARD,
        )
        sent = [r.path for r in server.requests]
        keys = [r.headers.get("idempotency-key") for r in server.requests]
    assert resumed.code == 0, resumed.err
    assert sent == ["/one/7", "/two/7", "/two/7", "/three/7"]  # step 1 once, step 2 again, step 3 once
    assert keys[1] == keys[2] and len(set(keys)) == 3  # the resend carries the same key
    assert "1 exchange(s) answered from it" in resumed.err
    workflow = resumed.json["workflows"][0]
    # an uninterrupted run's outputs: the third step saw the 4 requests the server had by then
    assert workflow["outputs"] == {"token": "t7", "echo": "t7", "count": 4}
    assert [(s["stepId"], s["status"]) for s in workflow["steps"]] == [
        ("first", "passed"),
        ("second", "passed"),
        ("third", "passed"),
    ]
    steps = json.loads(report.read_text())["workflows"][0]["steps"]
    assert [len(s["exchanges"]) for s in steps] == [1, 1, 1]  # the first one answered by the journal
    assert steps[0]["exchanges"][0]["response"]["status"] == 200
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "0", "0")


def test_killed_in_a_row_run_resends_only_the_rows_in_flight(tmp_path):
    steps = [
        _step("first", "one", outputs={"token": "$response.body#/token"}),
        _step(
            "second",
            "two",
            requestBody={"payload": {"token": "$steps.first.outputs.token"}},
            outputs={"echo": "$response.body#/echo"},
        ),
    ]
    doc = _write(tmp_path, steps, {"echo": "$steps.second.outputs.echo"})
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"id": {i}}}\n' for i in range(1, 201)))
    journal = tmp_path / "rows.journal"
    hold = _Hold()
    server = ScriptedServer()
    lock = threading.Lock()
    seen = [0]

    def answer(request: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with lock:
            seen[0] += 1
            hold_it = seen[0] > 150  # every request after the 150th waits until the client is killed
        if hold_it:
            hold.maybe()
        return 200, body

    server.route("POST", "/one/{id}")(lambda r: answer(r, {"token": f"t{r.params['id']}"}))
    server.route("POST", "/two/{id}")(lambda r: answer(r, {"echo": r.json()["token"]}))
    argv = _argv(doc, server, journal, "--inputs-file", rows, "--concurrency", "4")
    with server:
        _killed_when(hold, argv)
        before = Counter(r.path for r in server.requests)
        resumed = subprocess_cli(*argv, "--format", "json", timeout=HANG_GUARD)
        after = Counter(r.path for r in server.requests)
    assert resumed.code == 0, resumed.err
    data = resumed.json
    assert [r["result"]["workflows"][0]["outputs"] for r in data["rows"]] == [
        {"echo": f"t{i}"} for i in range(1, 201)
    ]
    assert set(after) == {f"/{op}/{i}" for op in ("one", "two") for i in range(1, 201)}
    assert max(after.values()) <= 2  # each step of each row at most once more than an uninterrupted run
    again = {path for path, count in after.items() if count == 2}
    assert again and len(again) <= 4  # the requests in flight at the kill: one per row running
    assert all(before[path] == 1 for path in again)  # ...which had been sent, and were sent once more
    finished = int(resumed.err.split(" row(s) had finished")[0].rsplit(" ", 1)[1])
    complete = sum(1 for i in range(1, 201) if before[f"/two/{i}"] == 1 and f"/two/{i}" not in again)
    assert complete - 4 <= finished <= complete  # the rows answered whole before the kill (but those
    # whose end the killed run had not yet written)


def test_another_inputs_or_document_with_the_same_journal_sends_nothing(tmp_path):
    doc = _three_steps(tmp_path)
    journal = tmp_path / "run.journal"
    hold = _Hold()
    hold.holding = False
    with _counting_server(hold, "") as server:
        first = subprocess_cli(*_argv(doc, server, journal, "--input", "id=1"), timeout=HANG_GUARD)
        assert first.code == 0, first.err
        sent = len(server.requests)
        other = subprocess_cli(*_argv(doc, server, journal, "--input", "id=2"), timeout=HANG_GUARD)
        assert other.code == 2
        assert "belongs to another run (not the same inputs); nothing was sent" in other.err
        doc.write_text(doc.read_text().replace("title: journal", "title: another"))
        changed = subprocess_cli(*_argv(doc, server, journal, "--input", "id=1"), timeout=HANG_GUARD)
        assert changed.code == 2
        assert "(not the same document)" in changed.err
        assert len(server.requests) == sent  # neither sent anything


def test_killed_with_steps_side_by_side_resends_each_in_flight_and_nothing_else(tmp_path):
    steps = [
        _step("first", "one", outputs={"token": "$response.body#/token"}),
        *(
            _step(
                step_id,
                "two",
                requestBody={"payload": {"token": "$steps.first.outputs.token", "side": step_id}},
                outputs={"echo": "$response.body#/echo"},
            )
            for step_id in ("left", "right")
        ),
        _step("last", "three", dependsOn=["left", "right"], outputs={"count": "$response.body#/count"}),
    ]
    outputs = {"left": "$steps.left.outputs.echo", "right": "$steps.right.outputs.echo"}
    doc = _write(tmp_path, steps, outputs)
    journal = tmp_path / "run.journal"
    hold = _Hold(expected=2)  # both steps beside each other are in flight when the run is killed
    with _counting_server(hold, "/two/5") as server:
        argv = _argv(doc, server, journal, "--input", "id=5", "--parallel", "2")
        _killed_when(hold, argv)
        resumed = subprocess_cli(*argv, "--format", "json", timeout=HANG_GUARD)
        sent = Counter(r.path for r in server.requests)
        sides = Counter(
            (r.json()["side"], r.headers["idempotency-key"]) for r in server.requests if r.path == "/two/5"
        )
    assert resumed.code == 0, resumed.err
    assert sent == {"/one/5": 1, "/two/5": 4, "/three/5": 1}  # each of the two in flight sent again
    assert sorted(sides.values()) == [2, 2]  # each step's resend with its own first key
    assert resumed.json["workflows"][0]["outputs"] == {"left": "t5", "right": "t5"}


def test_killed_in_a_retry_resumes_at_that_attempt(tmp_path):
    retry = [{"name": "again", "type": "retry", "retryAfter": 0, "retryLimit": 3}]
    steps = [
        _step("first", "one", outputs={"token": "$response.body#/token"}),
        _step("second", "two", onFailure=retry),
    ]
    doc = _write(tmp_path, steps, {"token": "$steps.first.outputs.token"})
    journal = tmp_path / "run.journal"
    hold = _Hold()
    server = ScriptedServer()
    server.route("POST", "/one/{id}")(lambda r: (200, {"token": "t"}))
    attempts = [0]

    @server.route("POST", "/two/{id}")
    def two(request):
        attempts[0] += 1
        if attempts[0] == 1:
            return 503, {"error": "busy"}
        if attempts[0] == 2:
            hold.maybe()  # the retry, held until the client is killed
        return 200, {}

    with server:
        argv = _argv(doc, server, journal, "--input", "id=3")
        _killed_when(hold, argv)
        resumed = subprocess_cli(*argv, "--format", "json", timeout=HANG_GUARD)
        sent = [(r.path, r.headers["idempotency-key"]) for r in server.requests]
    assert resumed.code == 0, resumed.err
    # the 503 answered from the journal, the retry in flight sent again: 3 attempts at /two in all
    assert [path for path, _ in sent] == ["/one/3", "/two/3", "/two/3", "/two/3"]
    assert len({key for path, key in sent if path == "/two/3"}) == 1  # one step execution, one key
    second = resumed.json["workflows"][0]["steps"][1]
    assert (second["status"], second["attempts"]) == ("passed", 2)  # as an uninterrupted run counts
