"""Events a run emits as it goes, for live console output and library hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..result import Exchange, StepResult, WorkflowResult


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


@dataclass(frozen=True)
class RequestSent:
    """A request of an operation step is about to go out (`exchange` has no response yet)."""

    step_id: str
    exchange: Exchange


@dataclass(frozen=True)
class ResponseReceived:
    """The exchange of `RequestSent` is over: a response was read, or `exchange.error` says why not."""

    step_id: str
    exchange: Exchange


Event = (
    WorkflowStarted
    | StepStarted
    | StepRetrying
    | StepFinished
    | WorkflowFinished
    | RequestSent
    | ResponseReceived
)
EventHandler = Callable[[Event], None]
