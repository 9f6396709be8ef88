"""One attempt of an `x-forEach` step: its workflow run once per item (`workspace/for_each.py`).

The items are evaluated once, before anything is sent: not an array, or more than `--max-loop-items`,
and the step fails unsent. The step's parameters are evaluated once, the same for every item, and each
child is given them and its item as the loop's `input`. Children run in item order, one at a time, or
under `--parallel N` up to N at once (`concurrent.run_each`); once one fails no new one starts and those
in flight finish. Each child is judged as a workflow step's child is: it must pass, then the step's
`successCriteria` hold for it (`$outputs` its outputs, `$statusCode` its last exchange's); the step
fails with the first item in item order that did not, naming its index. The step's outputs are
evaluated for each child and become arrays in item order (`stepping.record`); its actions see the
children's outputs as arrays (`$outputs.<name>`). Every child run is kept, in item order, each with
its `item` index: the reports show each iteration as a child run (`data[3] (from w/each)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...expressions import Context, Missing
from ...result import StepResult, WorkflowResult
from ...workspace.for_each import kind_of
from ..concurrent import run_each
from ..inputs import InputsError
from ..values import strip_missing
from .base import Attempt, Host
from .children import child_context, judge_child

if TYPE_CHECKING:
    from ...workspace import Workspace
    from ...workspace.plan import CompiledStep


async def attempt_loop(
    host: Host,
    workspace: Workspace,
    cstep: CompiledStep,
    base: Context,
    step_result: StepResult,
    depth: int,
    shared: dict[str, Any],
) -> Attempt:
    """`shared`: the child inputs the step's parameters give every item (evaluated once)."""
    loop = cstep.for_each
    items, problems = strip_missing(loop.items.evaluate(base), "x-forEach items")
    if isinstance(items, Missing):
        return Attempt(False, base, f"not sent: x-forEach items: {items.reason}")
    if not isinstance(items, list):
        return Attempt(False, base, f"not sent: x-forEach items is {kind_of(items)}, not an array")
    limit = host.options.max_loop_items
    if len(items) > limit:
        why = f"not sent: x-forEach has {len(items)} items, more than {limit} (--max-loop-items)"
        return Attempt(False, base, why)
    step_result.warnings.extend(problems)
    target = workspace.resolve_workflow(cstep.step.workflow_id or "", (*cstep.step.at, "workflowId"))
    child_steps = len(target.workspace.compiled(target.workflow).steps)
    host.loop_allowance += len(items) * child_steps  # each item's run once through (`bounds.step_budget`)

    async def one(index: int) -> tuple[WorkflowResult, Context | None]:
        inputs = {**shared, loop.input: items[index]}
        try:
            return await host.run_workflow(target.workspace, target.workflow, inputs, depth + 1, item=index)
        except InputsError as exc:
            child = WorkflowResult(target.workflow.workflow_id, item=index)
            child.fail(None, str(exc))
            return child, None

    ran = await run_each(host, len(items), one, lambda outcome: not outcome[0].passed)
    contexts: list[Context | None] = []
    failure: str | None = None
    failed: list[str] = []
    last: Context = Context()
    for index in range(len(items)):
        if index not in ran:
            contexts.append(None)  # not run: an item before it failed
            continue
        child, child_ctx = ran[index]
        step_result.add_workflow(child)
        last = child_ctx or Context()
        ctx = child_context(base, child.outputs, last)
        contexts.append(ctx)
        if failure is None:
            why, failed = judge_child(cstep, child, ctx)
            failure = None if why is None else f"item {index} (of {len(items)}): {why}"
    combined = child_context(base, _arrays(ran), last)
    return Attempt(failure is None, combined, failure, failed, status_code=last.status_code, items=contexts)


def _arrays(ran: dict[int, Any]) -> dict[str, list[Any]]:
    """What the step's actions read as `$outputs`: each output of the children as an array in item
    order (`null` for a child that has no such output)."""
    order = sorted(ran)
    names: dict[str, None] = {}
    for index in order:
        names.update(dict.fromkeys(ran[index][0].outputs))
    return {name: [ran[i][0].outputs.get(name) for i in order] for name in names}
