"""What the cursor is on, for navigation, rename and hover: a step, a step's output, a workflow, a
workflow input, an operation, or a response body pointer, as defined or as referenced (by a field, a
`dependsOn` item, or a runtime expression inside a string)."""

from __future__ import annotations

import re
from typing import Any

from ..records import Record
from . import model

_ACTIONS = frozenset({"onSuccess", "onFailure", "successActions", "failureActions"})
_EXPRESSIONS = re.compile(
    r"\$steps\.(?P<step>[A-Za-z0-9_\-]+)(?:\.outputs\.(?P<output>[A-Za-z0-9_\-]+))?"
    r"|\$workflows\.(?P<workflow>[A-Za-z0-9_\-]+)(?:\.outputs\.(?P<woutput>[A-Za-z0-9_\-]+))?"
    r"|\$inputs\.(?P<input>[A-Za-z0-9_\-]+)"
    r"|\$response\.body#(?P<body>/[^\s}\"']*)"
)


class Target(Record, frozen=True):
    """`kind`: step, output, workflow, input, operation or body; `workflow`: the index of the workflow
    it belongs to (steps, outputs, inputs, body pointers); `name`: the step or workflow id, the input's
    name; `output`: the output's name; `start`, `end`: the characters of the name under the cursor."""

    kind: str
    start: int
    end: int
    workflow: int | None = None
    name: str = ""
    output: str = ""
    step: int | None = None  # the step the cursor is in (body pointers, operations)
    pointer: str = ""


def target_at(analysis: Any, offset: int) -> Target | None:
    if analysis is None or analysis.loaded is None:
        return None
    token = analysis.token_at(offset)
    if token is None:
        return None
    start, end, pointer, is_key = token
    parts = model.tokens(pointer)
    workflow, step = model.enclosing(pointer)
    text = analysis.text[start:end]
    value = _value(analysis, pointer)
    inner = start + (len(text) - len(text.lstrip("\"'")))  # the name without its quotes
    span = (inner, inner + len(value)) if isinstance(value, str) and value and value in text else (start, end)
    if is_key:
        if len(parts) == 6 and parts[2] == "steps" and parts[4] == "outputs":
            step_id = _step_id(analysis, workflow, step)
            return Target("output", start, end, workflow, step_id, parts[5], step)
        return None
    last = parts[-1] if parts else ""
    in_action = bool(_ACTIONS & set(parts))
    if last == "stepId" and len(parts) == 5 and parts[2] == "steps" and isinstance(value, str):
        return Target("step", *span, workflow, value, step=step)
    if (last == "stepId" and in_action) or (
        len(parts) == 6 and parts[4] == "dependsOn" and parts[2] == "steps"
    ):
        return Target("step", *span, workflow, value, step=step) if isinstance(value, str) else None
    if last == "workflowId" and len(parts) == 3 and isinstance(value, str):
        return Target("workflow", *span, workflow, value)
    if isinstance(value, str) and (
        (last == "workflowId" and (in_action or step is not None))
        or (len(parts) == 4 and parts[0] == "workflows" and parts[2] == "dependsOn")
    ):
        return Target("workflow", *span, model.workflow_by_id(analysis.data, value), value)
    if last == "operationId" and step is not None and isinstance(value, str):
        return Target("operation", *span, workflow, value, step=step)
    return _in_expression(analysis, text, start, offset, workflow, step)


def _in_expression(
    analysis: Any, text: str, start: int, offset: int, workflow: Any, step: Any
) -> Target | None:
    for match in _EXPRESSIONS.finditer(text):
        if not match.start() <= offset - start <= match.end():
            continue
        at = offset - start
        if match.group("step"):
            if match.group("output") and at >= match.start("output"):
                return Target("output", start + match.start("output"), start + match.end("output"), workflow,
                              match.group("step"), match.group("output"), step)  # fmt: skip
            return Target("step", start + match.start("step"), start + match.end("step"), workflow,
                          match.group("step"), step=step)  # fmt: skip
        if match.group("workflow"):
            index = model.workflow_by_id(analysis.data, match.group("workflow"))
            if match.group("woutput") and at >= match.start("woutput"):
                return Target("workflow-output", start + match.start("woutput"), start + match.end("woutput"),
                              index, match.group("workflow"), match.group("woutput"))  # fmt: skip
            return Target("workflow", start + match.start("workflow"), start + match.end("workflow"), index,
                          match.group("workflow"))  # fmt: skip
        if match.group("input"):
            return Target("input", start + match.start("input"), start + match.end("input"), workflow,
                          match.group("input"), step=step)  # fmt: skip
        if match.group("body"):
            return Target("body", start + match.start("body"), start + match.end("body"), workflow,
                          step=step, pointer=match.group("body"))  # fmt: skip
    return None


def _value(analysis: Any, pointer: str) -> Any:
    node: Any = analysis.data
    for token in model.tokens(pointer):
        if isinstance(node, dict):
            node = node.get(token)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _step_id(analysis: Any, workflow: int | None, step: int | None) -> str:
    found = model.workflows(analysis.data)
    if workflow is None or step is None or workflow >= len(found):
        return ""
    steps = found[workflow].get("steps") or []
    item = steps[step] if step < len(steps) else None
    return item.get("stepId", "") if isinstance(item, dict) else ""
