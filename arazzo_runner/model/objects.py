"""The typed Arazzo objects (records), each keeping the JSON pointer `at` of its source node."""

from __future__ import annotations

import re
from typing import Any

from ..records import Record, field

Pointer = tuple[str | int, ...]

SUPPORTED_VERSION = re.compile(r"^1\.(0\.[01]|1\.\d+)(-.+)?$")
NO_VALUE: Any = object()  # a `value` / `payload` the document does not give


class Criterion(Record):
    condition: str
    context: str | None
    type: str | dict | None
    at: Pointer

    def __init__(self, condition: str, context: str | None, type: str | dict | None, at: Pointer) -> None:
        self.condition, self.context, self.type, self.at = condition, context, type, at  # per step


class ParameterDef(Record):
    name: str
    in_: str | None
    value: Any
    at: Pointer

    def __init__(self, name: str, in_: str | None, value: Any, at: Pointer) -> None:
        self.name, self.in_, self.value, self.at = name, in_, value, at  # per step


class Reusable(Record):
    """A Reusable Object: `reference: $components.<kind>.<name>` with an optional parameter `value`."""

    reference: str
    value: Any  # NO_VALUE when absent
    at: Pointer

    @property
    def has_value(self) -> bool:
        return self.value is not NO_VALUE


class Action(Record):
    kind: str  # "success" | "failure"
    name: str
    type: str
    step_id: str | None
    workflow_id: str | None
    criteria: list[Criterion]
    parameters: list[ParameterDef | Reusable]
    retry_after: float | None
    retry_limit: int | None
    at: Pointer


class Replacement(Record):
    target: str
    target_type: str | dict | None
    value: Any
    at: Pointer


class RequestBody(Record):
    content_type: str | None
    payload: Any  # NO_VALUE when absent
    replacements: list[Replacement]
    at: Pointer

    @property
    def has_payload(self) -> bool:
        return self.payload is not NO_VALUE


class Step(Record):
    step_id: str
    description: str | None
    operation_id: str | None
    operation_path: str | None
    workflow_id: str | None
    channel_path: str | None
    parameters: list[ParameterDef | Reusable]
    request_body: RequestBody | None
    success_criteria: list[Criterion]
    on_success: list[Action | Reusable]
    on_failure: list[Action | Reusable]
    outputs: dict[str, Any]
    timeout_ms: int | None
    depends_on: list[str]
    action: str | None
    at: Pointer
    correlation_id: str | None = None  # 1.1: of an AsyncAPI receive step
    extensions: dict[str, Any] = field(default_factory=dict)  # the `x-` members, as written

    def __init__(  # one per step: written out (records.py)
        self,
        step_id: str,
        description: str | None,
        operation_id: str | None,
        operation_path: str | None,
        workflow_id: str | None,
        channel_path: str | None,
        parameters: list[ParameterDef | Reusable],
        request_body: RequestBody | None,
        success_criteria: list[Criterion],
        on_success: list[Action | Reusable],
        on_failure: list[Action | Reusable],
        outputs: dict[str, Any],
        timeout_ms: int | None,
        depends_on: list[str],
        action: str | None,
        at: Pointer,
        correlation_id: str | None = None,
        extensions: dict[str, Any] | None = None,
    ) -> None:
        self.step_id, self.description = step_id, description
        self.operation_id, self.operation_path, self.workflow_id = operation_id, operation_path, workflow_id
        self.channel_path, self.parameters, self.request_body = channel_path, parameters, request_body
        self.success_criteria, self.on_success, self.on_failure = success_criteria, on_success, on_failure
        self.outputs, self.timeout_ms, self.depends_on, self.action = outputs, timeout_ms, depends_on, action
        self.at, self.correlation_id = at, correlation_id
        self.extensions = {} if extensions is None else extensions

    @property
    def target_kind(self) -> str:
        if self.workflow_id is not None:
            return "workflow"
        if self.channel_path is not None or self.action is not None:
            return "asyncapi"
        return "operation"


class Workflow(Record):
    workflow_id: str
    summary: str | None
    description: str | None
    inputs: dict | None
    depends_on: list[str]
    steps: list[Step]
    success_actions: list[Action | Reusable]
    failure_actions: list[Action | Reusable]
    outputs: dict[str, Any]
    parameters: list[ParameterDef | Reusable]
    at: Pointer
    extensions: dict[str, Any] = field(default_factory=dict)  # the `x-` members, as written

    def step(self, step_id: str) -> Step | None:
        index = self.step_index(step_id)
        return None if index is None else self.steps[index]

    def step_index(self, step_id: str) -> int | None:
        if not isinstance(step_id, str):  # a malformed id is looked for as written
            return next((i for i, s in enumerate(self.steps) if s.step_id == step_id), None)
        return self._step_ids().get(step_id)

    def _step_ids(self) -> dict[Any, int]:
        """stepId -> the index of its first step, made on first use (validation asks once an expression:
        a search each time was quadratic in the steps) and again if `steps` is replaced or grows."""
        cached = self.__dict__.get("_step_ids_of")
        if cached is None or cached[0] is not self.steps or cached[1] != len(self.steps):
            index: dict[Any, int] = {}
            for position, step in enumerate(self.steps):
                if isinstance(step.step_id, str):
                    index.setdefault(step.step_id, position)
            cached = self.__dict__["_step_ids_of"] = (self.steps, len(self.steps), index)
        return cached[2]


class SourceDescription(Record):
    name: str
    url: str
    type: str | None
    at: Pointer
    extensions: dict[str, Any] = field(default_factory=dict)  # the `x-` members, as written


class Components(Record):
    inputs: dict[str, Any] = field(default_factory=dict)
    parameters: dict[str, ParameterDef] = field(default_factory=dict)
    success_actions: dict[str, Action] = field(default_factory=dict)
    failure_actions: dict[str, Action] = field(default_factory=dict)

    def by_kind(self, kind: str) -> dict[str, Any]:
        return {
            "inputs": self.inputs,
            "parameters": self.parameters,
            "successActions": self.success_actions,
            "failureActions": self.failure_actions,
        }.get(kind, {})


class Document(Record):
    version: str
    self_uri: str | None
    info: dict
    sources: list[SourceDescription]
    workflows: list[Workflow]
    components: Components
    raw: dict
    problems: list[tuple[Pointer, str]] = field(default_factory=list)

    @property
    def is_1_1(self) -> bool:
        return self.version.startswith("1.1")

    def workflow(self, workflow_id: str) -> Workflow | None:
        return next((w for w in self.workflows if w.workflow_id == workflow_id), None)

    def source(self, name: str) -> SourceDescription | None:
        return next((s for s in self.sources if s.name == name), None)
