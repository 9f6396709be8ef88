"""Building the typed model from loaded data, leniently: shape problems are collected, not raised."""

from __future__ import annotations

from typing import Any

from ..spelling import json_spelling
from .objects import (
    NO_VALUE,
    SUPPORTED_VERSION,
    Action,
    Components,
    Criterion,
    Document,
    ParameterDef,
    Pointer,
    Replacement,
    RequestBody,
    Reusable,
    SourceDescription,
    Step,
    Workflow,
)

MAX_WORKFLOW_STEPS = 10_000  # steps of one workflow: more is a `document-shape` error, and it is not run


def build_document(data: Any) -> Document:
    """Build the typed model; shape problems land in `Document.problems`."""
    return _Builder().document(data)


class _Builder:
    def __init__(self) -> None:
        self.problems: list[tuple[Pointer, str]] = []

    def problem(self, at: Pointer, message: str) -> None:
        self.problems.append((at, message))

    # -- field helpers -------------------------------------------------------------------------------

    def obj(self, node: Any, at: Pointer, what: str) -> dict:
        if isinstance(node, dict):
            return node
        self.problem(at, f"{what} must be an object, got {_kind(node)}")
        return {}

    def items(self, node: dict, key: str, at: Pointer) -> list[tuple[Any, Pointer]]:
        value = node.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.problem((*at, key), f"'{key}' must be a list, got {_kind(value)}")
            return []
        return [(item, (*at, key, i)) for i, item in enumerate(value)]

    def text(self, node: dict, key: str, at: Pointer, *, required: bool = False) -> str | None:
        value = node.get(key)
        if value.__class__ is str:  # the usual case, first (str(value) is value)
            return value
        if value is None:
            if required:
                self.problem(at, f"missing required field '{key}'")
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.problem((*at, key), f"'{key}' must be a string, got {_kind(value)}")
            return None
        return str(value)

    def number(self, node: dict, key: str, at: Pointer, *, integer: bool = False) -> Any:
        value = node.get(key)
        if value is None:
            return None
        ok = isinstance(value, int) if integer else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok or value < 0:
            kind = "a non-negative integer" if integer else "a non-negative number"
            self.problem((*at, key), f"'{key}' must be {kind}, got {json_spelling(value)}")
            return None
        return value

    def mapping(self, node: dict, key: str, at: Pointer) -> dict[str, Any]:
        value = node.get(key)
        if value is None:
            return {}
        return self.obj(value, (*at, key), f"'{key}'")

    # -- objects -------------------------------------------------------------------------------------

    def document(self, data: Any) -> Document:
        root = self.obj(data, (), "an Arazzo document")
        version = self.text(root, "arazzo", (), required=True) or ""
        if version and not SUPPORTED_VERSION.match(version):
            self.problem(
                ("arazzo",), f"unsupported Arazzo version '{version}' (supported: 1.0.0, 1.0.1, 1.1.x)"
            )
        if "arazzo" not in root and "openapi" in root:
            self.problem((), "this is an OpenAPI description, not an Arazzo document")
        info = self.obj(root.get("info", {}), ("info",), "'info'")
        sources = [self.source(n, at) for n, at in self.items(root, "sourceDescriptions", ())]
        workflows = [self.workflow(n, at) for n, at in self.items(root, "workflows", ())]
        if "workflows" not in root:
            self.problem((), "missing required field 'workflows'")
        return Document(
            version=version,
            self_uri=self.text(root, "$self", ()),
            info=info,
            sources=sources,
            workflows=workflows,
            components=self.components(root.get("components"), ("components",)),
            raw=root,
            problems=self.problems,
        )

    def source(self, node: Any, at: Pointer) -> SourceDescription:
        node = self.obj(node, at, "a source description")
        return SourceDescription(
            name=self.text(node, "name", at, required=True) or "",
            url=self.text(node, "url", at, required=True) or "",
            type=self.text(node, "type", at),
            at=at,
            extensions=_extensions(node),
        )

    def workflow(self, node: Any, at: Pointer) -> Workflow:
        node = self.obj(node, at, "a workflow")
        inputs = node.get("inputs")
        if inputs is not None and not isinstance(inputs, dict):
            self.problem((*at, "inputs"), "'inputs' must be a JSON Schema object")
            inputs = None
        steps = self.items(node, "steps", at)
        if len(steps) > MAX_WORKFLOW_STEPS:
            message = (
                f"the workflow has {len(steps)} steps, more than the limit of {MAX_WORKFLOW_STEPS} "
                "steps per workflow: it is not run"
            )
            self.problem((*at, "steps", MAX_WORKFLOW_STEPS), message)
        return Workflow(
            workflow_id=self.text(node, "workflowId", at, required=True) or "",
            summary=self.text(node, "summary", at),
            description=self.text(node, "description", at),
            inputs=inputs,
            depends_on=self.strings(node, "dependsOn", at),
            steps=[self.step(n, a) for n, a in steps],
            success_actions=self.actions(node, "successActions", at, "success"),
            failure_actions=self.actions(node, "failureActions", at, "failure"),
            outputs=self.mapping(node, "outputs", at),
            parameters=self.parameters(node, at),
            at=at,
            extensions=_extensions(node),
        )

    def step(self, node: Any, at: Pointer) -> Step:
        node = self.obj(node, at, "a step")
        return Step(
            step_id=self.text(node, "stepId", at, required=True) or "",
            description=self.text(node, "description", at),
            operation_id=self.text(node, "operationId", at),
            operation_path=self.text(node, "operationPath", at),
            workflow_id=self.text(node, "workflowId", at),
            channel_path=self.text(node, "channelPath", at),
            parameters=self.parameters(node, at),
            request_body=self.request_body(node.get("requestBody"), (*at, "requestBody")),
            success_criteria=self.criteria(node, "successCriteria", at),
            on_success=self.actions(node, "onSuccess", at, "success"),
            on_failure=self.actions(node, "onFailure", at, "failure"),
            outputs=self.mapping(node, "outputs", at),
            timeout_ms=self.number(node, "timeout", at, integer=True),
            depends_on=self.strings(node, "dependsOn", at),
            action=self.text(node, "action", at),
            at=at,
            correlation_id=self.text(node, "correlationId", at),
            extensions=_extensions(node),
        )

    def strings(self, node: dict, key: str, at: Pointer) -> list[str]:
        out = []
        for item, item_at in self.items(node, key, at):
            if isinstance(item, str):
                out.append(item)
            else:
                self.problem(item_at, f"'{key}' entries must be strings, got {_kind(item)}")
        return out

    def parameters(self, node: dict, at: Pointer) -> list[ParameterDef | Reusable]:
        return [self.parameter(n, a) for n, a in self.items(node, "parameters", at)]

    def parameter(self, node: Any, at: Pointer) -> ParameterDef | Reusable:
        node = self.obj(node, at, "a parameter")
        if "reference" in node:
            return self.reusable(node, at)
        if "value" not in node:
            self.problem(at, "missing required field 'value'")
        return ParameterDef(
            name=self.text(node, "name", at, required=True) or "",
            in_=self.text(node, "in", at),
            value=node.get("value"),
            at=at,
        )

    def reusable(self, node: dict, at: Pointer) -> Reusable:
        return Reusable(
            reference=self.text(node, "reference", at, required=True) or "",
            value=node.get("value", NO_VALUE),
            at=at,
        )

    def actions(self, node: dict, key: str, at: Pointer, kind: str) -> list[Action | Reusable]:
        out: list[Action | Reusable] = []
        for item, item_at in self.items(node, key, at):
            item = self.obj(item, item_at, "an action")
            out.append(
                self.reusable(item, item_at) if "reference" in item else self.action(item, item_at, kind)
            )
        return out

    def action(self, node: Any, at: Pointer, kind: str) -> Action:
        node = self.obj(node, at, "an action")
        action_type = self.text(node, "type", at, required=True) or ""
        allowed = ("end", "goto") if kind == "success" else ("end", "goto", "retry")
        if action_type and action_type not in allowed:
            self.problem((*at, "type"), f"{kind} action type must be one of {', '.join(allowed)}")
        return Action(
            kind=kind,
            name=self.text(node, "name", at, required=True) or "",
            type=action_type,
            step_id=self.text(node, "stepId", at),
            workflow_id=self.text(node, "workflowId", at),
            criteria=self.criteria(node, "criteria", at),
            parameters=self.parameters(node, at),
            retry_after=self.number(node, "retryAfter", at),
            retry_limit=self.number(node, "retryLimit", at, integer=True),
            at=at,
        )

    def criteria(self, node: dict, key: str, at: Pointer) -> list[Criterion]:
        out = []
        for item, item_at in self.items(node, key, at):
            item = self.obj(item, item_at, "a criterion")
            ctype = item.get("type")
            if ctype is not None and not isinstance(ctype, (str, dict)):
                self.problem(
                    (*item_at, "type"), "criterion 'type' must be a string or an expression type object"
                )
                ctype = None
            out.append(
                Criterion(
                    condition=self.text(item, "condition", item_at, required=True) or "",
                    context=self.text(item, "context", item_at),
                    type=ctype,
                    at=item_at,
                )
            )
        return out

    def request_body(self, node: Any, at: Pointer) -> RequestBody | None:
        if node is None:
            return None
        node = self.obj(node, at, "'requestBody'")
        replacements = []
        for item, item_at in self.items(node, "replacements", at):
            item = self.obj(item, item_at, "a payload replacement")
            if "value" not in item:
                self.problem(item_at, "missing required field 'value'")
            replacements.append(
                Replacement(
                    target=self.text(item, "target", item_at, required=True) or "",
                    target_type=item.get("targetSelectorType"),
                    value=item.get("value"),
                    at=item_at,
                )
            )
        return RequestBody(
            content_type=self.text(node, "contentType", at),
            payload=node.get("payload", NO_VALUE),
            replacements=replacements,
            at=at,
        )

    def components(self, node: Any, at: Pointer) -> Components:
        if node is None:
            return Components()
        node = self.obj(node, at, "'components'")
        params = self.mapping(node, "parameters", at)
        success = self.mapping(node, "successActions", at)
        failure = self.mapping(node, "failureActions", at)
        return Components(
            inputs=self.mapping(node, "inputs", at),
            parameters={k: self.parameter(v, (*at, "parameters", k)) for k, v in params.items()},
            success_actions={
                k: self.action(v, (*at, "successActions", k), "success") for k, v in success.items()
            },
            failure_actions={
                k: self.action(v, (*at, "failureActions", k), "failure") for k, v in failure.items()
            },
        )


def _extensions(node: dict) -> dict[str, Any]:
    """The specification extensions of an object (`x-` members), as written: read by the engine's
    documented extensions (Respect's `x-operation`, `x-security`, `x-serverUrl`)."""
    return {key: value for key, value in node.items() if key.startswith("x-")}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
