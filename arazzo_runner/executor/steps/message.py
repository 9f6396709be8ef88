"""A step that sends or receives an AsyncAPI message (`channelPath` / `action`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Attempt, Host

if TYPE_CHECKING:
    from ...expressions import Context
    from ...result import StepResult
    from ...workspace import Workspace
    from ..context import WorkflowState
    from ..plan import CompiledStep


class MessageStep:
    name = "asyncapi"

    async def attempt(
        self,
        host: Host,
        workspace: Workspace,
        cstep: CompiledStep,
        base: Context,
        step_result: StepResult,
        depth: int,
        state: WorkflowState,
    ) -> Attempt:
        return Attempt(False, base, "AsyncAPI steps (channelPath/action) are not supported by this engine")
