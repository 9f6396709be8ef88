"""Every place of a document where runtime expressions live, with the scope they are evaluated in.

A *site* is a value (parameter value, payload, replacement value, output) or a criterion. Components are
visited at each site that uses them (so `$inputs.x` in a shared parameter is checked against each
workflow using it) and once on their own for syntax (scope without a workflow).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model import Action, Criterion, ParameterDef, Pointer, Reusable, Step, Workflow
from ..records import Record
from .checker import Checker

BEFORE = "before"  # a step's parameters, request body and successCriteria: the step has not run yet
AFTER = "after"  # a step's outputs and actions: the step has run
WORKFLOW = "workflow"  # workflow-level parameters and actions: evaluated for whichever step applies
OUTPUTS = "outputs"  # a workflow's outputs: after its steps
COMPONENT = "component"  # a component on its own: no workflow to check references against


class Scope(Record, frozen=True):
    workflow: Workflow | None
    step: Step | None = None
    phase: str = WORKFLOW


class ValueSite(Record, frozen=True):
    raw: Any
    at: Pointer
    scope: Scope
    role: str  # "parameter", "payload", "replacement", "output", "action-parameter", "x-security", ...


class CriterionSite(Record, frozen=True):
    criterion: Criterion
    scope: Scope


Site = ValueSite | CriterionSite


def sites(ck: Checker) -> Iterator[Site]:
    document = ck.document
    for workflow in document.workflows:
        yield from _workflow(ck, workflow)
    alone = Scope(None, None, COMPONENT)
    components = document.components
    for param in components.parameters.values():
        yield ValueSite(param.value, (*param.at, "value"), alone, "parameter")
    for action in (*components.success_actions.values(), *components.failure_actions.values()):
        yield from _action(ck, action, alone)


def _workflow(ck: Checker, workflow: Workflow) -> Iterator[Site]:
    level = Scope(workflow, None, WORKFLOW)
    yield from _parameters(ck, workflow.parameters, level, "parameter")
    yield from _x_security(workflow.extensions.get("x-security"), (*workflow.at, "x-security"), level)
    for action, _ in ck.workflow_actions(workflow):
        yield from _action(ck, action, level)
    for step in workflow.steps:
        yield from _step(ck, workflow, step)
    for name, raw in workflow.outputs.items():
        yield ValueSite(raw, (*workflow.at, "outputs", name), Scope(workflow, None, OUTPUTS), "output")


def _step(ck: Checker, workflow: Workflow, step: Step) -> Iterator[Site]:
    before = Scope(workflow, step, BEFORE)
    after = Scope(workflow, step, AFTER)
    yield from _parameters(ck, step.parameters, before, "parameter")
    x_operation = step.extensions.get("x-operation")
    if isinstance(x_operation, dict) and isinstance(x_operation.get("url"), str):
        yield ValueSite(x_operation["url"], (*step.at, "x-operation", "url"), before, "x-operation")
    yield from _x_security(step.extensions.get("x-security"), (*step.at, "x-security"), before)
    body = step.request_body
    if body is not None:
        if body.has_payload:
            yield ValueSite(body.payload, (*body.at, "payload"), before, "payload")
        for replacement in body.replacements:
            yield ValueSite(replacement.value, (*replacement.at, "value"), before, "replacement")
    for criterion in step.success_criteria:
        yield CriterionSite(criterion, before)
    if isinstance(step.correlation_id, str):  # a receive step's: read before its message is taken
        yield ValueSite(step.correlation_id, (*step.at, "correlationId"), before, "correlation")
    loop = step.extensions.get("x-forEach")
    if isinstance(loop, dict) and "items" in loop:  # read before the step runs its workflow
        yield ValueSite(loop["items"], (*step.at, "x-forEach", "items"), before, "x-for-each")
    for name, raw in step.outputs.items():
        yield ValueSite(raw, (*step.at, "outputs", name), after, "output")
    for action, _ in ck.actions(step.on_success, "success") + ck.actions(step.on_failure, "failure"):
        yield from _action(ck, action, after)


def _x_security(raw: Any, at: Pointer, scope: Scope) -> Iterator[ValueSite]:
    """The values of Respect's x-security entries (`http/x_security.py`): expressions like any other."""
    for index, item in enumerate(raw if isinstance(raw, list) else ()):
        values = item.get("values") if isinstance(item, dict) else None
        for name, value in (values or {}).items() if isinstance(values, dict) else ():
            yield ValueSite(value, (*at, index, "values", name), scope, "x-security")


def _action(ck: Checker, action: Action, scope: Scope) -> Iterator[Site]:
    for criterion in action.criteria:
        yield CriterionSite(criterion, scope)
    yield from _parameters(ck, action.parameters, scope, "action-parameter")


def _parameters(
    ck: Checker, items: list[ParameterDef | Reusable], scope: Scope, role: str
) -> Iterator[ValueSite]:
    for item in items:
        if isinstance(item, Reusable):
            target = ck.component(item, "parameters")
            if item.has_value:
                yield ValueSite(item.value, (*item.at, "value"), scope, role)
            elif isinstance(target, ParameterDef):
                yield ValueSite(target.value, (*target.at, "value"), scope, role)
        else:
            yield ValueSite(item.value, (*item.at, "value"), scope, role)
