"""`RunResult.ok`, asked of every row of `--inputs-file`, is found without the status's text: it must
say what `status == "passed"` says, for every mix of workflows and an interrupt."""

from __future__ import annotations

import itertools

from arazzo_runner.result import FAILED, NOT_RUN, PASSED, RunResult, WorkflowResult


def test_ok_is_the_status_passed():
    for count in range(3):
        for statuses in itertools.product((PASSED, FAILED, NOT_RUN), repeat=count):
            for interrupted in (False, True):
                workflows = [WorkflowResult(f"w{i}", status) for i, status in enumerate(statuses)]
                result = RunResult(workflows, interrupted=interrupted)
                assert result.ok == (result.status == PASSED)
                assert result.ok == (not interrupted and all(s == PASSED for s in statuses))
