"""Resource bounds of a run: the run deadline, the retry budget of a step, oversized response bodies.

Each bound ends in a step failure (or a warning) whose message names the limit and its option, so a run
that hits one is reported as failed with the cause, never as a hang or a silent success.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..bounds.deadline import Deadline
from ..expressions.ast import Expression, ResponseRef
from ..records import Record

if TYPE_CHECKING:
    from ..workspace.plan import CompiledAction, CompiledStep
    from .options import RunOptions

from ..bounds.limits import DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_RETRY_TOTAL  # noqa: F401 (re-exported)


def step_budget(host: Any) -> int:
    """The step executions the run may make: `--max-steps`, and for each item an `x-forEach` step runs
    its workflow for, that workflow's steps once through (`host.loop_allowance`): a loop of 1,000 items
    is not a goto loop, while a goto loop inside its workflow still spends the budget."""
    return int(host.options.max_steps + host.loop_allowance)


def budget_spent(host: Any) -> str:
    """How a run stopped by its step budget says so."""
    allowance = host.loop_allowance
    also = f", and {allowance} for the items of x-forEach loops" if allowance else ""
    return f"stopped after {step_budget(host)} steps (max-steps{also}): a goto loop?"


def no_more_steps(host: Any) -> str | None:
    """Why no step starts now: the run's deadline has passed, or its step budget is spent."""
    if host.deadline.expired():
        return str(host.deadline.message)
    if host.steps_run >= step_budget(host):
        return budget_spent(host)
    return None


def within(timeout: float | None, deadline: Deadline) -> float | None:
    """The tighter of `timeout` and the time left before the deadline (None: no limit at all)."""
    left = deadline.remaining()
    if left is None:
        return timeout
    return left if timeout is None else min(timeout, left)


def with_cause(message: str | None, cause: str) -> str:
    """`message`, ending with `cause` unless it already says it."""
    if not message:
        return cause
    return message if cause in message else f"{message}; {cause}"


class RetryBudget(Record):
    """What one step execution may still spend on retries (`max_attempts`, `max_retry_total`)."""

    options: RunOptions
    deadline: Deadline
    started: float  # time.perf_counter() when the step's first attempt started

    def __init__(self, options: RunOptions, deadline: Deadline, started: float) -> None:
        self.options, self.deadline, self.started = options, deadline, started

    def refusal(self, attempts: int, delay: float) -> str | None:
        """Why a retry after `attempts` attempts and a wait of `delay` s may not happen, or None."""
        cap = self.options.max_attempts
        if attempts >= cap:
            return f"retries stopped: the limit of {cap} attempts per step was reached (max-attempts)"
        total = self.options.max_retry_total
        spent = time.perf_counter() - self.started
        if spent + delay > total:
            return (
                f"retries stopped: waiting {delay:g} s more would pass the retry budget of {total:g} s "
                f"per step (max-retry-total; {spent:.3g} s spent)"
            )
        left = self.deadline.remaining()
        if left is not None and delay >= left:
            return (
                f"not retried: waiting {delay:g} s would pass the run deadline of {self.deadline.seconds:g} s"
            )
        return None


def reads_response_body(cstep: CompiledStep) -> bool:
    """Whether the step's criteria, outputs or actions refer to `$response.body` (or its payload)."""
    return any(
        isinstance(expr, ResponseRef) and expr.part in ("body", "payload") for expr in _expressions(cstep)
    )


def _expressions(cstep: CompiledStep) -> Iterator[Expression]:
    for criterion in cstep.criteria:
        yield from criterion.check.expressions()
    for value in cstep.outputs.values():
        yield from value.expressions()
    for action in (*cstep.on_success, *cstep.on_failure):
        yield from _action_expressions(action)


def _action_expressions(action: CompiledAction) -> Iterator[Expression]:
    for criterion in action.criteria:
        yield from criterion.check.expressions()
    for param in action.params:
        yield from param.value.expressions()
