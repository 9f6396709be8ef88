"""Two runs compared (`report/html/diff.py`, `arazzo report A B --diff`): what counts as a change of
time, and a change of a step's HTTP status alone is one."""

from __future__ import annotations

import pytest

from arazzo_runner.report.html.diff import diff_lines, diff_runs, time_changed


@pytest.mark.parametrize(
    ("before", "after", "changed"),
    [
        (10, 25, False),  # a factor of 2.5 but 15 ms: noise
        (120, 300, True),
        (300, 120, True),
        (100, 199, False),  # 99 ms
        (1000, 1200, False),  # 200 ms but a factor of 1.2
        (0, 150, True),
        (None, 500, False),
    ],
)
def test_a_time_changes_when_it_moves_by_100_ms_and_by_half_again(before, after, changed) -> None:
    assert time_changed(before, after) is changed


def _page(first: dict, second: dict) -> dict:
    step = {"name": "get", "status": "passed", "statusCode": 200, "durationMs": 10.0}
    return {
        "runs": [{"executions": [0]}, {"executions": [1]}],
        "executions": [
            {"name": "flow", "status": "passed", "outputs": {}, "steps": [0]},
            {"name": "flow", "status": "passed", "outputs": {}, "steps": [1]},
        ],
        "steps": [{**step, "id": 0, **first}, {**step, "id": 1, **second}],
    }


def test_a_step_whose_http_status_alone_changed_is_a_change() -> None:
    diff = diff_runs(_page({}, {"statusCode": 201}))
    assert [(c["step"], c["changed"]) for c in diff["changes"]] == [("get", ["HTTP status"])]
    assert (
        diff_lines(diff)[1] == "  flow / get: HTTP status: passed, HTTP 200, 10 ms -> passed, HTTP 201, 10 ms"
    )
    assert diff_runs(_page({}, {"durationMs": 24.0}))["changes"] == []
