"""Text form of `arazzo describe`: the data of `describe.py`, one workflow after another."""

from __future__ import annotations

import json
from typing import Any

from .describe import action_target, short_criterion
from .listing import type_text

_VALUE_LIMIT = 100


def render_description(data: dict[str, Any]) -> str:
    lines = [f"{data['file']} (Arazzo {data['arazzo']})"]
    for workflow in data["workflows"]:
        lines.append("")
        lines.extend(_workflow(workflow))
    return "\n".join(lines) + "\n"


def _workflow(workflow: dict[str, Any]) -> list[str]:
    title = workflow["workflowId"] + (f" - {workflow['summary']}" if workflow.get("summary") else "")
    lines = [f"workflow {title}"]
    if workflow["dependsOn"]:
        lines.append(f"  dependsOn: {', '.join(workflow['dependsOn'])} (run first, once per run)")
    lines.append("  inputs:" if workflow["inputs"] else "  inputs: none")
    for item in workflow["inputs"]:
        flags = "required" if item["required"] else "optional"
        default = f", default {_value(item['default'])}" if "default" in item else ""
        about = f" - {item['description']}" if item.get("description") else ""
        lines.append(f"    {item['name']}: {type_text(item['type'])} ({flags}{default}){about}")
    lines.append("  steps:")
    for number, step in enumerate(workflow["steps"], 1):
        lines.extend(_step(number, step))
    if workflow["outputs"]:
        lines.append("  outputs:")
        lines.extend(f"    {name}: {_value(value)}" for name, value in workflow["outputs"].items())
    return lines


def _step(number: int, step: dict[str, Any]) -> list[str]:
    pad = "       "
    lines = [f"    {number}. {step['stepId']}  {target_text(step['target'])}"]
    if step.get("dependsOn"):
        lines.append(f"{pad}dependsOn: {', '.join(step['dependsOn'])}")
    if step.get("needs"):
        lines.append(f"{pad}runs after: {', '.join(step['needs'])} (dependsOn, and the steps it reads)")
    if step.get("timeoutMs") is not None:
        lines.append(f"{pad}timeout: {step['timeoutMs']} ms")
    if step["target"].get("correlationId") is not None:
        lines.append(f"{pad}correlationId: {_value(step['target']['correlationId'])}")
    if step["parameters"]:
        lines.append(f"{pad}parameters:")
        for param in step["parameters"]:
            where = f" ({param['in']})" if param.get("in") else ""
            origin = "  [from workflow]" if param.get("from") == "workflow" else ""
            lines.append(f"{pad}  {param['name']}{where}: {_value(param['value'])}{origin}")
    if step.get("requestBody"):
        body = step["requestBody"]
        payload = f" {_value(body['payload'])}" if "payload" in body else ""
        lines.append(f"{pad}requestBody: {body.get('contentType') or '(content type from the operation)'}")
        if payload:
            lines.append(f"{pad}  payload:{payload}")
        for item in body.get("replacements", []):
            lines.append(f"{pad}  replace {item['target']}: {_value(item['value'])}")
    criteria = [short_criterion(c) for c in step["successCriteria"]]
    default = "the workflow passes" if step["target"]["kind"] == "workflow" else "HTTP status < 400"
    lines.append(f"{pad}successCriteria: " + (" AND ".join(criteria) if criteria else default))
    lines.extend(_actions(pad, "onSuccess", step["onSuccess"], _fallthrough(step)))
    lines.extend(_actions(pad, "onFailure", step["onFailure"], "the workflow fails"))
    if step["outputs"]:
        lines.append(f"{pad}outputs:")
        lines.extend(f"{pad}  {name}: {_value(value)}" for name, value in step["outputs"].items())
    return lines


def _fallthrough(step: dict[str, Any]) -> str:
    return f"next step {step['next']}" if step.get("next") else "the workflow ends (passed)"


def _actions(pad: str, title: str, actions: list[dict[str, Any]], otherwise: str) -> list[str]:
    """Actions in evaluation order (the first whose criteria all pass wins), then the fallback. After
    a goto or end without criteria nothing else is reached (a retry can run out, so it does not count)."""
    lines = [f"{pad}{title}:"]
    shadow = None  # the action that always applies, once seen
    for number, action in enumerate(actions, 1):
        origin = "  [from workflow]" if action["from"] == "workflow" else ""
        reference = f"  ({action['reference']})" if action.get("reference") else ""
        unreached = f"  (never reached: {shadow} always applies)" if shadow else ""
        lines.append(
            f"{pad}  {number}. {action['name']}: {action_target(action)}{origin}{reference}{unreached}"
        )
        criteria = [short_criterion(c) for c in action["criteria"]]
        lines.append(f"{pad}     when " + (" AND ".join(criteria) if criteria else "always"))
        for param in action.get("parameters", []):
            lines.append(f"{pad}     with {param['name']}: {_value(param['value'])}")
        if shadow is None and not action["criteria"] and action["type"] != "retry":
            shadow = action["name"]
    if shadow is None:
        lines.append(f"{pad}  otherwise: {otherwise}")
    return lines


def target_text(target: dict[str, Any]) -> str:
    """`POST /pets (createPet in source pets)`, `workflow child`, or the operation as written."""
    if target["kind"] == "workflow":
        return f"workflow {target['workflowId']}"
    if target["kind"] == "asyncapi":
        return message_target_text(target)
    written = target.get("operationPath") or target.get("operationId")
    if "method" not in target:
        return f"{written} (unresolved: {target.get('unresolved')})"
    if target.get("source") is None:  # Respect's x-operation: the URL the step gives
        return f"{target['method']} {target['path']}  (x-operation)"
    name = target.get("operationId") or written
    return f"{target['method']} {target['path']}  ({name} in source {target['source']})"


def message_target_text(target: dict[str, Any]) -> str:
    """`receive orders/replies  (reply of placeOrder in source orders)`, or the target as written."""
    action = target.get("action") or "(no action)"
    written = target.get("operationId") or target.get("channelPath") or ""
    if "address" not in target:
        return f"{action} {written} (unresolved: {target.get('unresolved')})"
    how = "reply of " if target.get("reply") else ""
    name = f"{how}{target['operationId']}" if target.get("operationId") else f"channel {target['channel']}"
    return f"{action} {target['address']}  ({name} in source {target['source']})"


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _VALUE_LIMIT else text[: _VALUE_LIMIT - 3] + "..."
