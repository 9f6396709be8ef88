"""The kinds of step target, each behind `StepKind` (see `base`); a kind's module is imported the
first time a step of that kind runs (the AsyncAPI one brings message transports with it)."""

from __future__ import annotations

from .base import Attempt, Host, StepKind, check_criteria

__all__ = ["Attempt", "Host", "StepKind", "check_criteria", "kind_for"]


def kind_for(target_kind: str) -> StepKind:
    """The implementation of a kind of step target (`Step.target_kind`: operation, workflow, asyncapi);
    the kinds are stateless: one instance of each, made the first time a step of its kind runs."""
    kind = _KINDS.get(target_kind)
    if kind is None:
        kind = _KINDS[target_kind] = _new_kind(target_kind)
    return kind


_KINDS: dict[str, StepKind] = {}


def _new_kind(target_kind: str) -> StepKind:
    if target_kind == "workflow":
        from .workflow import WorkflowStep

        return WorkflowStep()
    if target_kind == "asyncapi":
        from .message import MessageStep

        return MessageStep()
    from .operation import OperationStep

    return OperationStep()
