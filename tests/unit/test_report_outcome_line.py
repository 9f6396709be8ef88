"""`arazzo report -o`'s line counts workflows by outcome first, as the page's header does (issue 37,
point 1)."""

from __future__ import annotations

from arazzo_runner.report.summary import outcome_line


def _page(statuses: list[str], runs: int = 1, steps: int = 0, nested: int = 0) -> dict:
    executions = [{"name": f"w{i}", "status": s} for i, s in enumerate(statuses)]
    children = [{"name": f"child{i} (from w0/call)", "status": "failed", "parent": 0} for i in range(nested)]
    executions += children
    return {"runs": [{"status": "failed"}] * runs, "executions": executions, "steps": [{}] * steps}


def test_workflows_by_outcome_then_runs_and_step_executions() -> None:
    page = _page(["failed", "passed", "not_run", "failed"], steps=5, nested=2)
    assert outcome_line(page) == "4 workflows: 1 passed, 2 failed, 1 not run · 1 run, 5 step executions"


def test_all_passed_and_the_singular() -> None:
    assert outcome_line(_page(["passed"], steps=1)) == "1 workflow: all passed · 1 run, 1 step execution"


def test_a_page_without_workflows_at_the_top_counts_its_runs() -> None:
    page = {"runs": [{"status": "answered"}], "executions": [], "steps": []}
    assert outcome_line(page) == "1 run: all answered · 0 step executions"
    assert outcome_line({"runs": [], "executions": [], "steps": []}) == "no run · 0 step executions"


def test_agent_runs_beside_workflows_are_counted_after_them() -> None:
    page = _page(["passed"], runs=1, steps=2)
    page["runs"] = [{"status": "passed", "kind": "run"}, {"status": "failed", "kind": "agent"}]
    assert outcome_line(page) == "1 workflow: all passed; 1 agent run: 1 failed · 2 runs, 2 step executions"
