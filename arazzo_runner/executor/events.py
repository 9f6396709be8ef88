"""Events a run emits as it goes, for live console output and library hooks."""

from __future__ import annotations

from collections.abc import Callable

from ..records import Record
from ..result import Exchange, Message, StepResult, WorkflowResult


class WorkflowStarted(Record, frozen=True):
    workflow_id: str
    depth: int

    def __init__(self, workflow_id: str, depth: int) -> None:  # one a workflow run: written out
        self.__dict__.update(workflow_id=workflow_id, depth=depth)


class StepStarted(Record, frozen=True):
    workflow_id: str
    step_id: str
    depth: int

    def __init__(self, workflow_id: str, step_id: str, depth: int) -> None:  # the events of every step:
        self.__dict__.update(workflow_id=workflow_id, step_id=step_id, depth=depth)  # written out


class StepRetrying(Record, frozen=True):
    workflow_id: str
    step_id: str
    attempt: int
    delay: float
    reason: str
    depth: int


class StepFinished(Record, frozen=True):
    workflow_id: str
    result: StepResult
    depth: int

    def __init__(self, workflow_id: str, result: StepResult, depth: int) -> None:
        self.__dict__.update(workflow_id=workflow_id, result=result, depth=depth)


class WorkflowFinished(Record, frozen=True):
    result: WorkflowResult
    depth: int

    def __init__(self, result: WorkflowResult, depth: int) -> None:
        self.__dict__.update(result=result, depth=depth)


class RequestSent(Record, frozen=True):
    """A request of an operation step is about to go out (`exchange` has no response yet)."""

    step_id: str
    exchange: Exchange

    def __init__(self, step_id: str, exchange: Exchange) -> None:
        self.__dict__.update(step_id=step_id, exchange=exchange)


class ResponseReceived(Record, frozen=True):
    """The exchange of `RequestSent` is over: a response was read, or `exchange.error` says why not."""

    step_id: str
    exchange: Exchange

    def __init__(self, step_id: str, exchange: Exchange) -> None:
        self.__dict__.update(step_id=step_id, exchange=exchange)


class MessageSent(Record, frozen=True):
    """An AsyncAPI send step published a message (or `message.error` says why it could not)."""

    step_id: str
    message: Message


class MessageReceived(Record, frozen=True):
    """An AsyncAPI receive step took the message it matched."""

    step_id: str
    message: Message


Event = (
    WorkflowStarted
    | StepStarted
    | StepRetrying
    | StepFinished
    | WorkflowFinished
    | RequestSent
    | ResponseReceived
    | MessageSent
    | MessageReceived
)
EventHandler = Callable[[Event], None]
"""A run's `on_event`. A handler with an attribute `event_types` (a set of the classes above) is given
those events alone: the run does not build the others (`arazzo load` takes `StepFinished` only)."""
