"""Every workflow execution of a run, once each: selected workflows, their dependencies (before them) and
the child runs of `workflowId` steps and of goto/retry to a workflow.

Report files cover one run, or the runs of `--inputs-file` rows: a `Part` is one run with its masker
(each row masks its own secrets) and a label that prefixes its names (`row 2 / flow`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..records import Record
from ..result import RunResult, StepResult, WorkflowResult


class Part(Record):
    label: str  # "" for a single run, `row N` for a row
    result: RunResult
    masker: Any

    def name(self, name: str) -> str:
        return f"{self.label} / {name}" if self.label else name


class Execution(Record):
    workflow: WorkflowResult
    name: str  # unique in the run: `w`, `w#2`, `child (from w/step)`, `child[3] (from w/each)`
    parent: str | None = None  # `w/step` for a child run


def executions(result: RunResult) -> Iterator[Execution]:
    seen: set[int] = set()
    names: dict[str, int] = {}
    for workflow in result.workflows:
        yield from _walk(workflow, None, seen, names)


def _walk(
    workflow: WorkflowResult, parent: str | None, seen: set[int], names: dict[str, int]
) -> Iterator[Execution]:
    if id(workflow) in seen:  # a dependency also selected is one execution, reported once
        return
    seen.add(id(workflow))
    for dependency in workflow.dependencies:
        yield from _walk(dependency, None, seen, names)
    own = workflow.workflow_id if workflow.item is None else f"{workflow.workflow_id}[{workflow.item}]"
    base = own if parent is None else f"{own} (from {parent})"
    name = _unique(base, names)
    yield Execution(workflow, name, parent)
    for step_name, step in step_names(workflow.steps):
        for child in step.workflow_runs:  # every run, in order: `child (from w/step)`, then `...#2`
            yield from _walk(child, f"{name}/{step_name}", seen, names)


def step_names(steps: list[StepResult]) -> list[tuple[str, StepResult]]:
    """Each step execution with a unique name: a step reached again is `step#2`, `step#3`, ..."""
    counts: dict[str, int] = {}
    named = []
    for step in steps:
        counts[step.step_id] = counts.get(step.step_id, 0) + 1
        count = counts[step.step_id]
        named.append((step.step_id if count == 1 else f"{step.step_id}#{count}", step))
    return named


def _unique(name: str, names: dict[str, int]) -> str:
    names[name] = names.get(name, 0) + 1
    return name if names[name] == 1 else f"{name}#{names[name]}"
