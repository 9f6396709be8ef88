"""Which workflows a run can execute, so that one broken workflow does not block running another.

From the selected workflows, a run can execute: the workflows of `workflowId` steps, of goto/retry
actions naming a `workflowId` (the step's, the workflow's successActions/failureActions, components
they reference) and of `dependsOn`. `$sourceDescriptions.<name>.<workflowId>` is followed into an
`arazzo` source (loaded as the run would load it), and counts when it leads back to this document.
A step's `dependsOn: $workflows.<id>.steps.<stepId>` does not run that workflow, and neither does an
expression reading its values: neither makes it reachable.

`arazzo run` reports an error located in a workflow it cannot reach as a warning for that run
(`arazzo validate` checks the whole document and keeps it an error); errors outside any workflow stay
errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ArazzoError, ExpressionError
from ..expressions import ComponentRef, parse_expression
from ..model import Action, Document, Reusable, Workflow
from .findings import ERROR, WARNING, Finding

_IN_WORKFLOW = r"^/workflows/(\d+)(?:/|$)"  # compiled on first use (`re`'s cache): not at every start


def reachable(workspace: Any, selected: Iterable[Workflow]) -> set[str]:
    """The workflowIds of `workspace`'s document that a run of `selected` may execute."""
    root = workspace.location
    seen: set[tuple[str, str]] = set()
    local: set[str] = set()
    pending = [(workspace, workflow) for workflow in selected]
    while pending:
        space, workflow = pending.pop()
        key = (space.location, workflow.workflow_id)
        if key in seen:
            continue
        seen.add(key)
        if space.location == root:
            local.add(workflow.workflow_id)
        for ref in _workflow_refs(space.document, workflow):
            target = _resolve(space, ref)
            if target is not None:
                pending.append(target)
    return local


def _workflow_refs(document: Document, workflow: Workflow) -> Iterator[str]:
    yield from workflow.depends_on
    actions: list[Action | Reusable] = [*workflow.success_actions, *workflow.failure_actions]
    for step in workflow.steps:
        if step.workflow_id:
            yield step.workflow_id
        actions += [*step.on_success, *step.on_failure]
    for item in actions:
        action = _component_action(document, item) if isinstance(item, Reusable) else item
        if action is not None and action.workflow_id and action.type in ("goto", "retry"):
            yield action.workflow_id


def _component_action(document: Document, item: Reusable) -> Action | None:
    try:
        expression = parse_expression(item.reference)
    except ExpressionError:
        return None
    if not isinstance(expression, ComponentRef):
        return None
    found = document.components.by_kind(expression.kind).get(expression.name)
    return found if isinstance(found, Action) else None


def _resolve(space: Any, ref: str) -> tuple[Any, Workflow] | None:
    """The (workspace, workflow) a workflow reference names, as a run resolves it (dialect forms too);
    None when it names nothing (reported by the rules) or its arazzo source cannot be loaded (reported
    when the run loads it)."""
    try:
        target = space.resolve_workflow(ref, ())
    except ArazzoError:
        return None
    return target.workspace, target.workflow


def unreachable_errors(
    findings: list[Finding], workspace: Any, selected: Iterable[Workflow]
) -> dict[str, list[Finding]]:
    """The errors of `findings` located in a workflow a run of `selected` cannot reach, by workflowId."""
    runs = reachable(workspace, selected)
    by_index = {w.at[1]: w.workflow_id for w in workspace.document.workflows if len(w.at) == 2}
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        match = re.match(_IN_WORKFLOW, finding.path) if finding.severity == ERROR else None
        workflow_id = by_index.get(int(match.group(1))) if match else None
        if workflow_id is not None and workflow_id not in runs:
            found.setdefault(workflow_id, []).append(finding)
    return found


def for_run(findings: list[Finding], workspace: Any, selected: Iterable[Workflow]) -> list[Finding]:
    """`findings` as a run of `selected` sees them: errors located in a workflow the run cannot reach
    become warnings, saying so."""
    demoted = {
        id(f): w for w, group in unreachable_errors(findings, workspace, selected).items() for f in group
    }
    out = []
    for finding in findings:
        workflow_id = demoted.get(id(finding))
        if workflow_id is None:
            out.append(finding)
            continue
        message = f"{finding.message} (in workflow '{workflow_id}', which this run does not execute)"
        out.append(
            Finding(finding.rule, WARNING, message, finding.file, finding.path, finding.line, finding.column)
        )
    return out
