"""`arazzo describe`: one workflow as the engine will run it, as data (text: `describe_text.py`).

Everything comes from the compiled plan, so what is shown is what runs: the steps in the order a run
takes them (each after the steps it needs: `workspace/order.py`), workflow-level parameters and actions
merged into each step, actions in evaluation order, retry limits with their defaults applied.
"""

from __future__ import annotations

from typing import Any

from ..errors import ArazzoError
from ..loader.pointer import ABSENT, resolve_pointer
from ..model import Pointer, Step, Workflow
from ..workspace.plan import CompiledAction, CompiledCriterion, CompiledParam, CompiledStep
from .listing import input_entries


def describe_document(workspace: Any, workflows: list[Workflow]) -> dict[str, Any]:
    """The `--format json` document of `arazzo describe`."""
    document = workspace.document
    return {
        "file": workspace.file,
        "arazzo": document.version,
        "workflows": [describe_workflow(workspace, w) for w in workflows],
    }


def describe_workflow(workspace: Any, workflow: Workflow) -> dict[str, Any]:
    raw = workspace.document.raw
    plan = workspace.compiled(workflow)
    steps = plan.order  # the order a run takes them: each step after the steps it needs
    return {
        "workflowId": workflow.workflow_id,
        "summary": workflow.summary,
        "description": workflow.description,
        "dependsOn": list(workflow.depends_on),
        "inputs": input_entries(workflow, raw),
        "steps": [
            _step(workspace, cstep, steps[i + 1].step_id if i + 1 < len(steps) else None)
            for i, cstep in enumerate(steps)
        ],
        "outputs": {name: value.raw for name, value in plan.outputs.items()},
    }


def step_target(workspace: Any, step: Step) -> dict[str, Any]:
    """What a step calls: an operation (with its method, path and source when it resolves), a workflow,
    or an AsyncAPI channel. An operation that cannot be resolved keeps the reason instead."""
    kind = step.target_kind
    if kind == "workflow":
        return {"kind": "workflow", "workflowId": step.workflow_id}
    if kind == "asyncapi":
        return _message_target(workspace, step)
    entry: dict[str, Any] = {"kind": "operation"}
    if step.operation_path is not None:
        entry["operationPath"] = step.operation_path
    elif step.operation_id is not None or "x-operation" not in step.extensions:
        entry["operationId"] = step.operation_id
    else:
        entry["x-operation"] = step.extensions["x-operation"]
    try:
        target = workspace.resolve_operation(step)
    except ArazzoError as exc:  # describing must not need every source; say why it is unresolved
        entry["unresolved"] = getattr(exc, "message", None) or str(exc)
        return entry
    operation = target.operation
    entry.update(source=target.source, method=operation.method.upper(), path=operation.path)
    if operation.operation_id and "operationId" not in entry:
        entry["operationId"] = operation.operation_id
    return entry


def _message_target(workspace: Any, step: Step) -> dict[str, Any]:
    """An AsyncAPI step: its action, operation or channelPath, and (resolved) the channel address, the
    operation's own action and whether the step is on its reply; `blocking`: a receive is joined later
    unless its goto/end actions make it decide what runs next (the scheduler's rule)."""
    entry: dict[str, Any] = {"kind": "asyncapi", "action": step.action}
    if step.channel_path is not None:
        entry["channelPath"] = step.channel_path
    else:
        entry["operationId"] = step.operation_id
    if step.correlation_id is not None:
        entry["correlationId"] = step.correlation_id
    try:
        target = workspace.resolve_message(step)
    except ArazzoError as exc:
        entry["unresolved"] = getattr(exc, "message", None) or str(exc)
        return entry
    entry.update(source=target.source, channel=target.channel.key, address=target.channel.address)
    if target.operation is not None:
        entry["operationAction"] = target.operation.action
    if target.on_reply:
        entry["reply"] = True
    return entry


def _step(workspace: Any, cstep: CompiledStep, next_step: str | None) -> dict[str, Any]:
    step = cstep.step
    raw = workspace.document.raw
    entry: dict[str, Any] = {"stepId": step.step_id}
    if step.description:
        entry["description"] = step.description
    entry["target"] = step_target(workspace, step)
    entry["parameters"] = [_param(p, step.at) for p in cstep.params]
    if cstep.body is not None:
        body: dict[str, Any] = {"contentType": cstep.body.content_type}
        if cstep.body.payload is not None:
            body["payload"] = cstep.body.payload.raw
        if cstep.body.replacements:
            body["replacements"] = [
                {"target": r.target, "value": r.value.raw} for r in cstep.body.replacements
            ]
        entry["requestBody"] = body
    entry["successCriteria"] = [criterion_entry(c, raw) for c in cstep.criteria]
    entry["onSuccess"] = [_action(a, i < len(step.on_success), raw) for i, a in enumerate(cstep.on_success)]
    entry["onFailure"] = [_action(a, i < len(step.on_failure), raw) for i, a in enumerate(cstep.on_failure)]
    entry["next"] = next_step  # where a success with no matching action goes; None: the workflow ends
    entry["outputs"] = {name: value.raw for name, value in cstep.outputs.items()}
    if step.depends_on:
        entry["dependsOn"] = list(step.depends_on)
    if cstep.needs:  # the steps of the workflow it runs after: its dependsOn and the steps it reads
        entry["needs"] = list(cstep.needs)
    if step.timeout_ms is not None:
        entry["timeoutMs"] = step.timeout_ms
    return entry


def _param(param: CompiledParam, step_at: Pointer) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": param.name}
    if param.in_:
        entry["in"] = param.in_
    entry["value"] = param.value.raw
    if param.at[: len(step_at)] != step_at:  # merged in from the workflow's `parameters`
        entry["from"] = "workflow"
    return entry


def criterion_entry(criterion: CompiledCriterion, raw: dict) -> dict[str, Any]:
    """The criterion as written: condition, and its type and context when given."""
    entry: dict[str, Any] = {"condition": criterion.text}
    node = resolve_pointer(raw, [str(t) for t in criterion.at])
    if node is not ABSENT and isinstance(node, dict):
        for key in ("type", "context"):
            if node.get(key) is not None:
                entry[key] = node[key]
    return entry


def _action(action: CompiledAction, own: bool, raw: dict) -> dict[str, Any]:
    """`own`: listed on the step; otherwise inherited from the workflow's success/failure actions."""
    entry: dict[str, Any] = {"name": action.name, "type": action.type, "from": "step" if own else "workflow"}
    if action.at[:1] == ("components",) and len(action.at) >= 3:
        entry["reference"] = f"$components.{action.at[1]}.{action.at[2]}"
    if action.step_id:
        entry["stepId"] = action.step_id
    if action.workflow_id:
        entry["workflowId"] = action.workflow_id
    entry["criteria"] = [criterion_entry(c, raw) for c in action.criteria]
    if action.type == "retry":
        entry["retryLimit"] = action.retry_limit
        if action.retry_after is not None:
            entry["retryAfter"] = action.retry_after
    if action.params:
        entry["parameters"] = [{"name": p.name, "value": p.value.raw} for p in action.params]
    return entry


def short_criterion(entry: dict[str, Any]) -> str:
    """One criterion on one line: `[jsonpath] $.a == 1 (in $response.body)`; plain for `simple`."""
    kind = entry.get("type")
    if isinstance(kind, dict):
        kind = "/".join(str(kind.get(k)) for k in ("type", "version") if kind.get(k))
    prefix = f"[{kind}] " if kind and kind != "simple" else ""
    context = f" (in {entry['context']})" if entry.get("context") else ""
    return f"{prefix}{entry['condition']}{context}"


def action_target(entry: dict[str, Any]) -> str:
    """`goto step b`, `end`, `retry (limit 2, after 1 s)`, `goto workflow w`, ..."""
    text = entry["type"]
    if entry.get("stepId"):
        text += f" step {entry['stepId']}"
    elif entry.get("workflowId"):
        text += f" workflow {entry['workflowId']}"
    if entry["type"] == "retry":
        after = f", after {entry['retryAfter']:g} s" if entry.get("retryAfter") is not None else ""
        text += f" (limit {entry['retryLimit']}{after})"
    return text
