"""The kinds of step target, each behind `StepKind` (see `base`); a kind's module is imported the
first time a step of that kind runs (the AsyncAPI one brings message transports with it)."""

from __future__ import annotations

from .base import Attempt, Host, StepKind, check_criteria

__all__ = ["Attempt", "Host", "StepKind", "check_criteria", "kind_for"]


def kind_for(target_kind: str) -> StepKind:
    """The implementation of a kind of step target (`Step.target_kind`: operation, workflow, asyncapi);
    the kinds are stateless, so a new instance costs nothing and no module holds one."""
    if target_kind == "workflow":
        from .workflow import WorkflowStep

        return WorkflowStep()
    if target_kind == "asyncapi":
        from .message import MessageStep

        return MessageStep()
    from .operation import OperationStep

    return OperationStep()
