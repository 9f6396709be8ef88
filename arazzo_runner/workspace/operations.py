"""Where a step's operation or workflow is: `operationId` (plain, `$sourceDescriptions.<name>.<id>`, or
Respect's `<source>.<id>`), `operationPath` (`{$sourceDescriptions.<name>.url}#/paths/...`,
`$sourceDescriptions.<name>#/paths/...`, or Jentic's `<source>#/paths/...`), Respect's `x-operation`, and
`workflowId` (local, or in an `arazzo` source, which runs with that document's own components and
sources). The workspace calls these once per step and remembers the answer (`Workspace.resolve_*`).

Each function takes the workspace it resolves from (`ws`) and never imports it: data flows from the
workspace to its targets, so the workspace module imports this one and not the reverse.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import SourceError, TargetError
from ..model import Pointer, Step, Workflow, dialect
from ..model.dialect import operation_path_parts
from ..records import Record

__all__ = ["OperationTarget", "TargetError", "WorkflowTarget", "resolve_operation", "resolve_workflow"]

_SOURCE_REF = re.compile(r"^\{?\$sourceDescriptions\.([A-Za-z0-9_\-]+)\.(.+?)\}?$")


class OperationTarget(Record, frozen=True):
    source: str
    description: Any  # sources.OpenAPIDescription
    operation: Any  # sources.Operation
    server: str | None = None  # the source description's x-serverUrl (Respect's extension)

    def __init__(self, source: str, description: Any, operation: Any, server: str | None = None) -> None:
        self.__dict__.update(source=source, description=description, operation=operation, server=server)


class WorkflowTarget(Record, frozen=True):
    workspace: Any  # the Workspace of the document holding the workflow
    workflow: Workflow


def resolve_operation(ws: Any, step: Step) -> Any:
    """The operation (or Respect `x-operation`) a step calls; a located TargetError when none."""
    if step.operation_path is not None:
        return _by_path(ws, step)
    if step.operation_id is None and "x-operation" in step.extensions:  # Respect's extension
        from ..sources.x_operation import x_operation_target

        try:
            return x_operation_target(step)
        except ValueError as exc:
            raise ws.error((*step.at, "x-operation"), str(exc), TargetError) from None
    ref = step.operation_id or ""
    match = _SOURCE_REF.match(ref)
    if match:
        name, op_id = match.groups()
        return _find_in(ws, step, name, op_id)
    found = []
    for name in ws.openapi_sources():
        description = ws.source(name)
        operation = description.operation(ref)
        if operation is not None:
            found.append(_target(ws, name, description, operation))
    if len(found) == 1:
        return found[0]
    prefixed = None if found else dialect.source_prefixed(ref, ws.openapi_sources())
    if prefixed is not None:  # Respect's `<source>.<operationId>` (validate warns)
        return _find_in(ws, step, *prefixed)
    if found:
        names = ", ".join(t.source for t in found)
        raise ws.error(
            (*step.at, "operationId"),
            f"operationId '{ref}' is ambiguous: found in sources {names}; "
            f"use $sourceDescriptions.<name>.{ref}",
            TargetError,
        )
    raise ws.error(
        (*step.at, "operationId"), f"operationId '{ref}' was not found{_elsewhere(ws, ref)}", TargetError
    )


def _find_in(ws: Any, step: Step, name: str, op_id: str) -> OperationTarget:
    entry = ws.document.source(name)
    if entry is None:
        raise ws.error((*step.at, "operationId"), f"unknown source description '{name}'", TargetError)
    description = ws.source(name)
    operation = description.operation(op_id)
    if operation is None:
        hint = description.suggest(op_id)
        tip = f"; did you mean {', '.join(hint)}?" if hint else ""
        raise ws.error(
            (*step.at, "operationId"),
            f"operationId '{op_id}' was not found in '{name}'{tip}",
            TargetError,
        )
    return _target(ws, name, description, operation)


def _target(ws: Any, name: str, description: Any, operation: Any) -> OperationTarget:
    entry = ws.document.source(name)
    declared = entry.extensions.get("x-serverUrl") if entry is not None else None
    return OperationTarget(name, description, operation, declared if isinstance(declared, str) else None)


def _by_path(ws: Any, step: Step) -> OperationTarget:
    text = step.operation_path or ""
    parts = operation_path_parts(text)
    name: str | None
    if parts is not None:
        name, fragment, _ = parts
    else:
        name, fragment = _source_by_url(ws, text)
        named = dialect.source_named_path(text, [s.name for s in ws.document.sources], ())
        if name is None and named is not None:  # Jentic's `<source>#/paths/...` (validate warns)
            name, fragment = named
    if name is None or ws.document.source(name) is None:
        raise ws.error(
            (*step.at, "operationPath"),
            f"operationPath '{text}' does not name a known source",
            TargetError,
        )
    description = ws.source(name)
    operation = description.operation_at(fragment)
    if operation is None:
        raise ws.error(
            (*step.at, "operationPath"),
            f"operationPath '{text}' does not point to an operation",
            TargetError,
        )
    return _target(ws, name, description, operation)


def _source_by_url(ws: Any, text: str) -> tuple[str | None, str]:
    url, _, fragment = text.partition("#")
    for entry in ws.document.sources:
        if entry.url == url:
            return entry.name, "#" + fragment
    return None, "#" + fragment


def _elsewhere(ws: Any, op_id: str) -> str:
    """A hint for an operationId not among the OpenAPI sources: an AsyncAPI one, or close names."""
    for name in ws.asyncapi_sources():
        try:
            if ws.source(name).operation(op_id) is not None:
                return f"; it is an AsyncAPI operation of '{name}': the step needs action: send or receive"
        except SourceError:
            continue
    return _suggest(ws, op_id)


def _suggest(ws: Any, op_id: str) -> str:
    hints: list[str] = []
    for name in ws.openapi_sources():
        try:
            hints.extend(ws.source(name).suggest(op_id))
        except SourceError:
            continue
    return f"; did you mean {', '.join(hints[:3])}?" if hints else ""


def resolve_workflow(ws: Any, ref: str, at: Pointer) -> WorkflowTarget:
    """A local workflowId, or `$sourceDescriptions.<name>.<workflowId>` in an arazzo source."""
    match = _SOURCE_REF.match(ref)
    if match:
        name, workflow_id = match.groups()
        entry = ws.document.source(name)
        if entry is None or entry.type != "arazzo":
            raise ws.error(at, f"'{ref}': '{name}' is not an arazzo source description", TargetError)
        child = ws.source(name)
        workflow = child.document.workflow(workflow_id)
        legacy = dialect.legacy_workflow(workflow_id)
        if workflow is None and legacy is not None:  # Respect's `.workflows.<id>` (validate warns)
            workflow = child.document.workflow(legacy)
        if workflow is None:
            raise ws.error(at, f"workflow '{workflow_id}' was not found in source '{name}'", TargetError)
        return WorkflowTarget(child, workflow)
    workflow = ws.document.workflow(ref)
    if workflow is None:
        raise ws.error(at, f"workflow '{ref}' was not found", TargetError)
    return WorkflowTarget(ws, workflow)
