"""The extensions the engine runs: Respect's `x-operation` steps and `x-security` (`docs/semantics.md`,
*Extensions*), and its own `x-forEach` loops (*Steps as a graph*, *Loops*). Each use is a warning (the
document runs here, not in every tool, and the warning says what others do); a malformed one is an
error, as a malformed standard field is.
"""

from __future__ import annotations

from ...errors import ExpressionError
from ...expressions import (
    InputsRef,
    MessageRef,
    MethodRef,
    OutputsRef,
    RequestRef,
    ResponseRef,
    StatusCodeRef,
    UrlRef,
    compile_value,
)
from ...http.x_security import XSECURITY, XSecurityError, entries, required_values
from ...model import ParameterDef, Pointer, Reusable, Step, Workflow
from ...sources.x_operation import XOPERATION, x_operation_problem
from ...workspace.for_each import KEY as FOR_EACH
from ...workspace.for_each import kind_of, shape_problems
from ..checker import Checker, did_you_mean
from ..findings import ERROR
from .inputs import declared, inputs_shape


def x_operation(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            raw = step.extensions.get(XOPERATION)
            if raw is None:
                continue
            at = (*step.at, XOPERATION)
            problem = x_operation_problem(raw)
            if problem is not None:
                field, message = problem
                ck.report("x-operation", (*at, field) if field else at, message, severity=ERROR)
                continue
            message = (
                f"step '{step.step_id}' calls {raw['method'].upper()} {raw['url']} through Respect's "
                "x-operation extension: no source description describes it, so it gets no credential of "
                "the engine's; the standard form is an operation of an OpenAPI source description"
            )
            ck.report("x-operation", at, message)


def x_security(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        _entries(ck, workflow.extensions.get(XSECURITY), (*workflow.at, XSECURITY), None, True)
        for step in workflow.steps:
            x_op = XOPERATION in step.extensions
            _entries(ck, step.extensions.get(XSECURITY), (*step.at, XSECURITY), x_op, False)


def _entries(ck: Checker, raw: object, at: Pointer, x_op: bool | None, workflow_level: bool) -> None:
    if raw is None:
        return
    found, problems = entries(raw, at)
    for where, message in problems:
        ck.report("x-security", where, message, severity=ERROR)
    usable = 0
    for entry in found:
        if entry.scheme_name is not None and x_op:
            message = f"x-security schemeName '{entry.scheme_name}' on an x-operation step: no source "
            message += "has that scheme; write it inline"
            ck.report("x-security", (*entry.at, "schemeName"), message, severity=ERROR)
            continue
        if entry.scheme is not None:
            try:
                needed = required_values(entry.scheme)
            except XSecurityError as exc:
                ck.report("x-security", (*entry.at, "scheme"), str(exc), severity=ERROR)
                continue
            absent = [name for name in needed if name not in entry.values]
            if absent:
                message = f"x-security values need {', '.join(repr(a) for a in absent)} for this scheme"
                ck.report("x-security", (*entry.at, "values"), message, severity=ERROR)
                continue
        usable += 1
    if usable:
        adds_to = "every step of the workflow" if workflow_level else "the step's request"
        message = (
            f"x-security (Respect's extension) adds {usable} credential(s) to {adds_to}; the standard forms "
            "are a parameter (e.g. in: header, name: Authorization) or the source's security scheme with "
            "the credential given to the engine (--auth, ARAZZO_AUTH_*)"
        )
        ck.report("x-security", at, message, key=True)


def scheme_names(ck: Checker, workflow: Workflow, step: Step, source: str, schemes: dict) -> None:
    """With the step's source loaded: each x-security `schemeName` (the workflow's and the step's) names
    a scheme of it (`$sourceDescriptions.<other>.<scheme>` names another source's: not checked here)."""
    for owner in (workflow, step):
        found, _ = entries(owner.extensions.get(XSECURITY), (*owner.at, XSECURITY))
        for entry in found:
            name = entry.scheme_name
            if name is None or name.startswith("$") or name in schemes:
                continue
            known = ", ".join(schemes) or "none"
            message = (
                f"x-security schemeName '{name}' is not a security scheme of source '{source}' (which step "
                f"'{step.step_id}' calls; its schemes: {known}){did_you_mean(name, schemes)}"
            )
            ck.report("x-security", (*entry.at, "schemeName"), message, severity=ERROR)


def x_for_each(ck: Checker) -> None:
    """`x-forEach`: its shape (`workspace/for_each.py`), that its items can be an array, that its input
    is an input of the workflow it runs; each use is a warning (other tools run the workflow once)."""
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            if FOR_EACH not in step.extensions:
                continue
            at = (*step.at, FOR_EACH)
            problems = shape_problems(step)
            for where, message in problems:
                ck.report("x-for-each", where, message, severity=ERROR)
            if problems:
                continue
            raw = step.extensions[FOR_EACH]
            named = _named_as_input(ck, workflow, step, raw["input"])
            if named is not None:
                message = f"parameter '{raw['input']}' is also x-forEach's input: each item is given as it"
                ck.report("x-for-each", named, message, severity=ERROR)
                continue
            problem = _items_problem(ck, workflow, raw["items"])
            if problem is not None:
                ck.report("x-for-each", (*at, "items"), f"x-forEach items {problem}", severity=ERROR)
                continue
            _input_declared(ck, step, raw["input"], (*at, "input"))
            message = (
                f"step '{step.step_id}' runs workflow '{step.workflow_id}' once per item through this "
                "engine's x-forEach extension; other tools ignore it and run the workflow once"
            )
            ck.report("x-for-each", at, message, key=True)


def _named_as_input(ck: Checker, workflow: Workflow, step: Step, name: str) -> Pointer | None:
    """Where a parameter the step's workflow receives is named as the loop's input: a bare parameter of
    the workflow, or a component the step or the workflow references (the step's own written ones are
    `shape_problems`'s)."""
    inherited = [p for p in workflow.parameters if isinstance(p, Reusable) or p.in_ is None]
    for param in (*[p for p in step.parameters if isinstance(p, Reusable)], *inherited):
        target = ck.component(param, "parameters") if isinstance(param, Reusable) else param
        if isinstance(target, ParameterDef) and target.in_ is None and target.name == name:
            return param.at
    return None


def _items_problem(ck: Checker, workflow: Workflow, raw: object) -> str | None:
    """Why `items` can never be an array (None: it can, or cannot be told before the run)."""
    if isinstance(raw, list):
        return None
    try:
        value = compile_value(raw, selectors=ck.is_1_1)
    except ExpressionError:
        return None  # the expression rules report it
    if value.is_constant:
        return f"is {kind_of(raw)}, not an array"
    expression = getattr(value, "expression", None)
    if expression is None:  # a `{$...}` template: text
        return "is a text template: a string, never an array"
    if isinstance(expression, (StatusCodeRef, UrlRef, MethodRef)):
        return f"is {expression.text}: never an array"
    if isinstance(expression, (RequestRef, ResponseRef, OutputsRef, MessageRef)):
        return f"reads {expression.text}, which has no value before the step runs (items are read first)"
    if isinstance(expression, InputsRef) and not expression.pointer and not expression.accessors:
        schema = workflow.inputs if isinstance(workflow.inputs, dict) else {}
        properties = schema.get("properties")
        declared = properties.get(expression.name) if isinstance(properties, dict) else None
        kind = declared.get("type") if isinstance(declared, dict) else None
        if isinstance(kind, str) and kind != "array":
            return f"reads input '{expression.name}', which the inputs schema types as {kind}, not an array"
    return None


def _input_declared(ck: Checker, step: Step, name: str, at: Pointer) -> None:
    """The loop's input is an input the called workflow declares (when its schema lists them)."""
    child = ck.document.workflow(step.workflow_id or "")
    shape = inputs_shape(ck, child) if child is not None else None
    if child is None or shape is None or shape.names is None or shape.by_rule or declared(name, shape.names):
        return
    listed = ", ".join(sorted(shape.names)) or "none"
    message = (
        f"x-forEach input '{name}' is not an input of workflow '{child.workflow_id}' (its inputs: "
        f"{listed}){did_you_mean(name, shape.names)}"
    )
    ck.report("x-for-each-input", at, message)


RULES = (x_operation, x_security, x_for_each)
