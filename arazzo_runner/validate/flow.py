"""Which steps of a workflow can run before which: the basis of the forward-reference rule.

Edges: each step to the next (the default on success), goto targets (the step's actions and the
workflow's), retry targets both ways (the target runs, then the step again), and step-level `dependsOn`.
Step X can run before step S when S is reachable from X by at least one edge.
"""

from __future__ import annotations

from ..model import Workflow
from .checker import Checker


class Flow:
    def __init__(self, ck: Checker, workflow: Workflow) -> None:
        steps = workflow.steps
        self.index = {s.step_id: i for i, s in reversed(list(enumerate(steps)))}
        edges: list[set[int]] = [set() for _ in steps]
        for i in range(len(steps) - 1):
            edges[i].add(i + 1)
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
            for dependency in step.depends_on:
                source = self.index.get(dependency)
                if source is not None:
                    edges[source].add(i)
        self._reach = [self._reachable(edges, i) for i in range(len(steps))]

    @staticmethod
    def _reachable(edges: list[set[int]], start: int) -> set[int]:
        seen: set[int] = set()
        todo = list(edges[start])
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(edges[node])
        return seen

    def can_precede(self, before: str, after: str) -> bool:
        """Whether step `before` can have completed when step `after` starts."""
        b, a = self.index.get(before), self.index.get(after)
        if b is None or a is None:
            return True  # unknown steps are reported elsewhere
        return a in self._reach[b]


def flow(ck: Checker, workflow: Workflow) -> Flow:
    key = ("flow", id(workflow))
    found = ck.cache.get(key)
    if found is None:
        found = ck.cache[key] = Flow(ck, workflow)
    return found
