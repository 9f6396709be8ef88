"""Parallel steps (`--parallel N`, issue 36) over real HTTP: steps whose prerequisites have completed run
side by side, up to N requests at once, with the outcome of a sequential run; reports in the run order.

Concurrency is shown without clocks: a server that holds each request until K of them are in flight
(a barrier) can only answer a run that has K requests in flight at once; a sequential run would wait
for it in vain (each test that shows concurrency passes only if it happened)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import arazzo_runner
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import execute, flaky, goto, hits, only, pet, retry, trail, when

V11 = "1.1.0"
WAIT = 60  # seconds a barrier waits for the requests a test expects side by side (a broken one fails)


class Tracker:
    """Each GET /pets/{petId} recorded with when it arrived and when it was answered (monotonic), and
    how many were in flight at most; `held` petIds wait at a barrier of `together` requests."""

    def __init__(self, server, together: int = 0, held: tuple[str, ...] = ()) -> None:
        self.lock = threading.Lock()
        self.in_flight = self.most = 0
        self.arrived: dict[str, float] = {}
        self.answered: dict[str, float] = {}
        self.barrier = threading.Barrier(together, timeout=WAIT) if together else None
        self.held = held
        self.gates: dict[str, threading.Event] = {}

        @server.route("GET", "/pets/{petId}")
        def answer(request):
            pet_id = request.params["petId"]
            with self.lock:
                self.in_flight += 1
                self.most = max(self.most, self.in_flight)
                self.arrived[pet_id] = time.monotonic()
            try:
                if self.barrier is not None and (not self.held or pet_id in self.held):
                    self.barrier.wait()
                gate = self.gates.get(pet_id)
                if gate is not None:
                    assert gate.wait(WAIT), f"{pet_id} was never released"
                status = 500 if pet_id.startswith("bad") else 200
                return status, {"id": pet_id}
            finally:
                with self.lock:
                    self.in_flight -= 1
                    self.answered[pet_id] = time.monotonic()

    def gate(self, pet_id: str) -> threading.Event:
        self.gates[pet_id] = threading.Event()
        return self.gates[pet_id]


def _steps(*ids: str, **extra) -> list[dict]:
    return [pet(i, i, outputs={"id": "$response.body#/id"}, **extra) for i in ids]


def test_independent_steps_run_side_by_side(write, server):
    tracker = Tracker(server, together=3)
    wf = only(execute(write, server, {"workflowId": "w", "steps": _steps("a", "b", "c")}, parallel=3))

    assert wf["status"] == "passed", wf["error"]
    assert tracker.most == 3


def test_no_more_than_n_requests_are_in_flight(write, server):
    tracker = Tracker(server, together=2)
    wf = only(execute(write, server, {"workflowId": "w", "steps": _steps(*"abcdef")}, parallel=2))

    assert wf["status"] == "passed", wf["error"]
    assert tracker.most == 2
    assert sorted(hits(server)) == sorted(f"GET /pets/{i}" for i in "abcdef")


def test_reports_keep_the_run_order_and_the_real_times(write, server):
    """`a` is answered last (held until `c` has been answered): the report still reads a, b, c, and
    the recorded times overlap."""
    tracker = Tracker(server)
    release = tracker.gate("a")
    server_route_done = threading.Thread(target=lambda: _release_after(tracker, "c", release), daemon=True)
    server_route_done.start()
    path = write(arazzo_doc({"workflowId": "w", "steps": _steps("a", "b", "c")}))
    run = arazzo_runner.run(path, servers={"pets": server.url}, parallel=3).workflows[0]

    assert [s.step_id for s in run.steps] == ["a", "b", "c"]
    assert tracker.answered["c"] < tracker.answered["a"]
    a, _, c = run.steps
    assert a.started_at < c.started_at < a.started_at + a.duration_ms / 1000  # c ran while a was in flight


def _release_after(tracker: Tracker, pet_id: str, gate: threading.Event) -> None:
    release_when(gate, lambda: pet_id in tracker.answered)


def release_when(gate: threading.Event, condition, tries: int = WAIT * 100) -> None:
    """Open `gate` once `condition()` holds (polled every 10 ms, at most `tries` times), in a thread."""

    def watch() -> None:
        for _ in range(tries):
            if condition():
                break
            time.sleep(0.01)
        gate.set()

    threading.Thread(target=watch, daemon=True).start()


def run_then_interrupt(argv: list[str], ready, gates: list[threading.Event]) -> tuple[int, str, str]:
    """`arazzo` with `argv` as a process, sent SIGINT once `ready()` holds; (its code, stdout, stderr)."""
    import os
    import signal

    env = {k: v for k, v in os.environ.items() if k != "ARAZZO_RUN_PATH"}
    command = [sys.executable, "-m", "arazzo_runner.cli", *argv]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(WAIT * 100):
            if ready() or process.poll() is not None:
                break
            time.sleep(0.01)
        assert ready(), process.communicate()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT)
    finally:
        for gate in gates:
            gate.set()
    return process.returncode, out, err


def test_a_step_runs_after_the_steps_it_needs_even_side_by_side(write, server):
    tracker = Tracker(server)
    steps = [
        pet("a", "a", outputs={"id": "$response.body#/id"}),
        pet("b", "b", outputs={"id": "$response.body#/id"}),
        pet("c", "c-{$steps.a.outputs.id}", outputs={"id": "$response.body#/id"}),
        pet("d", "d-{$steps.c.outputs.id}-{$steps.b.outputs.id}"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=4))

    assert wf["status"] == "passed", wf["error"]
    assert tracker.answered["a"] < tracker.arrived["c-a"]
    assert tracker.answered["c-a"] < tracker.arrived["d-c-a-b"]
    assert tracker.answered["b"] < tracker.arrived["d-c-a-b"]
    assert [s for s, _, _ in trail(wf)] == ["a", "b", "c", "d"]


def test_on_a_failure_no_new_step_starts_those_in_flight_finish(write, server):
    """`bad` fails while `a` is in flight (held until then); `c` and `d` never start; `a` is recorded;
    the workflow's error is `bad`'s. `a` is let go as the run reads `bad`'s response (its
    `ResponseReceived`, told as it happens): the step then judges it without giving the loop back, so
    `bad` has failed before `a`'s answer can be read. (Released when the server had answered `bad`, `a`
    could finish first on a busy machine, and `c` then start, rightly.)"""
    tracker = Tracker(server)
    release = tracker.gate("a")

    def on_event(event) -> None:
        if isinstance(event, arazzo_runner.ResponseReceived) and event.step_id == "bad":
            release.set()

    steps = _steps("a", "bad", "c", "d")
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=2, on_event=on_event))

    assert wf["status"] == "failed"
    assert trail(wf) == [("a", "passed", 1), ("bad", "failed", 1)]
    assert wf["error"]["stepId"] == "bad"
    assert sorted(hits(server)) == ["GET /pets/a", "GET /pets/bad"]


def test_the_error_is_the_first_failure_in_the_run_order(write, server):
    """`bad2` fails first in time (`bad1` is held until then); the error is `bad1`'s: its step and its
    words (each step's criterion names the id the server gave back)."""
    tracker = Tracker(server)
    release = tracker.gate("bad1")
    threading.Thread(target=lambda: _release_after(tracker, "bad2", release), daemon=True).start()
    steps = _steps("bad1", "bad2", successCriteria=[{"condition": "$response.body#/id == 'good'"}])
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=2))

    assert trail(wf) == [("bad1", "failed", 1), ("bad2", "failed", 1)]
    assert wf["error"]["stepId"] == "bad1"
    first, second = (step["error"] for step in wf["steps"])
    assert first != second and "bad1" in wf["error"]["message"], wf["error"]


def test_steps_whose_actions_decide_what_runs_next_run_alone(write, server):
    """`b` has a goto: it runs after `a` has finished and before `c`/`d`, which run side by side."""
    tracker = Tracker(server, together=2, held=("c", "d"))
    steps = [
        *_steps("a"),
        pet("b", "b", onSuccess=[goto("never", stepId="a", criteria=when("$statusCode == 599"))]),
        *_steps("c", "d"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=4))

    assert wf["status"] == "passed", wf["error"]
    assert tracker.answered["a"] < tracker.arrived["b"] and tracker.answered["b"] < tracker.arrived["c"]
    assert tracker.most == 2


def test_a_plain_retry_runs_side_by_side_and_is_retried_there(write, server):
    tracker = Tracker(server, together=2, held=("a", "b"))
    server.reply("GET", "/flaky", (503, {}), (200, {}))
    steps = [*_steps("a", "b"), flaky("f", onFailure=[retry(retryLimit=2)])]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=3))

    assert wf["status"] == "passed", wf["error"]
    assert trail(wf) == [("a", "passed", 1), ("b", "passed", 1), ("f", "passed", 2)]
    assert tracker.most == 2


def test_the_step_budget_stops_new_steps(write, server):
    Tracker(server)
    wf = only(execute(write, server, {"workflowId": "w", "steps": _steps(*"abcd")}, parallel=2, max_steps=2))

    assert wf["status"] == "failed"
    assert [s for s, _, _ in trail(wf)] == ["a", "b"]
    assert wf["error"] == {"stepId": "c", "message": "stopped after 2 steps (max-steps): a goto loop?"}


def test_the_last_step_of_the_budget_goes_to_the_first_step_waiting_in_the_run_order(write, server):
    """`b` waits for `a`; `c` could start at once, but the budget's second step is `b`'s: the steps run
    are those a run one at a time would run, and the budget stops the workflow at `c`."""
    Tracker(server)
    steps = [
        pet("a", "a", outputs={"id": "$response.body#/id"}),
        pet("b", "b-{$steps.a.outputs.id}"),
        pet("c", "c"),
    ]
    wf = only(execute(write, server, {"workflowId": "w", "steps": steps}, parallel=2, max_steps=2))

    assert [s for s, _, _ in trail(wf)] == ["a", "b"]
    assert wf["error"] == {"stepId": "c", "message": "stopped after 2 steps (max-steps): a goto loop?"}


def test_workflow_steps_run_side_by_side_each_child_its_own(write, server):
    tracker = Tracker(server, together=2)
    child = {
        "workflowId": "child",
        "inputs": {"type": "object", "properties": {"id": {"type": "string"}}},
        "steps": [pet("get", "$inputs.id", outputs={"id": "$response.body#/id"})],
        "outputs": {"id": "$steps.get.outputs.id"},
    }
    parent = {
        "workflowId": "parent",
        "steps": [
            {"stepId": f"call{i}", "workflowId": "child", "parameters": [{"name": "id", "value": i}],
             "outputs": {"id": "$outputs.id"}}
            for i in ("x", "y")
        ],
        "outputs": {"x": "$steps.callx.outputs.id", "y": "$steps.cally.outputs.id"},
    }  # fmt: skip
    result = execute(write, server, parent, child, workflow="parent", parallel=2)
    wf = only(result)

    assert wf["status"] == "passed", wf["error"]
    assert wf["outputs"] == {"x": "x", "y": "y"}
    assert tracker.most == 2


def test_the_same_outputs_sequentially_and_side_by_side(write, server):
    Tracker(server)
    steps = [
        *_steps("a", "b"),
        pet("c", "c-{$steps.b.outputs.id}", outputs={"id": "$response.body#/id"}),
    ]
    workflow = {"workflowId": "w", "steps": steps, "outputs": {"c": "$steps.c.outputs.id"}}
    one = only(execute(write, server, workflow))
    both = only(execute(write, server, workflow, parallel=3))
    assert one["outputs"] == both["outputs"] == {"c": "c-b"}
    assert [s["outputs"] for s in one["steps"]] == [s["outputs"] for s in both["steps"]]


def test_the_console_prints_the_steps_in_the_run_order(write, server):
    tracker = Tracker(server)
    release = tracker.gate("a")
    threading.Thread(target=lambda: _release_after(tracker, "c", release), daemon=True).start()
    path = write(arazzo_doc({"workflowId": "w", "steps": _steps("a", "b", "c")}))
    done = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "run", str(path), "--server", f"pets={server.url}",
         "--parallel", "3"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split()[1] for line in done.stdout.splitlines() if " GET " in line]
    assert lines[:3] == ["a", "b", "c"], done.stdout
    assert tracker.answered["c"] < tracker.answered["a"]


def test_parallel_is_validated_as_a_whole_number_on_the_command_line(write, server):
    path = write(arazzo_doc({"workflowId": "w", "steps": _steps("a")}))
    done = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "run", str(path), "--parallel", "0"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--parallel" in done.stderr


def test_the_library_takes_parallel_in_run_options(write, server):
    Tracker(server, together=2)
    path = write(arazzo_doc({"workflowId": "w", "steps": _steps("a", "b")}))
    options = arazzo_runner.RunOptions(servers={"pets": server.url}, parallel=2)
    result = arazzo_runner.run(path, options=options)
    assert result.ok, json.dumps(result.to_dict())


def test_the_html_timeline_shows_the_steps_side_by_side(write, server, tmp_path):
    """The page's timeline draws each step from its `startedAt` for `durationMs`: two steps that were
    in flight together (the server answered them only together) overlap there."""
    from arazzo_runner.report.html.model import Source, millis, page_data

    Tracker(server, together=2)
    path = write(arazzo_doc({"workflowId": "w", "steps": _steps("a", "b")}))
    report, html = tmp_path / "report.json", tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", "run", str(path), "--server", f"pets={server.url}",
         "--parallel", "2", "--report-json", str(report), "--html", str(html)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    page = page_data([Source("report.json", json.loads(report.read_text()))])
    a, b = (s for s in page["steps"] if s["name"] in ("a", "b"))
    spans = [(millis(s["startedAt"]), millis(s["startedAt"]) + s["durationMs"]) for s in (a, b)]
    assert spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1]  # the bars overlap
    assert html.read_text().count('"durationMs"') >= 2


def test_ctrl_c_while_steps_run_side_by_side_records_each_interrupted(write, server, tmp_path):
    tracker = Tracker(server)
    gates = [tracker.gate("a"), tracker.gate("b")]
    path = write(arazzo_doc({"workflowId": "w", "steps": _steps("a", "b", "c")}))
    argv = ["run", str(path), "--server", f"pets={server.url}", "--parallel", "2", "--format", "json"]
    code, out, err = run_then_interrupt(argv, lambda: {"a", "b"} <= set(tracker.arrived), gates)
    assert code == 130, out + err
    wf = only(json.loads(out))
    assert [(s["stepId"], s["status"], s.get("error")) for s in wf["steps"]] == [
        ("a", "failed", "interrupted before it completed"),
        ("b", "failed", "interrupted before it completed"),
    ]
    assert wf["error"] == {"stepId": "a", "message": "interrupted while step 'a' ran"}
    assert "c" not in tracker.arrived
