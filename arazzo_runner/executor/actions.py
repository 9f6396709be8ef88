"""Choosing the action after a step, and how long to wait before a retry."""

from __future__ import annotations

import email.utils
import time

from ..expressions import Context
from ..records import Record
from ..workspace.plan import CompiledAction


def find_action(
    actions: list[CompiledAction], ctx: Context, retries: dict[str, int], *, retry_allowed: bool = True
) -> CompiledAction | None:
    """The first action whose criteria all pass; retry actions whose limit is used up are skipped, so
    later failure actions are considered once retries are exhausted (as the spec requires). Without
    `retry_allowed` (a run bound was reached) every retry action counts as exhausted."""
    for action in actions:
        if action.type == "retry" and (
            not retry_allowed or retries.get(action.name, 0) >= action.retry_limit
        ):
            continue
        if all(c.check.evaluate(ctx).passed for c in action.criteria):
            return action
    return None


def retry_delay(
    action: CompiledAction, retry_after_header: str | None, cap: float
) -> tuple[float, str | None]:
    """Seconds to wait: a Retry-After header (seconds or HTTP date) wins over `retryAfter`; bounded by cap."""
    delay = float(action.retry_after or 0)
    header = parse_retry_after(retry_after_header)
    if header is not None:
        delay = header
    if delay > cap:
        return cap, f"retry delay of {delay:g} s capped at {cap:g} s"
    return max(delay, 0.0), None


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # '²'.isdigit() is true too, but float('²') fails
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


class Decision(Record):
    """What happens after a step: next, goto a step, end, run another workflow, or fail."""

    kind: str  # "next" | "step" | "workflow" | "end" | "fail"
    target: str | None = None
    action: CompiledAction | None = None
    message: str | None = None

    def __init__(
        self,
        kind: str,
        target: str | None = None,
        action: CompiledAction | None = None,
        message: str | None = None,
    ) -> None:
        self.kind, self.target, self.action, self.message = kind, target, action, message


def transfer(action: CompiledAction) -> Decision:
    """The decision an `end` / `goto` action makes."""
    if action.type == "end":
        return Decision("end", action=action)
    if action.step_id:
        return Decision("step", target=action.step_id, action=action)
    if action.workflow_id:
        return Decision("workflow", target=action.workflow_id, action=action)
    return Decision("fail", action=action, message=f"action '{action.name}' has no target")


def describe_action(action: CompiledAction) -> str:
    """How a step result names the action taken: `goto resolveToolCall`, `retry`, `end`."""
    target = action.step_id or action.workflow_id
    return f"{action.type} {target}" if target and action.type != "end" else action.type
