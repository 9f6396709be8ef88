"""Connection-level faults from a real fault-injecting server: each fails its step with the cause (or is
retried as the document says), and `arazzo run` exits 1 with the run reported failed.

(test_http_faults.py covers refused, a reset before any byte, a clean close mid-body and a plain read
timeout once each; these add the other faults, retries over them and the cancelled exchange.)
"""

from __future__ import annotations

from tests.e2e.conftest import arazzo_doc
from tests.e2e.faultkit import failed_at, fault_run, list_step, retry
from tests.e2e.helpers import run_json, workflow
from tests.servers import faults


def test_refused_three_times_when_the_document_retries_twice(capsys, write):
    base = faults.closed_port_url()
    doc = arazzo_doc(workflow("flow", list_step(onFailure=retry(2))))
    result = run_json(capsys, write(doc), "--server", f"pets={base}")
    assert result.code == 1
    flow = result.json["workflows"][0]
    got = flow["steps"][0]
    assert (got["status"], got["attempts"], got["statusCode"]) == ("failed", 3, None)
    assert got["error"] == f"connection refused (GET {base}/pets)"
    assert flow["error"] == {"stepId": "list", "message": got["error"]}


def test_reset_after_the_request_then_a_good_answer_passes_on_retry(capsys, write):
    run = fault_run(capsys, write, faults.reset(), faults.reply([]), steps=(list_step(onFailure=retry(1)),))
    assert run.code == 0, run.cli.out
    assert (run.step["status"], run.step["attempts"], run.step["statusCode"]) == ("passed", 2, 200)
    assert len(run.server.hits) == 2


def test_reset_mid_body(capsys, write):
    run = fault_run(capsys, write, faults.reset_mid_body())
    got = failed_at(run)
    assert got["statusCode"] is None  # no usable response: the status line alone is not one
    assert got["error"].startswith("connection reset by the server")
    assert got["error"].endswith(f"(GET {run.server.url}/pets)")


def test_stall_before_the_status_line_is_a_read_timeout_and_the_connection_is_dropped(capsys, write):
    run = fault_run(capsys, write, faults.stall(), argv=("--timeout", "0.15"))
    got = failed_at(run)
    assert got["error"] == f"read timed out after 0.15 s (GET {run.server.url}/pets)"
    hit = run.server.hits[0]
    assert hit.gone_at is not None  # the client closed its side before the server stopped waiting


def test_stall_mid_body_is_a_read_timeout_even_after_the_headers(capsys, write):
    run = fault_run(capsys, write, faults.stall_mid_body(), argv=("--timeout", "0.15"))
    got = failed_at(run)
    assert got["statusCode"] is None
    assert got["error"] == f"read timed out after 0.15 s (GET {run.server.url}/pets)"
    assert run.server.hits[0].sent == len(b'{"items": [1, 2')


def test_stalls_are_retried_with_the_right_number_of_attempts(capsys, write):
    steps = (list_step(onFailure=retry(2)),)
    run = fault_run(capsys, write, faults.stall(), steps=steps, argv=("--timeout", "0.1"))
    got = failed_at(run, attempts=3)
    assert got["error"].startswith("read timed out after 0.1 s")
    assert len(run.server.hits) == 3
    assert all(hit.gone_at is not None for hit in run.server.hits)  # each stalled exchange was dropped


def test_a_malformed_status_line(capsys, write):
    run = fault_run(capsys, write, faults.not_http())
    got = failed_at(run)
    assert got["error"] == (
        "the server sent a malformed response: illegal status line: b'SSH-2.0-OpenSSH_9.6' "
        f"(GET {run.server.url}/pets)"
    )


def test_a_fault_in_a_later_step_fails_the_run_after_passing_steps(capsys, write):
    first = list_step(stepId="first", onSuccess=[{"name": "on", "type": "goto", "stepId": "list"}])
    run = fault_run(capsys, write, faults.reply([]), faults.reset_mid_body(), steps=(first, list_step()))
    failed_at(run)
    assert [(s["stepId"], s["status"]) for s in run.workflow["steps"]] == [
        ("first", "passed"),
        ("list", "failed"),
    ]
