"""Respect's extensions the engine runs (`docs/semantics.md`, *Extensions*): `x-operation` steps and
`x-security`. Each use is a warning (the document runs here and in Respect, not in every tool, and the
warning names the standard form); a malformed one is an error, as a malformed standard field is.
"""

from __future__ import annotations

from ...http.x_security import XSECURITY, XSecurityError, entries, required_values
from ...model import Pointer, Step, Workflow
from ...sources.x_operation import XOPERATION, x_operation_problem
from ..checker import Checker, did_you_mean
from ..findings import ERROR


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
        where = "every step of the workflow" if workflow_level else "the step's request"
        message = (
            f"x-security (Respect's extension) adds {usable} credential(s) to {where}; the standard forms "
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


RULES = (x_operation, x_security)
