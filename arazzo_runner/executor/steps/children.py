"""What a workflow step reads of the workflow it ran, and how it is judged on it: one child run
(`workflow.py`) or one per item of a loop (`loop.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...expressions import Context
from ...result import WorkflowResult
from ..context import with_exchange
from .base import check_criteria

if TYPE_CHECKING:
    from ...workspace.plan import CompiledStep


def child_context(base: Context, outputs: Any, last: Context) -> Context:
    """What a workflow step reads of its child: `$outputs` its outputs (`outputs`), `$statusCode` and
    `$response` its last exchange (`last`, the child's last step's context)."""
    return with_exchange(
        base,
        outputs=outputs,
        status_code=last.status_code,
        response=last.response,
        request=last.request,
        url=last.url,
        method=last.method,
    )


def judge_child(cstep: CompiledStep, child: WorkflowResult, ctx: Context) -> tuple[str | None, list[str]]:
    """Why a workflow step fails on its child's run (None: it passes), and its failed criteria: the
    child failed, or the step's `successCriteria` do not hold for it."""
    if not child.passed:
        message = (child.error or {}).get("message", "failed")
        prefix = f"workflow '{child.workflow_id}' failed: "
        if not message.startswith(prefix):  # a workflow calling itself is named once, not per level
            message = prefix + message
        return message, []
    failed = check_criteria(cstep.criteria, ctx)
    if failed:
        return "successCriteria failed: " + "; ".join(failed), failed
    return None, []
