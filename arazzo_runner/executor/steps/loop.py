"""One attempt of an `x-forEach` step: its workflow run once per item (`workspace/for_each.py`).

The items are evaluated once, before anything is sent: not an array, or more than `--max-loop-items`,
and the step fails unsent. The step's parameters are evaluated once, the same for every item, and each
child is given them and its item as the loop's `input`. Children run in item order, one at a time, or
under `--parallel N` up to N at once (`concurrent.run_each`). Each child is judged as a workflow step's
child is: it must pass, then the step's `successCriteria` hold for it (`$outputs` its outputs,
`$statusCode` its last exchange's); once one does not, no new one starts and those in flight finish, and
the step fails with the first item in item order that did not, naming its index. Interrupted, the
items that ran and those running are kept, as far as each got. The step's outputs are
evaluated for each child and become arrays in item order (`stepping.record`); its actions see the
children's outputs as arrays (`$outputs.<name>`). Every child run is kept, in item order, each with
its `item` index: the reports show each iteration as a child run (`data[3] (from w/each)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import ArazzoError
from ...expressions import Context, Missing
from ...result import StepResult, WorkflowResult
from ...workspace.for_each import kind_of
from ..concurrent import run_each
from ..inputs import InputsError
from ..interrupts import is_interrupt
from ..values import Outputs, strip_missing
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
    # each item's run once through, the workflows it calls included (`bounds.step_budget`)
    host.loop_allowance += len(items) * steps_once_through(target.workspace, target.workflow, set())
    total = len(items)

    async def one(index: int) -> tuple[WorkflowResult, Context, str | None, list[str]]:
        """Run item `index`'s child and judge it: (its run, its context, why it fails, failed criteria)."""
        inputs = {**shared, loop.input: items[index]}
        try:
            child, child_ctx = await host.run_workflow(
                target.workspace, target.workflow, inputs, depth + 1, item=index
            )
        except InputsError as exc:
            child, child_ctx = WorkflowResult(target.workflow.workflow_id, item=index), None
            child.fail(None, str(exc))
        except BaseException as exc:  # interrupted: keep the child as far as it got
            if is_interrupt(exc):
                interrupted[index] = host.take_interrupted_run()
            raise
        ctx = child_context(base, child.outputs, child_ctx or Context())
        why, failed = judge_child(cstep, child, ctx)
        return child, ctx, None if why is None else f"item {index} (of {total}): {why}", failed

    ran: dict[int, Any] = {}
    interrupted: dict[int, WorkflowResult | None] = {}
    try:
        await run_each(host, total, one, lambda outcome: outcome[2] is not None, ran)
    except BaseException as exc:
        if is_interrupt(exc):  # every item that ran or was running, in item order, for the scheduler
            for index in sorted({*ran, *interrupted}):
                child = ran[index][0] if index in ran else interrupted[index]
                if child is not None:
                    step_result.add_workflow(child)
        raise
    contexts: list[Context | None] = []
    failure: str | None = None
    failed: list[str] = []
    last: Context = Context()
    for index in range(total):
        if index not in ran:
            contexts.append(None)  # not run: an item before it failed
            continue
        child, ctx, why, problems = ran[index]
        step_result.add_workflow(child)
        contexts.append(ctx)
        last = ctx
        if failure is None and why is not None:
            failure, failed = why, problems
    combined = child_context(base, _arrays(ran), last)
    return Attempt(failure is None, combined, failure, failed, status_code=last.status_code, items=contexts)


def steps_once_through(workspace: Any, workflow: Any, seen: set[tuple[int, str]]) -> int:
    """The steps a run of `workflow` takes once through: its own, and those of the workflows its steps
    call (each once; a workflow calling itself counts once)."""
    key = (id(workspace), workflow.workflow_id)
    if key in seen:
        return 0
    seen.add(key)
    plan = workspace.compiled(workflow)
    count = len(plan.steps)
    for cstep in plan.steps:
        if cstep.step.target_kind == "workflow" and cstep.for_each is None:
            ref, at = cstep.step.workflow_id or "", (*cstep.step.at, "workflowId")
            try:
                called = workspace.resolve_workflow(ref, at)
            except ArazzoError:
                continue  # the step fails when it runs, saying why
            count += steps_once_through(called.workspace, called.workflow, seen)
    return count


def _arrays(ran: dict[int, Any]) -> dict[str, list[Any]]:
    """What the step's actions read as `$outputs`: each output of the children as an array in item
    order (`null` for a child that has no such output). A child's output derived from a secret, or
    holding secret members, is marked at its place in the array (`Outputs.members`): a criterion or the
    step's trace that reads the array shows it as `***` as the child's own outputs do."""
    order = sorted(ran)
    names: dict[str, None] = {}
    for index in order:
        names.update(dict.fromkeys(ran[index][0].outputs))
    arrays = Outputs({name: [ran[i][0].outputs.get(name) for i in order] for name in names})
    for at, index in enumerate(order):
        outputs = ran[index][0].outputs
        marked = [(name, (at,)) for name in getattr(outputs, "secret", ())]
        marked += [(n, (at, *p)) for n, paths in getattr(outputs, "members", {}).items() for p in paths]
        for name, path in marked:
            arrays.members[name] = (*arrays.members.get(name, ()), path)
    return arrays
