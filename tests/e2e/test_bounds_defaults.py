"""The run bounds' defaults and boundaries, by behaviour: a response body of exactly the limit is read and
one byte more is not (plain and event-stream bodies); with no option given the limit is 16 MiB and a
goto loop stops after 1000 steps, through the command line and through the library.

Each test fails on a deliberate bug that the rest of the suite let through: the 16 MiB default raised
to 1 GiB, the size check's `>` turned into `>=`, the 1000-step default raised to 10^6."""

from __future__ import annotations

import pytest

import arazzo_runner
from tests.cputime import cpu_bound
from tests.e2e.conftest import arazzo_doc
from tests.e2e.faultkit import failed_at, fault_run, list_step
from tests.e2e.helpers import only_workflow, run_json, workflow
from tests.servers import faults

MiB = 2**20
READS_BODY = {"successCriteria": [{"condition": "$response.body#/pad != null"}], "outputs": {}}
READS_EVENTS = {"successCriteria": [{"condition": "$response.body#/0/data/pad != null"}], "outputs": {}}


def json_of_size(size: int) -> bytes:
    """`{"pad": "xx...x"}`, exactly `size` bytes."""
    data = b'{"pad": "' + b"x" * (size - 11) + b'"}'
    assert len(data) == size
    return data


def events_of_size(size: int) -> bytes:
    """One event whose data is `{"pad": "xx...x"}`, exactly `size` bytes."""
    data = b"data: " + json_of_size(size - 8) + b"\n\n"
    assert len(data) == size
    return data


def body(data: bytes, content_type: str) -> faults.Behaviour:
    return faults.answer(200, {"Content-Type": content_type, "Content-Length": str(len(data))}, data)


def too_large(limit: int) -> str:
    return (
        f"HTTP 200: the response body is larger than the limit of {limit} bytes (max-response-bytes) "
        "and the step reads $response.body: raise the limit with --max-response-bytes (max_body= in Python)"
    )


@pytest.mark.parametrize(
    ("make", "content_type", "reads"),
    [(json_of_size, "application/json", READS_BODY), (events_of_size, "text/event-stream", READS_EVENTS)],
    ids=["json", "event-stream"],
)
def test_a_body_of_exactly_the_limit_is_read_and_one_byte_more_is_not(
    capsys, write, make, content_type, reads
):
    limit = 4096
    argv = ("--max-response-bytes", str(limit))
    exact = fault_run(capsys, write, body(make(limit), content_type), steps=(list_step(**reads),), argv=argv)
    assert exact.code == 0, exact.cli.out
    assert (exact.step["status"], "warnings" in exact.step) == ("passed", False)

    over = fault_run(
        capsys, write, body(make(limit + 1), content_type), steps=(list_step(**reads),), argv=argv
    )
    assert failed_at(over)["error"] == too_large(limit)


def test_the_default_response_limit_is_16_mib_through_the_command_line(capsys, write):
    exact = fault_run(
        capsys, write, body(json_of_size(16 * MiB), "application/json"), steps=(list_step(**READS_BODY),)
    )
    assert exact.code == 0, exact.cli.out

    over = fault_run(
        capsys, write, body(json_of_size(16 * MiB + 1), "application/json"), steps=(list_step(**READS_BODY),)
    )
    assert failed_at(over)["error"] == too_large(16 * MiB)


def test_a_body_above_the_default_limit_says_which_flag_reads_it_and_the_flag_does(capsys, write):
    """Issue 43: a 20 MB body fails on the default 16 MiB limit, naming the flag that reads it."""
    big = body(json_of_size(20 * 10**6), "application/json")
    refused = fault_run(capsys, write, big, steps=(list_step(**READS_BODY),))
    assert "raise the limit with --max-response-bytes (max_body= in Python)" in failed_at(refused)["error"]
    raised = fault_run(
        capsys, write, big, steps=(list_step(**READS_BODY),), argv=("--max-response-bytes", "20M")
    )
    assert raised.code == 0, raised.cli.out
    assert raised.step["status"] == "passed"


def test_the_default_response_limit_is_16_mib_through_the_library(write):
    workspace = arazzo_runner.load(write(arazzo_doc(workflow("flow", list_step(**READS_BODY)))))
    with faults.FaultServer() as server:
        server.script("/pets", body(json_of_size(16 * MiB), "application/json"))
        assert arazzo_runner.run(workspace, servers={"pets": server.url}).ok
        server.script("/pets", body(json_of_size(16 * MiB + 1), "application/json"))
        result = arazzo_runner.run(workspace, servers={"pets": server.url})
    assert result.workflows[0].error == {"stepId": "list", "message": too_large(16 * MiB)}


def _loop() -> dict:
    """A workflow whose one step, on success, goes to itself: only max-steps ends it."""
    again = [{"name": "again", "type": "goto", "stepId": "list"}]
    return arazzo_doc(workflow("flow", list_step(outputs={}, onSuccess=again)))


STOPPED = "stopped after 1000 steps (max-steps): a goto loop?"


def test_a_goto_loop_stops_after_1000_steps_by_default_through_the_command_line(capsys, write, server):
    server.reply("GET", "/pets", (200, []))
    with cpu_bound(30, "1000 steps"):  # about 2-3 s of CPU (the server's threads included); 10^6: hours
        run = run_json(capsys, write(_loop()), server=server)
    assert run.code == 1
    flow = only_workflow(run)
    assert len(flow["steps"]) == 1000
    assert flow["error"] == {"stepId": "list", "message": STOPPED}
    assert len(server.requests) == 1000


def test_a_goto_loop_stops_after_1000_steps_by_default_through_the_library(write, server):
    server.reply("GET", "/pets", (200, []))
    with cpu_bound(30, "1000 steps"):
        result = arazzo_runner.run(write(_loop()), servers={"pets": server.url})
    assert result.status == "failed"
    assert len(result.workflows[0].steps) == 1000
    assert result.workflows[0].error == {"stepId": "list", "message": STOPPED}
    assert len(server.requests) == 1000


def test_the_part_of_a_body_past_the_limit_kept_is_the_limit_exactly(capsys, write, tmp_path):
    """A body past the limit arriving in two pieces (3000 bytes, then 3000 once the first was read): the
    exchange recorded (`--record-http`) holds its first `limit` bytes, not the first piece and all the
    second."""
    import json
    import time

    limit = 4096
    data = json_of_size(6000)

    def in_two(conn: faults.Conn) -> None:
        headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
        if conn.send(faults.head(200, headers)) and conn.body(data[:3000]):
            time.sleep(0.3)  # the client reads the first piece alone
            conn.body(data[3000:])

    har = tmp_path / "run.har"
    argv = ("--max-response-bytes", str(limit), "--record-http", str(har))
    over = fault_run(capsys, write, in_two, steps=(list_step(**READS_BODY),), argv=argv)
    assert failed_at(over)["error"] == too_large(limit)
    [entry] = json.loads(har.read_text())["log"]["entries"]
    content = entry["response"]["content"]
    assert (content["size"], content["text"]) == (limit, data[:limit].decode())
