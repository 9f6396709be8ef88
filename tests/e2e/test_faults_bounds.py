"""Run bounds against a real fault-injecting server: a slow drip, the run `--deadline` (the exchange in
flight is cancelled, nothing runs after it, the result is still reported) and `--max-steps` loops.

No test reads the clock: what a bound cut short is made to last far longer (a 30 s drip, a 30 s await),
so that a run that waited for it would end differently (a complete body, another error)."""

from __future__ import annotations

import asyncio

import arazzo_runner
from arazzo_runner import api
from arazzo_runner.executor.steps import operation as operation_kind
from arazzo_runner.http import transport
from tests.e2e.conftest import arazzo_doc
from tests.e2e.faultkit import failed_at, fault_run, list_step
from tests.e2e.helpers import run_json, workflow
from tests.servers import faults


def test_a_drip_slower_than_the_timeout_is_a_read_timeout(capsys, write):
    run = fault_run(capsys, write, faults.drip(interval=0.1), argv=("--timeout", "0.05"))
    got = failed_at(run)
    assert got["error"] == f"read timed out after 0.05 s (GET {run.server.url}/pets)"


# A JSON body that takes 30 s to drip at one byte per 0.1 s.
LONG_DRIP = b'{"ok": "' + b"x" * 290 + b'"}'


def test_a_drip_within_the_timeout_is_cut_by_the_step_timeout(capsys, write):
    step = list_step(timeout=1000)  # the first byte comes after 0.1 s, the last after 30 s
    run = fault_run(capsys, write, faults.drip(LONG_DRIP, interval=0.1), steps=(step,), version="1.1.0")
    got = failed_at(run)
    assert got["error"] == "step timeout of 1000 ms exceeded"
    assert 1 <= run.server.hits[0].sent < len(LONG_DRIP)


def test_the_deadline_cancels_a_drip_and_the_server_sees_the_client_leave(capsys, write):
    run = fault_run(capsys, write, faults.drip(LONG_DRIP, interval=0.1), argv=("--deadline", "0.3"))
    got = failed_at(run)
    assert got["error"] == "run deadline of 0.3 s exceeded"
    assert got["request"] == {"method": "GET", "url": f"{run.server.url}/pets"}
    hit = run.server.hits[0]
    assert hit.gone_at is not None  # the client hung up ...
    assert hit.sent < len(LONG_DRIP)  # ... long before the 30 s body was complete


def test_after_the_deadline_no_further_step_or_workflow_runs(capsys, write):
    first = list_step(stepId="first", outputs={})
    doc = arazzo_doc(workflow("one", first, list_step(stepId="second")), workflow("two", list_step()))
    with faults.FaultServer() as server:
        server.script("/pets", faults.stall())
        result = run_json(capsys, write(doc), "--deadline", "0.25", "--server", f"pets={server.url}")
    assert result.code == 1
    assert result.json["status"] == "failed"
    one, two = result.json["workflows"]
    assert [(s["stepId"], s["status"]) for s in one["steps"]] == [("first", "failed")]
    assert one["error"] == {"stepId": "first", "message": "run deadline of 0.25 s exceeded"}
    assert (two["status"], two["steps"]) == ("failed", [])
    assert two["error"] == {"stepId": "list", "message": "run deadline of 0.25 s exceeded"}
    assert len(server.hits) == 1


def test_the_deadline_ends_a_retrying_step_without_further_actions(capsys, write):
    on_failure = [{"name": "again", "type": "retry", "retryAfter": 0.05, "retryLimit": 1000}]
    run = fault_run(
        capsys,
        write,
        faults.stall(),
        steps=(list_step(onFailure=on_failure),),
        argv=("--deadline", "0.4", "--timeout", "0.1"),
    )
    got = run.step
    assert 1 <= got["attempts"] <= 4  # each attempt takes at least 0.15 s; a busy machine makes fewer
    failed_at(run, attempts=got["attempts"])
    # The deadline passes during an attempt, or is found too near to wait 0.05 s: which one depends on
    # how fast the machine runs, either way the run deadline ended the retries.
    assert got["error"].endswith(("run deadline of 0.4 s exceeded", "would pass the run deadline of 0.4 s"))
    assert len(run.server.hits) == got["attempts"]


def test_the_deadline_closes_the_runs_http_client(write, monkeypatch):
    clients = []
    real = transport.new_client

    def recording(timeout, **options):
        clients.append(real(timeout, **options))
        return clients[-1]

    monkeypatch.setattr(transport, "new_client", recording)
    path = write(arazzo_doc(workflow("flow", list_step())))
    with faults.FaultServer() as server:
        server.script("/pets", faults.stall())
        result = arazzo_runner.run(path, servers={"pets": server.url}, deadline=0.2)
    assert not result.ok
    assert result.workflows[0].error == {"stepId": "list", "message": "run deadline of 0.2 s exceeded"}
    assert [c.is_closed for c in clients] == [True]


def test_a_backstop_ends_the_run_if_something_ignores_the_deadline(write, monkeypatch):
    """On asyncio (`arun`) an await the runner's deadline checks miss is still ended by the backstop.
    (A run that blocks its thread has no such await: each of its waits is bounded by itself.)"""

    async def stuck(*args, **kwargs):
        await asyncio.sleep(30)  # an await the runner's own deadline checks do not cover
        raise AssertionError("the backstop did not end the run")  # a different error, had it waited

    monkeypatch.setattr(operation_kind, "attempt_operation", stuck)
    monkeypatch.setattr(api, "DEADLINE_GRACE", 0.05)
    path = write(arazzo_doc(workflow("one", list_step()), workflow("two", list_step())))
    run = arazzo_runner.arun(path, servers={"pets": "http://127.0.0.1:9"}, deadline=0.15)
    result = asyncio.run(run)
    assert result.status == "failed"
    assert [(w.workflow_id, w.status, w.error) for w in result.workflows] == [
        ("one", "failed", {"stepId": "", "message": "run deadline of 0.15 s exceeded"}),
        ("two", "failed", {"stepId": "", "message": "run deadline of 0.15 s exceeded"}),
    ]


def test_max_steps_stops_a_two_step_goto_loop_through_the_cli(capsys, write):
    def goto(step_id: str) -> list[dict]:
        return [{"name": "to", "type": "goto", "stepId": step_id}]

    ping = list_step(stepId="ping", outputs={}, onSuccess=goto("pong"))
    pong = list_step(stepId="pong", outputs={}, onSuccess=goto("ping"))
    run = fault_run(capsys, write, faults.reply([]), steps=(ping, pong), argv=("--max-steps", "5"))
    assert run.code == 1
    flow = run.workflow
    assert [s["stepId"] for s in flow["steps"]] == ["ping", "pong", "ping", "pong", "ping"]
    assert flow["error"] == {"stepId": "pong", "message": "stopped after 5 steps (max-steps): a goto loop?"}
    assert len(run.server.hits) == 5


def test_max_steps_counts_steps_across_workflows_that_goto_each_other(capsys, write):
    def hop(workflow_id: str, target: str) -> dict:
        goto = [{"name": "hop", "type": "goto", "workflowId": target}]
        return workflow(workflow_id, list_step(outputs={}, onSuccess=goto))

    doc = arazzo_doc(hop("a", "b"), hop("b", "a"))
    with faults.FaultServer() as server:
        server.script("/pets", faults.reply([]))
        result = run_json(capsys, write(doc), "-w", "a", "--max-steps", "7", "--server", f"pets={server.url}")
    assert result.code == 1
    assert "stopped after 7 steps (max-steps)" in result.json["workflows"][0]["error"]["message"]
    assert len(server.hits) == 7


class _SlowReader:
    """A server that takes a request body at 1 KiB per 20 ms (its receive buffer kept small) and never
    answers: an upload of megabytes would take minutes. Counts the bytes it read."""

    def __init__(self) -> None:
        import socket
        import threading

        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.read = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        import contextlib

        with contextlib.suppress(OSError):
            conn, _ = self.listener.accept()
            with conn:
                conn.settimeout(1)
                while not self.stop.wait(0.02):
                    data = conn.recv(1024)
                    if not data:
                        return
                    self.read += len(data)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.listener.close()


def test_a_step_timeout_cuts_an_upload_the_server_reads_slowly(write):
    """Each send of the body gets the time left, not a fresh timeout (a slow reader keeps each send
    short): the limit ends the exchange, named as such, with most of the body never sent."""
    blob = "x" * (6 * 2**20)
    step = {
        "stepId": "upload",
        "operationId": "createPet",
        "timeout": 300,
        "requestBody": {"contentType": "application/json", "payload": {"blob": "$inputs.blob"}},
    }
    flow = workflow("flow", step, inputs={"type": "object", "properties": {"blob": {"type": "string"}}})
    server = _SlowReader()
    try:
        path = write(arazzo_doc(flow, version="1.1.0"))
        result = arazzo_runner.run(path, inputs={"blob": blob}, servers={"pets": server.url})
    finally:
        server.close()
    assert result.workflows[0].error == {"stepId": "upload", "message": "step timeout of 300 ms exceeded"}
    assert server.read < len(blob) // 2


def test_a_deadline_spent_while_the_document_is_validated_is_said_without_a_traceback(capsys, tmp_path):
    """The document's schema check (its patterns) reads the run's deadline: a deadline spent there ended
    `arazzo run` with PatternStopped's traceback and exit 1. Nothing is fetched first (no source)."""
    from tests.e2e.helpers import cli

    path = tmp_path / "late.arazzo.yaml"
    path.write_text(
        "arazzo: 1.0.1\ninfo: {title: t, version: '1'}\nsourceDescriptions: []\nworkflows:\n"
        "  - workflowId: w\n    steps:\n      - stepId: a\n        workflowId: other\n        timeout: 5\n"
        "  - workflowId: other\n    steps:\n      - stepId: b\n        workflowId: w\n",
        encoding="utf-8",
    )
    run = cli(capsys, "run", str(path), "--deadline", "0.000001")
    assert run.code == 2, run.err
    assert "Traceback" not in run.err
    said = "late.arazzo.yaml: validation was stopped: run deadline of 1e-06 s exceeded; nothing was sent"
    assert said in run.err


def test_the_deadline_passing_first_in_a_step_with_a_timeout_is_said_as_the_deadline(capsys, write):
    """Both limits set, the run's deadline the nearer: its words, not the step timeout's (which limit cut
    the exchange is decided by which was the nearer, not by the clock)."""
    step = list_step(timeout=20000)
    run = fault_run(
        capsys, write, faults.drip(LONG_DRIP, interval=0.1), steps=(step,), version="1.1.0",
        argv=("--deadline", "0.3"),
    )  # fmt: skip
    got = failed_at(run)
    assert got["error"] == "run deadline of 0.3 s exceeded"
