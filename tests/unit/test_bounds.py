"""Units of the run bounds: the limit flags, which steps read `$response.body`, the retry budget."""

from __future__ import annotations

import argparse
import time

import pytest

from arazzo_runner import loads
from arazzo_runner.cli.limit_flags import add_flags, options, seconds, size
from arazzo_runner.executor.bounds import Deadline, RetryBudget, reads_response_body, with_cause
from arazzo_runner.executor.options import RunOptions


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1", 1),
        ("4096", 4096),
        ("512K", 512 * 2**10),
        ("16M", 16 * 2**20),
        ("1GiB", 2**30),
        ("2 MB", 2 * 2**20),
    ],
)
def test_sizes(text, expected):
    assert size(text) == expected


@pytest.mark.parametrize("text", ["", "0", "-1", "1.5M", "16T", "M", "1 2"])
def test_bad_sizes(text):
    with pytest.raises(argparse.ArgumentTypeError):
        size(text)


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "-inf", "soon"])
def test_bad_seconds(text):
    with pytest.raises(argparse.ArgumentTypeError):
        seconds(text)


def test_the_flags_give_run_options_fields():
    parser = argparse.ArgumentParser()
    add_flags(parser)
    defaults = options(parser.parse_args([]))
    assert defaults == {
        "deadline": None,
        "max_body": RunOptions().max_body,
        "max_attempts": RunOptions().max_attempts,
        "max_retry_total": RunOptions().max_retry_total,
        "max_retry_delay": RunOptions().max_retry_delay,
        "max_loop_items": RunOptions().max_loop_items,
        "rate": None,
    }
    argv = (
        "--deadline 2.5 --max-response-bytes 1M --max-attempts 7 --max-retry-total 9 --max-retry-delay 3 "
        "--max-loop-items 5"
    )
    given = options(parser.parse_args(argv.split()))
    assert given == {
        "deadline": 2.5,
        "max_body": 2**20,
        "max_attempts": 7,
        "max_retry_total": 9.0,
        "max_retry_delay": 3.0,
        "max_loop_items": 5,
        "rate": None,
    }
    RunOptions(**given)  # every key is a field


STEP = "{stepId: s, operationPath: '{$sourceDescriptions.api.url}#/paths/~1x/get'"


def _step(extra: str) -> object:
    text = f"""
arazzo: 1.1.0
info: {{title: t, version: '1'}}
sourceDescriptions: [{{name: api, url: 'https://example.test/openapi.json', type: openapi}}]
workflows:
  - workflowId: w
    steps:
      - {STEP}{extra}}}
"""
    workspace = loads(text)
    return workspace.compiled(workspace.document.workflows[0]).steps[0]


@pytest.mark.parametrize(
    "extra, reads",
    [
        ("", False),
        (", successCriteria: [{condition: $statusCode == 200}]", False),
        (", outputs: {h: $response.header.ETag, c: $statusCode}", False),
        (", outputs: {b: $response.body}", True),
        (", outputs: {b: 'id={$response.body#/id}'}", True),
        (", successCriteria: [{condition: $response.body#/ok == true}]", True),
        (", successCriteria: [{context: $response.body, condition: '^a', type: regex}]", True),
        (", successCriteria: [{context: $response.body, condition: $.ok, type: jsonpath}]", True),
        (", outputs: {b: {context: $response.body, selector: $.id, type: jsonpath}}", True),
        (", onFailure: [{name: r, type: retry, criteria: [{condition: $response.body#/e != null}]}]", True),
        (", onSuccess: [{name: e, type: end, criteria: [{condition: $statusCode == 200}]}]", False),
    ],
)
def test_which_steps_read_the_response_body(extra, reads):
    assert reads_response_body(_step(extra)) is reads


def test_retry_budget_refusals():
    started = time.perf_counter()
    # Budgets and deadlines far beyond the time the calls take, so that a busy machine cannot eat into them.
    budget = RetryBudget(RunOptions(max_attempts=3, max_retry_total=50), Deadline(None), started)
    assert budget.refusal(2, 1.0) is None
    assert "limit of 3 attempts" in (budget.refusal(3, 0.0) or "")
    assert "retry budget of 50 s" in (budget.refusal(1, 60.0) or "")
    near = RetryBudget(RunOptions(), Deadline(100.0), started)
    assert near.refusal(1, 0.1) is None
    assert near.refusal(1, 200.0) == "not retried: waiting 200 s would pass the run deadline of 100 s"


def test_deadline_and_causes():
    assert Deadline(None).remaining() is None and not Deadline(None).expired()
    assert Deadline(0.000001).message == "run deadline of 1e-06 s exceeded"
    passing = Deadline(0.001)
    time.sleep(0.002)
    assert passing.expired() and passing.remaining() == 0
    assert with_cause(None, "x") == "x"
    assert with_cause("a; x", "x") == "a; x"
    assert with_cause("a", "x") == "a; x"
