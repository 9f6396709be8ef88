"""Faulty and oversized bodies from a real fault-injecting server: an unusable body fails the step with
its cause whatever its criteria say; a body above `--max-response-bytes` is never held whole."""

from __future__ import annotations

import tracemalloc

import arazzo_runner
from tests.e2e.conftest import arazzo_doc
from tests.e2e.faultkit import failed_at, fault_run, list_step, retry
from tests.e2e.helpers import workflow
from tests.servers import faults

MiB = 2**20
STATUS_ONLY = {"successCriteria": [{"condition": "$statusCode == 200"}], "outputs": {}}


def test_truncated_json_with_a_matching_content_length_fails_even_if_the_criteria_pass(capsys, write):
    run = fault_run(
        capsys, write, faults.truncated_json(correct_length=True), steps=(list_step(**STATUS_ONLY),)
    )
    got = failed_at(run)
    assert got["statusCode"] == 200
    assert got["error"].startswith(
        "HTTP 200: the response says application/json but its body is not valid JSON"
    )


def test_truncated_json_with_a_larger_content_length_is_retried_then_passes(capsys, write):
    behaviours = (faults.truncated_json(correct_length=False), faults.reply({"items": []}))
    run = fault_run(capsys, write, *behaviours, steps=(list_step(onFailure=retry(3)),))
    assert run.code == 0, run.cli.out
    assert (run.step["attempts"], run.step["outputs"]) == (2, {"body": {"items": []}})


def test_truncated_json_with_a_larger_content_length(capsys, write):
    run = fault_run(capsys, write, faults.truncated_json(correct_length=False))
    got = failed_at(run)
    assert got["error"].startswith("the server closed the connection mid-response: ")
    assert "received 30 bytes, expected 70" in got["error"]


def test_an_html_error_page_labelled_json(capsys, write):
    run = fault_run(capsys, write, faults.invalid_json())
    got = failed_at(run)
    assert got["error"] == (
        "HTTP 200: the response says application/json; charset=utf-8 but its body is not valid JSON: "
        "Expecting value: line 1 column 1 (char 0)"
    )
    assert got["outputs"]["body"].startswith("<html>")  # the text that arrived stays visible


def test_an_event_stream_cut_before_done_is_retried_as_the_document_says(capsys, write):
    run = fault_run(capsys, write, faults.sse_cut(), steps=(list_step(onFailure=retry(1)),))
    got = failed_at(run, attempts=2)
    assert got["error"] == "HTTP 200: the event stream ended before 'data: [DONE]'"
    assert len(run.server.hits) == 2


def test_an_endless_keep_alive_stream_is_cut_by_the_step_timeout(capsys, write):
    step = list_step(timeout=250)
    run = fault_run(capsys, write, faults.sse_keepalive(0.02), steps=(step,), version="1.1.0")
    got = failed_at(run)
    assert got["error"] == "step timeout of 250 ms exceeded"
    assert run.server.hits[0].sent > 0  # bytes kept coming: no read ever timed out


# -- bodies above the limit ------------------------------------------------------------------------


def test_an_oversized_body_fails_a_step_that_reads_it_without_reading_it_all(capsys, write):
    run = fault_run(capsys, write, faults.big(32 * MiB), argv=("--max-response-bytes", "1M"))
    got = failed_at(run)
    assert got["statusCode"] == 200
    assert got["error"] == (
        f"HTTP 200: the response body is larger than the limit of {MiB} bytes (max-response-bytes) "
        "and the step reads $response.body: raise the limit with --max-response-bytes (max_body= in Python)"
    )
    assert got["warnings"] == [
        f"the response body is larger than the limit of {MiB} bytes (Content-Length: {32 * MiB}): "
        f"only the first {MiB} bytes were read, the body was not parsed"
    ]
    assert got["outputs"] == {"body": None}
    hit = run.server.hits[0]
    assert hit.gone_at is not None  # the client hung up instead of draining 32 MiB
    assert hit.sent < 32 * MiB


def test_an_oversized_body_passes_a_step_that_does_not_read_it_with_a_warning(capsys, write):
    run = fault_run(
        capsys,
        write,
        faults.big(8 * MiB),
        steps=(list_step(**STATUS_ONLY),),
        argv=("--max-response-bytes", "64K"),
    )
    assert run.code == 0, run.cli.out
    assert (run.step["status"], run.step["statusCode"]) == ("passed", 200)
    assert run.step["warnings"][0].startswith("the response body is larger than the limit of 65536 bytes")


def test_reading_the_body_in_an_action_criterion_counts_as_reading_it(capsys, write):
    on_failure = [
        {"name": "stop", "type": "end", "criteria": [{"condition": "$response.body#/error != null"}]}
    ]
    step = list_step(outputs={}, onFailure=on_failure)
    run = fault_run(capsys, write, faults.big(2 * MiB), steps=(step,), argv=("--max-response-bytes", "1M"))
    got = failed_at(run)
    assert "the step reads $response.body" in got["error"]


def test_an_oversized_event_stream(capsys, write):
    run = fault_run(
        capsys, write, faults.big(4 * MiB, "text/event-stream"), argv=("--max-response-bytes", "256K")
    )
    got = failed_at(run)
    assert got["error"].startswith("HTTP 200: the response body is larger than the limit of 262144 bytes")


def test_peak_memory_stays_bounded_while_a_multi_megabyte_body_streams_in(write):
    """Peak traced memory of a run whose response streams 48 MiB with a 2 MiB limit: about twice the
    limit (the kept bytes and their copy), whatever the body's size. A first run loads the source
    description and the HTTP modules, which are no part of the measure."""
    workspace = arazzo_runner.load(write(arazzo_doc(workflow("flow", list_step(**STATUS_ONLY)))))
    with faults.FaultServer() as server:
        server.script("/pets", faults.reply([]), faults.big(48 * MiB, chunk=2**15))
        assert arazzo_runner.run(workspace, servers={"pets": server.url}).ok
        tracemalloc.start()
        try:
            result = arazzo_runner.run(workspace, servers={"pets": server.url}, max_body=2 * MiB)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert result.ok, result.to_dict()
    assert server.hits[1].gone_at is not None
    assert peak < 8 * MiB, f"peak {peak / MiB:.1f} MiB for a 2 MiB limit and a 48 MiB body"
