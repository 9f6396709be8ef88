"""The lines `arazzo mcp` sends as progress notifications, one per step event (tools/mcp_server.py)."""

from __future__ import annotations

from arazzo_runner.agents.mcp.calls import progress_message
from arazzo_runner.executor.events import StepFinished, StepRetrying, StepStarted, WorkflowFinished
from arazzo_runner.result import StepResult


def test_every_step_event_is_a_line_and_a_nested_one_names_its_workflow():
    assert progress_message(StepStarted("w", "getPet", 0)) == "step 'getPet' started"
    assert progress_message(StepStarted("inner", "getPet", 1)) == "workflow 'inner' step 'getPet' started"
    retrying = StepRetrying("w", "getPet", attempt=2, delay=0.5, reason="HTTP 503", depth=0)
    assert progress_message(retrying) == "step 'getPet' retrying (attempt 2)"
    nested = StepRetrying("inner", "pay", attempt=3, delay=1.0, reason="HTTP 503", depth=2)
    assert progress_message(nested) == "workflow 'inner' step 'pay' retrying (attempt 3)"


def test_a_finished_step_says_its_status_and_http_code_and_other_events_say_nothing():
    passed = StepResult("getPet")
    passed.status, passed.status_code = "passed", 200
    assert progress_message(StepFinished("w", passed, 0)) == "step 'getPet' passed (HTTP 200)"
    failed = StepResult("confirm")
    failed.status = "failed"
    assert progress_message(StepFinished("w", failed, 0)) == "step 'confirm' failed"
    assert progress_message(WorkflowFinished.__new__(WorkflowFinished)) is None
