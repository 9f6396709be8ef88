"""Events a run emits as it goes, for live console output and library hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..result import StepResult, WorkflowResult


@dataclass(frozen=True)
class WorkflowStarted:
    workflow_id: str
    depth: int


@dataclass(frozen=True)
class StepStarted:
    workflow_id: str
    step_id: str
    depth: int


@dataclass(frozen=True)
class StepRetrying:
    workflow_id: str
    step_id: str
    attempt: int
    delay: float
    reason: str
    depth: int


@dataclass(frozen=True)
class StepFinished:
    workflow_id: str
    result: StepResult
    depth: int


@dataclass(frozen=True)
class WorkflowFinished:
    result: WorkflowResult
    depth: int


Event = WorkflowStarted | StepStarted | StepRetrying | StepFinished | WorkflowFinished
EventHandler = Callable[[Event], None]
