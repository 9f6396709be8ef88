"""A user's runs as Locust request events: one per executed step, one per workflow run (`naming`).

Each event carries the step's HTTP method as its request type (`SEND` / `RECEIVE` for an AsyncAPI
step), its duration as the response time (every attempt and retry wait of the step execution: what the
user waited for), the bytes of its responses (or of the messages it took) as the length and, for a
failed step, its cause as the exception: the first line of the message the console would print, masked
with the secrets the run knows, so Locust's failure table, CSV and HTML report hold no credential.
`context` has the ids, the status code and the attempts, for listeners of your own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..executor.events import StepFinished
from ..result import INTERRUPTED_STEP, StepResult, WorkflowResult
from .naming import STEP_TYPE, WORKFLOW_TYPE, step_name, workflow_name

MESSAGE_LIMIT = 300  # characters of a failure's message: Locust keeps a table row per distinct message


class StepFailed(Exception):
    """A step or a workflow run failed; the message says why (masked)."""


class RequestEvents:
    """An `on_event` handler firing Locust's request event for every step a run finishes."""

    event_types = frozenset({StepFinished})  # the run builds no other event for it (`executor/events.py`)

    def __init__(self, fire: Callable[..., Any], masker: Any) -> None:
        self.fire = fire  # environment.events.request.fire
        self.masker = masker

    def __call__(self, event: Any) -> None:
        # a step cut short because its user was stopped (the run cancelled as the test ends) is no
        # answer of the server's, good or bad: it is not counted
        if type(event) is StepFinished and event.result.error != INTERRUPTED_STEP:
            self.step(event.workflow_id, event.result)

    def step(self, workflow_id: str, step: StepResult) -> None:
        kind = step.method or (step.kind.upper() if step.kind else None)  # HTTP, or AsyncAPI's SEND, RECEIVE
        kind = kind or (WORKFLOW_TYPE if step.workflow_runs else STEP_TYPE)
        self.fire(
            request_type=kind,
            name=step_name(workflow_id, step.step_id),
            response_time=step.duration_ms,
            response_length=_length(step),
            exception=None if step.passed else StepFailed(self._message(step.error or "failed")),
            context={
                "workflowId": workflow_id,
                "stepId": step.step_id,
                "statusCode": step.status_code,
                "attempts": step.attempts,
            },
            url=self.masker.url(step.url) if step.url else None,
        )

    def workflow(self, workflow_id: str, result: WorkflowResult | None, error: str | None = None) -> None:
        """The event of one run of the chosen workflow; `error` when the run could not start."""
        failure = error
        if result is not None and not result.passed:
            where = (result.error or {}).get("stepId")
            message = (result.error or {}).get("message") or "failed"
            failure = f"step {where}: {message}" if where else message
        self.fire(
            request_type=WORKFLOW_TYPE,
            name=workflow_name(workflow_id),
            response_time=result.duration_ms if result is not None else 0.0,
            response_length=_lengths(result.steps) if result is not None else 0,
            exception=None if failure is None else StepFailed(self._message(failure)),
            context={"workflowId": workflow_id},
        )

    def _message(self, text: str) -> str:
        first = text.strip().splitlines()[0] if text.strip() else "failed"
        return self.masker.clip(first, MESSAGE_LIMIT)


def _length(step: StepResult) -> int:
    """The bytes of the step's own responses (not of token requests), or of the messages it took."""
    size = 0
    for message in step.messages:  # plain loops: this runs for every step of every run
        if message.direction == "receive":
            size += len(message.payload or b"")
    for exchange in step.exchanges:
        if exchange.purpose is None:
            size += len(exchange.response_body or b"")
    return size


def _lengths(steps: list[StepResult]) -> int:
    size = 0
    for step in steps:
        size += _length(step)
    return size
