"""What expressions refer to: inputs, step outputs (and their order), workflows, sources, components."""

from __future__ import annotations

from typing import Any

from ...expressions import (
    ComponentRef,
    Expression,
    InputsRef,
    OutputsRef,
    SourceRef,
    StepOutputRef,
    WorkflowRef,
    WorkflowStepOutputRef,
)
from ...model import Pointer, Workflow
from ..checker import Checker, did_you_mean
from ..findings import WARNING
from ..flow import note_read, note_self_read, positions
from ..walk import AFTER, BEFORE, COMPONENT, Scope
from .dialect import check_member_names
from .inputs import check_input, declared, inputs_shape


def check_reference(ck: Checker, expression: Expression, at: Pointer, scope: Scope) -> None:
    if isinstance(expression, SourceRef):
        _source(ck, expression, at)
    elif isinstance(expression, ComponentRef):
        _component(ck, expression, at)
    if scope.phase == COMPONENT or scope.workflow is None:
        return
    if isinstance(expression, InputsRef):
        _inputs(ck, expression, at, scope.workflow)
    elif isinstance(expression, StepOutputRef):
        _step_output(ck, expression, at, scope)
    elif isinstance(expression, WorkflowRef):
        _workflow_ref(ck, expression, at)
    elif isinstance(expression, WorkflowStepOutputRef):
        _workflow_step_ref(ck, expression, at, scope)
    elif isinstance(expression, OutputsRef):
        _child_output(ck, expression, at, scope)


def _source(ck: Checker, expression: SourceRef, at: Pointer) -> None:
    names = [s.name for s in ck.document.sources]
    if expression.source not in names:
        hint = did_you_mean(expression.source, names)
        ck.report(
            "source-reference",
            at,
            f"{expression.text}: no source description named '{expression.source}'{hint}",
        )


def _component(ck: Checker, expression: ComponentRef, at: Pointer) -> None:
    known = ck.document.components.by_kind(expression.kind)
    if expression.name not in known:
        hint = did_you_mean(expression.name, known)
        ck.report(
            "component-reference",
            at,
            f"{expression.text}: there is no components.{expression.kind}.{expression.name}{hint}",
        )


def _inputs(ck: Checker, expression: InputsRef, at: Pointer, workflow: Workflow) -> None:
    if expression.name:
        check_input(ck, expression.text, expression.name, at, workflow, "input-reference")
        _input_members(ck, expression, at, workflow)


def _input_members(ck: Checker, expression: Any, at: Pointer, workflow: Workflow) -> None:
    shape = inputs_shape(ck, workflow)
    if shape is not None and shape.names is not None and not shape.by_rule:
        check_member_names(ck, expression, at, shape.names, "input")


def _step_output(ck: Checker, expression: StepOutputRef, at: Pointer, scope: Scope) -> None:
    workflow = scope.workflow
    assert workflow is not None
    target = workflow.step(expression.step_id)
    if target is None:
        elsewhere = [w.workflow_id for w in ck.document.workflows if w.step(expression.step_id)]
        if elsewhere:
            written = f"$workflows.{elsewhere[0]}.steps.{expression.step_id}.outputs.{expression.name}"
            hint = f"; it is a step of workflow '{elsewhere[0]}' (write {written})"
        else:
            hint = did_you_mean(expression.step_id, ck.step_choices(workflow))
        message = (
            f"{expression.text}: workflow '{workflow.workflow_id}' has no step '{expression.step_id}'{hint}"
        )
        ck.report("output-reference", at, message)
        return
    if not declared(expression.name, target.outputs):
        listed = ", ".join(target.outputs) or "none"
        hint = did_you_mean(expression.name, target.outputs)
        message = (
            f"{expression.text}: step '{target.step_id}' declares no output '{expression.name}' "
            f"(outputs: {listed}){hint}"
        )
        ck.report("output-reference", at, message)
    else:
        check_member_names(ck, expression, at, target.outputs, "output")
    _step_order(ck, expression, at, scope, target)


def _step_order(ck: Checker, expression: Expression, at: Pointer, scope: Scope, target: Any) -> None:
    """A step reading a step of its workflow: an implicit dependency (`flow.py`). Reading a step that
    comes later in the array is the spec's SHOULD-error in a workflow without `dependsOn` (the run
    still runs the step read first); reading its own outputs in its request, before it has run, unless
    a goto or retry loop brings it back."""
    step, workflow = scope.step, scope.workflow
    if step is None or workflow is None or scope.phase not in (BEFORE, AFTER):
        return
    if target is not step:
        note_read(ck, workflow, step.step_id, target.step_id)
        index = positions(ck, workflow)
        if index[target.step_id] < index[step.step_id] or _has_depends_on(ck, workflow):
            return
        what = (
            f"step '{target.step_id}' comes after step '{step.step_id}' in the steps array of a workflow "
            f"without dependsOn; the run runs '{target.step_id}' first (a step runs after the steps it "
            "reads): list it earlier"
        )
    elif scope.phase == AFTER:
        return
    else:  # judged along the run order, once every read is known (`flow.check_step_order`)
        note_self_read(ck, workflow, step.step_id, expression.text, at)
        return
    severity = None if ck.is_1_1 else WARNING
    ck.report("output-forward-reference", at, f"{expression.text}: {what}", severity=severity)


def _has_depends_on(ck: Checker, workflow: Any) -> bool:
    """Whether a step of the workflow has `dependsOn`: asked once per workflow (it is asked for every
    read of a later step, and a scan of the steps each time was quadratic)."""
    key = ("has-depends-on", id(workflow))
    found = ck.cache.get(key)
    if found is None:
        found = ck.cache[key] = any(s.depends_on for s in workflow.steps)
    return found


def _named_workflow(ck: Checker, expression: WorkflowRef | WorkflowStepOutputRef, at: Pointer) -> Any:
    """The workflow `$workflows.<id>...` names, or None (reported, with a did-you-mean)."""
    other = ck.document.workflow(expression.workflow_id)
    if other is None:
        hint = did_you_mean(expression.workflow_id, [w.workflow_id for w in ck.document.workflows])
        ck.report(
            "workflow-reference", at, f"{expression.text}: no workflow '{expression.workflow_id}'{hint}"
        )
    return other


def _workflow_ref(ck: Checker, expression: WorkflowRef, at: Pointer) -> None:
    other = _named_workflow(ck, expression, at)
    if other is None:
        return
    if expression.field == "outputs":
        if not declared(expression.name, other.outputs):
            hint = did_you_mean(expression.name, other.outputs)
            what = f"workflow '{other.workflow_id}' declares no output '{expression.name}'"
            message = f"{expression.text}: {what}{hint}"
            ck.report("workflow-reference", at, message)
        else:
            check_member_names(ck, expression, at, other.outputs, "output")
        return
    if expression.name:
        check_input(ck, expression.text, expression.name, at, other, "workflow-reference")
        _input_members(ck, expression, at, other)


def _workflow_step_ref(ck: Checker, expression: WorkflowStepOutputRef, at: Pointer, scope: Scope) -> None:
    """`$workflows.<id>.steps.<stepId>.outputs.<name>`: the workflow, its step and the step's output (a
    step of the reading step's own workflow: the execution in progress, an implicit dependency)."""
    other = _named_workflow(ck, expression, at)
    if other is None:
        return
    step = other.step(expression.step_id)
    if (
        step is not None
        and other is scope.workflow
        and scope.step is not None
        and scope.phase in (BEFORE, AFTER)
    ):
        note_read(ck, other, scope.step.step_id, step.step_id)
    if step is None:
        hint = did_you_mean(expression.step_id, ck.step_choices(other))
        message = (
            f"{expression.text}: workflow '{other.workflow_id}' has no step '{expression.step_id}'{hint}"
        )
        ck.report("workflow-reference", at, message)
        return
    if not declared(expression.name, step.outputs):
        listed = ", ".join(step.outputs) or "none"
        hint = did_you_mean(expression.name, step.outputs)
        what = (
            f"step '{step.step_id}' of workflow '{other.workflow_id}' declares no output '{expression.name}'"
        )
        ck.report("workflow-reference", at, f"{expression.text}: {what} (outputs: {listed}){hint}")
    else:
        check_member_names(ck, expression, at, step.outputs, "output")


def _child_output(ck: Checker, expression: OutputsRef, at: Pointer, scope: Scope) -> None:
    """`$outputs.x` in a workflow step's outputs/criteria/actions reads the called workflow's outputs."""
    step = scope.step
    if step is None or step.workflow_id is None or scope.phase != AFTER:
        return
    child = ck.document.workflow(step.workflow_id)
    if child is None:
        return
    if declared(expression.name, child.outputs):
        check_member_names(ck, expression, at, child.outputs, "output")
        return
    hint = did_you_mean(expression.name, child.outputs)
    message = (
        f"{expression.text}: workflow '{child.workflow_id}' (called by step '{step.step_id}') "
        f"declares no output '{expression.name}'{hint}"
    )
    ck.report("output-reference", at, message)
