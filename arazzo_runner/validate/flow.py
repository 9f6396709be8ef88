"""The order of a workflow's steps, as `arazzo validate` judges it: dependency cycles, reads of later
steps, and steps reading their own outputs before they have run.

Two graphs over the steps of one workflow:

- the *dependencies* (`workspace/order.py`): a step depends on the steps its `dependsOn` lists and on
  the steps it reads (`$steps.<id>.outputs...` in its own values, criteria and actions, recorded by the
  references rule as it meets them: `note_read`). A cycle in it is `step-dependency-cycle`: no order
  runs every step after the steps it needs, and the run refuses the workflow, as its plan does.
- the *flow* (each step to the next in the run order, goto targets of the step's actions and the
  workflow's, retry targets both ways): a step can have run before it reads its own outputs only when
  it lies on a cycle of the flow (a goto loop). Strongly connected components answer that for every
  step at once, in time and memory linear in steps and edges; it is asked once every read is known
  (`check_step_order`, after the expressions), since the run order depends on them.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..loader.pointer import format_pointer
from ..model import Workflow
from ..workspace.order import Cycle, cycle_message, local_step_ref, run_order
from .checker import Checker
from .findings import WARNING


class Flow:
    """Which steps of a workflow lie on a loop of the control flow (can run again after they ran), the
    default "next" going along `order` (the run order: indices into the steps)."""

    def __init__(self, ck: Checker, workflow: Workflow, order: list[int]) -> None:
        steps = workflow.steps
        self.index = positions(ck, workflow)
        edges: list[set[int]] = [set() for _ in steps]
        for before, after in itertools.pairwise(order):
            edges[before].add(after)
        inherited = ck.workflow_actions(workflow)
        for i, step in enumerate(steps):
            own = ck.actions(step.on_success, "success") + ck.actions(step.on_failure, "failure")
            for action, _ in own + inherited:
                target = self.index.get(action.step_id) if action.step_id else None
                if target is None:
                    continue
                if action.type == "goto":
                    edges[i].add(target)
                elif action.type == "retry":
                    edges[i].add(target)
                    edges[target].add(i)
        self._looping = _on_a_cycle(edges)

    def loops_back(self, step_id: str) -> bool:
        """Whether the step can run again after it ran (a goto or retry leads back to it)."""
        i = self.index.get(step_id)
        return True if i is None else self._looping[i]  # unknown steps are reported elsewhere


def positions(ck: Checker, workflow: Workflow) -> dict[str, int]:
    """stepId -> the index of its first step in the array."""
    key = ("positions", id(workflow))
    found = ck.cache.get(key)
    if found is None:
        found = ck.cache[key] = {s.step_id: i for i, s in reversed(list(enumerate(workflow.steps)))}
    return found


def note_read(ck: Checker, workflow: Workflow, step_id: str, target: str) -> None:
    """Step `step_id` reads step `target` of the same workflow: an implicit dependency."""
    if step_id != target:
        reads = ck.cache.setdefault(("reads", id(workflow)), {})
        reads.setdefault(step_id, {})[target] = None


def note_self_read(ck: Checker, workflow: Workflow, step_id: str, text: str, at: Any) -> None:
    """Step `step_id` reads its own outputs in its request (`text`, at `at`): judged once the run order
    is known (`check_step_order`), since a goto loop along it may bring the step back."""
    ck.cache.setdefault(("self-reads", id(workflow)), []).append((step_id, text, at))


def check_step_order(ck: Checker) -> None:
    """After the expressions (which note what each step reads): `step-dependency-cycle`, the steps of a
    workflow that depend on each other through what they read (a cycle of `dependsOn` alone is
    `depends-on-cycle`), one cycle a workflow, reported at the first of its steps in the array; and the
    steps that read their own outputs before they can have run (`output-forward-reference`), along the
    run order."""
    for workflow in ck.document.workflows:
        reads = ck.cache.get(("reads", id(workflow)), {})
        ids = [s.step_id for s in workflow.steps]
        known = set(ids)
        listed, needs = [], []
        for step in workflow.steps:
            named = (local_step_ref(ref, workflow.workflow_id) for ref in step.depends_on)
            wanted = tuple(s for s in named if s in known and s != step.step_id)
            listed.append(wanted)
            needs.append((*wanted, *reads.get(step.step_id, ())))
        try:
            run_order(ids, listed)
        except Cycle:
            continue  # a cycle of dependsOn alone: `depends-on-cycle` says so
        try:
            order = run_order(ids, needs)
        except Cycle as cycle:
            first = workflow.steps[ids.index(cycle.steps[0])]
            ck.report("step-dependency-cycle", first.at, cycle_message(cycle.steps))
            # a read of a later step is no longer "run first": the workflow is not run at all
            inside = format_pointer(workflow.at) + "/"
            later = {
                (f.rule, f.path)
                for f in ck.findings
                if f.rule == "output-forward-reference"
                and "comes after step" in f.message
                and f.path.startswith(inside)
            }
            ck.retract_all(later)  # one pass: a retract per finding was quadratic
            continue
        _self_reads(ck, workflow, order)


def _self_reads(ck: Checker, workflow: Workflow, order: list[int]) -> None:
    pending = ck.cache.get(("self-reads", id(workflow)))
    if not pending:
        return
    flow = Flow(ck, workflow, order)
    severity = None if ck.is_1_1 else WARNING
    for step_id, text, at in pending:
        if not flow.loops_back(step_id):
            what = f"step '{step_id}' reads its own outputs before it has run"
            ck.report("output-forward-reference", at, f"{text}: {what}", severity=severity)


def _on_a_cycle(edges: list[set[int]]) -> list[bool]:
    """For each node, whether a path of one or more edges leads from it back to it: its strongly
    connected component has more than one node, or it has an edge to itself (Tarjan's algorithm,
    iterative: a workflow of 10,000 steps is no recursion)."""
    count = len(edges)
    order = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    looping = [False] * count
    counter = 0
    for root in range(count):
        if order[root] != -1:
            continue
        work = [(root, iter(edges[root]))]
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if order[child] == -1:
                    order[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack[child] = True
                    work.append((child, iter(edges[child])))
                    advanced = True
                    break
                if on_stack[child]:
                    low[node] = min(low[node], order[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    for member in component:
                        looping[member] = True
    return looping
