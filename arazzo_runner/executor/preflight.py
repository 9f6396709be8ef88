"""What a run checks before it sends anything: the selected workflows, their inputs (and their
dependencies'), and every target, source, base URL and broker the run may reach. Shared by `run`/`arun`,
`plan_requests`, `--inputs-file` batches and load tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..sources.family import FamilyNames
from .input_names import check_input_names
from .inputs import validate_inputs
from .options import RunOptions
from .runner import dependency_inputs

if TYPE_CHECKING:
    from ..model import Workflow
    from ..workspace import Workspace


def select_workflows(workspace: Workspace, workflows: str | Iterable[str] | None) -> list[Workflow]:
    document = workspace.document
    if workflows is None:
        return list(document.workflows)
    ids = [workflows] if isinstance(workflows, str) else list(workflows)
    selected = []
    for workflow_id in ids:
        workflow = document.workflow(workflow_id)
        if workflow is None:
            known = ", ".join(w.workflow_id for w in document.workflows)
            raise UsageError(f"no workflow '{workflow_id}' in {workspace.file} (workflows: {known})")
        selected.append(workflow)
    return selected


def inputs_for(workflow: Workflow, given: dict[str, Any], several: bool) -> dict[str, Any]:
    """With several workflows selected, each receives the inputs its own schema declares."""
    schema = workflow.inputs or {}
    props = schema.get("properties") if isinstance(schema, dict) else None
    if several and isinstance(props, dict):
        return {k: v for k, v in given.items() if k in props}
    return given


def preflight(
    workspace: Workspace,
    selected: list[Workflow],
    inputs: dict[str, dict],
    given: dict[str, Any],
    options: RunOptions | None = None,
    kinds: set[str] | None = None,
) -> set[str]:
    """Everything that can be checked before sending: inputs (also of the dependencies, which receive
    the run's inputs `given`), expressions, targets, sources and their base URLs, which it returns (of
    every operation the run may call). `inputs` (per selected workflow) become the validated inputs,
    defaults applied, which the run then uses as they are. `kinds` receives the step target kinds the
    run may reach (`operation`, `workflow`, `asyncapi`)."""
    options = options or RunOptions()
    check_input_names(workspace, selected, given)  # `modle` for `model`: a usage error, not ignored
    for workflow in selected:
        key = workflow.workflow_id
        inputs[key] = _validate(workspace, workflow, inputs[key], options.secrets)
    seen: set[tuple[int, str]] = set()
    bases: set[str] = set()
    names = FamilyNames(workspace)  # `--server` names a nested document's source `kid/a`
    reached: set[str] = set() if kinds is None else kinds
    for workflow in selected:
        _check_reachable(workspace, workflow, seen, options, bases, names, reached)
    checked: set[tuple[int, str]] = set()
    for workflow in selected:
        _check_dependency_inputs(workspace, workflow, given, checked, options.secrets)
    if bases:  # operations of a description: validation applies to them
        check_validation_installed(options)
    return bases


def check_validation_installed(options: RunOptions) -> None:
    """Request or response validation asked for without openapi-core (the `validation` extra) is a
    usage error before anything is sent, as a missing broker client is: the run could not do what it
    was asked, and failing every step with the same cause would send requests for nothing."""
    policies = (("requests", options.validate_requests), ("responses", options.validate_responses))
    asked = [f"--validate-{kind} {policy}" for kind, policy in policies if policy != "off"]
    if not asked:
        return
    from importlib.util import find_spec

    if find_spec("openapi_core") is None:
        from ..http.openapi_checks import missing_openapi_core

        raise UsageError(f"{', '.join(asked)}: {missing_openapi_core()}; nothing was sent")


def _validate(
    workspace: Workspace, workflow: Workflow, inputs: dict[str, Any], secrets: set[str]
) -> dict[str, Any]:
    schema_at = "/" + "/".join(str(t) for t in (*workflow.at, "inputs"))
    document = workspace.document.raw
    return validate_inputs(
        workflow.workflow_id, workflow.inputs, inputs, document, schema_at, secrets, workspace.error
    )


def _check_dependency_inputs(
    workspace: Workspace,
    workflow: Workflow,
    given: dict[str, Any],
    checked: set[tuple[int, str]],
    secrets: set[str],
) -> None:
    for ref in workflow.depends_on:
        target = workspace.resolve_workflow(ref, (*workflow.at, "dependsOn"))
        key = (id(target.workspace), target.workflow.workflow_id)
        if key in checked:
            continue
        checked.add(key)
        _validate(target.workspace, target.workflow, dependency_inputs(target.workflow, given), secrets)
        _check_dependency_inputs(target.workspace, target.workflow, given, checked, secrets)


def _check_reachable(
    workspace: Workspace,
    workflow: Workflow,
    seen: set[tuple[int, str]],
    options: RunOptions,
    bases: set[str],
    names: FamilyNames,
    kinds: set[str],
) -> None:
    key = (id(workspace), workflow.workflow_id)
    if key in seen:
        return
    seen.add(key)
    plan = workspace.compiled(workflow)
    for ref in workflow.depends_on:
        target = workspace.resolve_workflow(ref, (*workflow.at, "dependsOn"))
        _check_reachable(target.workspace, target.workflow, seen, options, bases, names, kinds)
    servers_checked: set[int] = set()  # one check per operation, however many steps call it
    for cstep in plan.steps:
        step = cstep.step
        kinds.add(step.target_kind)
        if step.target_kind == "operation":
            target = workspace.resolve_operation(step)
            if target.source is None:  # an x-operation: its URL is checked when the step builds it
                pass
            elif id(target.operation) not in servers_checked:
                servers_checked.add(id(target.operation))
                family = names.key(workspace, target.source)
                bases.add(_check_server(target, options, family, names.root))
        elif step.target_kind == "workflow":
            target = workspace.resolve_workflow(step.workflow_id or "", (*step.at, "workflowId"))
            _check_reachable(target.workspace, target.workflow, seen, options, bases, names, kinds)
        else:
            target = workspace.resolve_message(step)
            _check_broker(target, options, names.key(workspace, target.source))
        for action in (*cstep.on_success, *cstep.on_failure):
            if action.workflow_id:
                target = workspace.resolve_workflow(action.workflow_id, action.at)
                _check_reachable(target.workspace, target.workflow, seen, options, bases, names, kinds)


def _check_broker(target: Any, options: RunOptions, family: str) -> None:
    """An AsyncAPI step's broker must be known, and its transport installed, before anything is sent."""
    from ..messages import TransportError
    from .brokers import BrokerError, check_broker

    try:
        check_broker(options, target, family)
    except (BrokerError, TransportError) as exc:
        raise UsageError(str(exc)) from None


def _check_server(target: Any, options: RunOptions, family: str, root: Any) -> str:
    """A base URL must exist before anything is sent (a relative server URL needs `--server`)."""
    from .servers import ServerError, base_url, top_description

    same = top_description(root, target.source, family, options.servers)
    args = (target.source, target.description, target.operation, options, target.server, family, same)
    try:
        return base_url(*args)
    except ServerError as exc:
        raise UsageError(str(exc)) from None
