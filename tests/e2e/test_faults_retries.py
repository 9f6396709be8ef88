"""5xx storms from a real fault-injecting server: retried exactly as the document says, Retry-After
respected (seconds and HTTP date, under `--max-retry-delay`), and retry totals bounded whatever
`retryLimit` says (`--max-attempts`, `--max-retry-total`, `--deadline`)."""

from __future__ import annotations

import email.utils
import itertools
import time

import pytest

from tests.e2e.faultkit import failed_at, fault_run, list_step, retry
from tests.servers import faults

OK200 = [{"condition": "$statusCode == 200"}]
GOT_503 = "successCriteria failed: $statusCode == 200: got 503"


def _storm(count: int, retry_after: str | None = None) -> tuple:
    return (*[faults.storm(503, retry_after)] * count, faults.reply({"ok": True}))


def _gaps(server: faults.FaultServer) -> list[float]:
    times = [hit.at for hit in server.hits]
    return [b - a for a, b in itertools.pairwise(times)]


@pytest.mark.parametrize("limit, code, attempts", [(3, 0, 4), (5, 0, 4), (2, 1, 3), (0, 1, 1)])
def test_a_storm_of_three_503s_then_200(capsys, write, limit, code, attempts):
    steps = (list_step(successCriteria=OK200, onFailure=retry(limit)),)
    run = fault_run(capsys, write, *_storm(3), steps=steps)
    assert run.code == code, run.cli.out
    assert run.step["attempts"] == attempts
    assert len(run.server.hits) == attempts
    if code:
        assert failed_at(run, attempts=attempts)["error"] == GOT_503
    else:
        assert (run.step["status"], run.step["statusCode"]) == ("passed", 200)


def test_a_storm_without_criteria_fails_on_the_status_alone(capsys, write):
    run = fault_run(capsys, write, *_storm(2), steps=(list_step(onFailure=retry(1)),))
    got = failed_at(run, attempts=2)
    assert got["error"] == "HTTP 503 (no successCriteria: a status below 400 is required)"


def test_retry_after_in_seconds_is_waited_and_capped_by_max_retry_delay(capsys, write):
    steps = (list_step(successCriteria=OK200, onFailure=retry(3, after=0)),)
    run = fault_run(capsys, write, *_storm(2, "1"), steps=steps, argv=("--max-retry-delay", "0.15"))
    assert run.code == 0, run.cli.out
    assert run.step["attempts"] == 3
    assert all(gap >= 0.15 for gap in _gaps(run.server))  # the header, not the document's 0, was used
    assert run.step["warnings"] == ["retry delay of 1 s capped at 0.15 s"]


def test_retry_after_zero_wins_over_a_long_retry_after_in_the_document(capsys, write):
    steps = (list_step(successCriteria=OK200, onFailure=retry(3, after=30)),)
    # --max-retry-delay reports every delay it caps: the document's 30 s would be, the header's 0 is not
    run = fault_run(capsys, write, *_storm(2, "0"), steps=steps, argv=("--max-retry-delay", "0.2"))
    assert run.code == 0, run.cli.out
    assert "warnings" not in run.step  # "retry delay of 30 s capped at 0.2 s" if the document's was used
    assert run.step["attempts"] == 3


def test_retry_after_as_an_http_date(capsys, write):
    soon = email.utils.formatdate(time.time() + 5, usegmt=True)
    steps = (list_step(successCriteria=OK200, onFailure=retry(1)),)
    run = fault_run(capsys, write, *_storm(1, soon), steps=steps, argv=("--max-retry-delay", "0.15"))
    assert run.code == 0, run.cli.out
    assert _gaps(run.server)[0] >= 0.15
    assert run.step["warnings"][0].startswith("retry delay of ")
    assert run.step["warnings"][0].endswith(" s capped at 0.15 s")


def test_an_endless_storm_with_a_huge_retry_limit_stops_at_max_attempts(capsys, write):
    steps = (list_step(successCriteria=OK200, onFailure=retry(1_000_000)),)
    run = fault_run(capsys, write, faults.storm(503), steps=steps, argv=("--max-attempts", "5"))
    got = failed_at(run, attempts=5)
    stop = "retries stopped: the limit of 5 attempts per step was reached (max-attempts)"
    assert got["error"] == f"{GOT_503}; {stop}"
    assert stop in got["warnings"]
    assert len(run.server.hits) == 5


def test_the_default_attempt_cap_is_100(capsys, write):
    steps = (list_step(successCriteria=OK200, onFailure=retry(1_000_000)),)
    run = fault_run(capsys, write, faults.storm(503), steps=steps)
    got = failed_at(run, attempts=100)
    assert got["error"].endswith("the limit of 100 attempts per step was reached (max-attempts)")


def test_the_retry_time_budget_stops_retries(capsys, write):
    steps = (list_step(successCriteria=OK200, onFailure=retry(1_000_000, after=0.1)),)
    run = fault_run(capsys, write, faults.storm(503), steps=steps, argv=("--max-retry-total", "0.35"))
    got = run.step
    assert 1 <= got["attempts"] <= 4  # waits of 0.1 s between them: a busy machine makes fewer
    failed_at(run, attempts=got["attempts"])
    budget = "retries stopped: waiting 0.1 s more would pass the retry budget of 0.35 s per step"
    assert budget in got["error"]


def test_a_stopped_retry_falls_through_to_the_next_failure_action(capsys, write):
    on_failure = [*retry(1_000_000), {"name": "giveUp", "type": "goto", "stepId": "fallback"}]
    steps = (
        list_step(successCriteria=OK200, onFailure=on_failure, onSuccess=[{"name": "done", "type": "end"}]),
        list_step(stepId="fallback", outputs={}),
    )
    storm = (faults.storm(503), faults.storm(503), faults.reply([]))
    run = fault_run(capsys, write, *storm, steps=steps, argv=("--max-attempts", "2"))
    assert run.code == 0, run.cli.out
    listed, fallback = run.workflow["steps"]
    assert (listed["status"], listed["attempts"], listed["action"]) == ("failed", 2, "goto fallback")
    assert "retries stopped" in listed["warnings"][0]
    assert fallback["status"] == "passed"


def test_a_retry_after_beyond_the_deadline_is_not_waited_for(capsys, write):
    steps = (list_step(successCriteria=OK200, onFailure=retry(3)),)
    run = fault_run(capsys, write, *_storm(1, "30"), steps=steps, argv=("--deadline", "0.5"))
    got = failed_at(run)  # one attempt: had the run waited 30 s, the second would have passed
    assert got["error"] == f"{GOT_503}; not retried: waiting 30 s would pass the run deadline of 0.5 s"
