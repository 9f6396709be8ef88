"""Steps as a graph: what each step of a workflow needs before it runs, and the order a run takes them in.

Arazzo 1.1 (*Step Dependencies and Execution Order*): a step runs only once the steps it depends on have
completed, and the steps it depends on are those its `dependsOn` lists and those it reads with a runtime
expression (`$steps.<id>.outputs...`): the implicit dependencies. A step reads another wherever the
expression is in the step: its parameters, request body, criteria, outputs, `correlationId`,
`x-security` values, `x-forEach` items, and its actions (their criteria and parameters). What it
inherits from the workflow (parameters, actions) is not its own and orders nothing
(the plan collects a step's own as it compiles them: `plan._Compiler`). A step reading its own outputs
(a goto loop's paging cursor) depends on nothing for it.

The run order is the array order wherever it already satisfies every dependency, and otherwise the
stable topological order: at each point, the first step in the array whose dependencies are all placed.
A cycle has no order: the workflow cannot run with one meaning (the plan refuses it, `arazzo validate`
reports `step-dependency-cycle`). Computed once per compiled workflow (`plan.py`), linear in steps and
dependencies.
"""

from __future__ import annotations

import contextlib
import heapq
import re
from typing import Any

from ..errors import ExpressionError
from ..expressions import Expression, StepOutputRef, WorkflowRef, WorkflowStepOutputRef, compile_value

# `$workflows.<id>.steps.<stepId>` / `$sourceDescriptions.<name>.<id>.steps.<stepId>` in a `dependsOn`
STEP_REF = (
    r"^\$(?:workflows|sourceDescriptions\.([A-Za-z0-9_\-]+))\.([A-Za-z0-9_\-]+)\.steps\.([A-Za-z0-9_\-]+)$"
)


def local_step_ref(ref: str, workflow_id: str) -> str | None:
    """The stepId a `dependsOn` entry names in the workflow `workflow_id` itself, else None: a plain
    stepId, or `$workflows.<this workflow>.steps.<stepId>`."""
    if not ref.startswith("$"):
        return ref
    match = re.match(STEP_REF, ref)
    if match is not None and match.group(1) is None and match.group(2) == workflow_id:
        return match.group(3)
    return None


def _pieces(cstep: Any, inherited: bool) -> tuple[list[Any], list[Any]]:
    """The compiled values and criteria (`criteria.CompiledCriterion`) of a step (`plan.CompiledStep`)
    that hold its expressions: its own only, or with `inherited` what it has of the workflow too.

    What a step inherits from the workflow (parameters, actions, `x-security` entries) is shared by
    every step, read as it is when each step runs, and orders nothing: a workflow-level `Authorization`
    reading a login step would otherwise make every step, the steps the login needs included, wait for
    the login."""
    step = cstep.step
    own, size = step.at, len(step.at)
    values = [p.value for p in cstep.params if inherited or p.at[:size] == own]
    criteria = [c.check for c in cstep.criteria]
    body = cstep.body
    if body is not None:
        if body.payload is not None:
            values.append(body.payload)
        values.extend(r.value for r in body.replacements)
    # the step's own actions come first in the compiled lists, then the workflow's it inherits
    successes = cstep.on_success if inherited else cstep.on_success[: len(step.on_success)]
    failures = cstep.on_failure if inherited else cstep.on_failure[: len(step.on_failure)]
    for action in (*successes, *failures):
        criteria.extend(c.check for c in action.criteria)
        values.extend(p.value for p in action.params)
    values.extend(cstep.outputs.values())
    if cstep.correlation is not None:
        values.append(cstep.correlation)
    x_operation = step.extensions.get("x-operation")  # Respect's: its URL is evaluated when it runs
    if isinstance(x_operation, dict) and isinstance(x_operation.get("url"), str):
        with contextlib.suppress(ExpressionError):  # the step fails when it runs, saying why
            values.append(compile_value(x_operation["url"]))
    for entry in cstep.x_security:
        if inherited or entry.entry.at[:size] == own:
            values.extend(value for _, value in entry.values)
    if cstep.for_each is not None:
        values.append(cstep.for_each.items)
    return values, criteria


def _expressions(values: list[Any], criteria: list[Any], marks: tuple[str, ...]) -> list[Expression]:
    """The expressions of the pieces whose text holds one of `marks` (`$steps.`, `$workflows.`): a
    reference to a step or workflow is written so, and most values and criteria hold none (walking
    them costs ~10x the test; this runs for every step of every plan)."""
    found: list[Expression] = []
    for value in values:
        raw = value.raw
        if type(raw) is str:
            if any(mark in raw for mark in marks):
                found.extend(value.expressions())
        elif isinstance(raw, (dict, list)):
            found.extend(value.expressions())
    for criterion in criteria:
        text = criterion.condition if criterion.context is None else criterion.condition + criterion.context
        if any(mark in text for mark in marks):
            found.extend(criterion.expressions())
    return found


def may_read(text: Any) -> bool:
    """Whether a value or condition as written may read a step or workflow: a reference to one is written
    `$steps.`/`$workflows.` (a container may hold one anywhere). Most hold none, and the test costs a
    tenth of walking the compiled expressions (done for every step of every plan)."""
    if type(text) is str:
        return "$steps." in text or "$workflows." in text
    return isinstance(text, (dict, list))


def extension_pieces(cstep: Any) -> list[Any]:
    """The compiled values of a step's own extensions that may read a step: Respect's `x-operation` URL
    (compiled here: the executor evaluates it when it runs) and its own `x-security` entries (the
    workflow's come first in the compiled ones, and are inherited)."""
    step = cstep.step
    pieces: list[Any] = []
    x_operation = step.extensions.get("x-operation")
    if isinstance(x_operation, dict) and may_read(x_operation.get("url")):
        with contextlib.suppress(ExpressionError):  # the step fails when it runs, saying why
            pieces.append(compile_value(x_operation["url"]))
    for entry in cstep.x_security:
        if entry.entry.at[: len(step.at)] == step.at:
            pieces.extend(value for _, value in entry.values)
    return pieces


def step_reads(pieces: list[Any], workflow_id: str) -> list[str]:
    """The step ids the compiled values and criteria read (`pieces`: those of a step's own that may,
    `plan.py`): `$steps.<id>...`, and `$workflows.<this workflow>.steps.<id>...` (the execution in
    progress is the latest one, so the same step)."""
    found = []
    for piece in pieces:
        for expression in piece.expressions():
            kind = type(expression)
            this = kind is WorkflowStepOutputRef and expression.workflow_id == workflow_id
            if kind is StepOutputRef or this:
                found.append(expression.step_id)
    return found


def needs_of(cstep: Any, ids: set[str], workflow_id: str) -> tuple[tuple[str, ...], ...]:
    """What `cstep` depends on: (the steps of this workflow, in the order first named: its `dependsOn`,
    then what it reads; those its `dependsOn` lists, which must have passed; the `dependsOn` entries
    naming steps of other workflows, or no step, checked when it runs)."""
    local: dict[str, None] = {}
    listed: list[str] = []
    elsewhere: list[str] = []
    own = cstep.step_id
    for ref in cstep.step.depends_on:
        step_id = local_step_ref(ref, workflow_id)
        if step_id is None or step_id not in ids:  # an unknown id too: the run fails the step, naming it
            elsewhere.append(ref)
        elif step_id != own:
            local[step_id] = None
            listed.append(step_id)
    for step_id in cstep.reads:
        if step_id != own and step_id in ids:  # a read of an unknown step is an expression problem
            local[step_id] = None
    return tuple(local), tuple(dict.fromkeys(listed)), tuple(elsewhere)


def runs_beside_others(cstep: Any) -> bool:
    """Whether the step may run side by side with other steps (`--parallel`) with an outcome that cannot
    differ from a sequential run's (docs/semantics.md, *Parallel steps*): an operation or workflow step
    (an AsyncAPI step's messages are ordered on their channel, a receive waits beside the steps already);
    no success action (what runs next is the next step, whatever it answers); failure actions only
    plain retries (it ends passed or failed, the workflow going on or failing); no `dependsOn` on a step
    of another workflow, and no `$workflows...` read (a workflow step running beside it could be what
    completes or produces it)."""
    if cstep.step.target_kind not in ("operation", "workflow") or cstep.on_success:
        return False
    if any(a.type != "retry" or a.step_id or a.workflow_id for a in cstep.on_failure):
        return False
    return not reads_other_workflows(cstep)


def reads_other_workflows(cstep: Any) -> bool:
    """Whether the step names a step of another workflow in `dependsOn`, or reads a `$workflows...`
    value anywhere (what it inherits included): what a workflow running beside it could produce."""
    if cstep.needs_elsewhere:
        return True
    values, criteria = _pieces(cstep, True)
    marks = ("$workflows.", "$dependencies.")  # Jentic's `$dependencies.<w>.<name>` reads one too
    kinds = (WorkflowRef, WorkflowStepOutputRef)
    return any(isinstance(e, kinds) for e in _expressions(values, criteria, marks))


class Cycle(Exception):
    """The steps cannot be ordered: `steps` (stepIds, the first repeated at the end) depend on each other."""

    def __init__(self, steps: list[str]) -> None:
        super().__init__(" -> ".join(steps))
        self.steps = steps


def run_order(step_ids: list[str], needs: list[tuple[str, ...]]) -> list[int]:
    """The indices of the steps in the order a run takes them: the array order where every step's needs
    come before it, else the stable topological order (the first ready step in the array at each point).
    `needs[i]`: the stepIds step `i` depends on (ids that are not steps are ignored here). Raises
    `Cycle` naming one cycle when there is no order."""
    index = {step_id: i for i, step_id in reversed(list(enumerate(step_ids)))}
    waiting = [0] * len(step_ids)
    after: list[list[int]] = [[] for _ in step_ids]
    in_order = True
    for i, wanted in enumerate(needs):
        for step_id in wanted:
            j = index.get(step_id)
            if j is None or j == i:
                continue
            waiting[i] += 1
            after[j].append(i)
            in_order = in_order and j < i
    if in_order:  # the usual case: nothing to reorder
        return list(range(len(step_ids)))
    ready = [i for i, count in enumerate(waiting) if count == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for k in after[i]:
            waiting[k] -= 1
            if waiting[k] == 0:
                heapq.heappush(ready, k)
    if len(order) < len(step_ids):
        raise Cycle(_a_cycle(step_ids, needs, index, {i for i, count in enumerate(waiting) if count}))
    return order


def _a_cycle(
    step_ids: list[str], needs: list[tuple[str, ...]], index: dict[str, int], left: set[int]
) -> list[str]:
    """One cycle among the steps left unordered (each of them waits for another of them), as stepIds."""
    start = min(left)
    path: list[int] = []
    seen: dict[int, int] = {}
    node = start
    while node not in seen:  # follow a need that is itself unordered: it must come round
        seen[node] = len(path)
        path.append(node)
        node = next(
            j for j in (index.get(s) for s in needs[node]) if j is not None and j in left and j != node
        )
    cycle = path[seen[node] :]
    # written in the order the steps wait: a needs b needs ... needs a
    return [step_ids[i] for i in cycle] + [step_ids[cycle[0]]]


def cycle_message(cycle: list[str]) -> str:
    """What a dependency cycle is told as, by the plan and by `arazzo validate`."""
    chain = " -> ".join(f"'{s}'" for s in cycle)
    return (
        f"steps depend on each other ({chain}; each needs the next by dependsOn or by reading its "
        "outputs): no order runs every step after the steps it needs"
    )


def plan_order(workflow: Any, steps: list[Any], index: dict[str, int], fail: Any) -> list[Any]:
    """Each compiled step's needs (`needs_of`), and the steps in the order a run takes them; a cycle is
    `fail(at, message)` raised (the plan's CompileError) at the first of its steps."""
    ids = set(index)
    for cstep in steps:
        cstep.needs, cstep.must_pass, cstep.needs_elsewhere = needs_of(cstep, ids, workflow.workflow_id)
    try:
        return [steps[i] for i in run_order([s.step_id for s in steps], [s.needs for s in steps])]
    except Cycle as cycle:
        first = steps[index[cycle.steps[0]]]
        raise fail(first.step.at, cycle_message(cycle.steps)) from None
