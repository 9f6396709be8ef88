"""Per-run and per-workflow state, and the expression `Context` built from it for each step."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..expressions import Context, Missing
from ..records import Record, field
from ..workspace import Workspace


class WorkflowState(Record):
    """What one execution of a workflow has produced so far."""

    workspace: Workspace
    inputs: dict[str, Any]
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)
    completed: set[str] = field(default_factory=set)
    base: Context | None = None
    taint: Any = None  # the run's `Taint`: which values are derived from a secret
    armed: dict[str, Any] = field(default_factory=dict)  # receive steps' subscriptions (steps/message.py)
    # (workflowId, this execution's `$workflows.<id>` entry): what its own steps read there, whatever
    # other executions of the same workflow run beside it (`x-forEach` items under `--parallel`)
    own: tuple[str, Any] | None = None

    def __init__(  # written out: one per workflow execution
        self,
        workspace: Workspace,
        inputs: dict[str, Any],
        steps: dict[str, dict[str, Any]] | None = None,
        completed: set[str] | None = None,
        base: Context | None = None,
        taint: Any = None,
        armed: dict[str, Any] | None = None,
        own: tuple[str, Any] | None = None,
    ) -> None:
        self.workspace, self.inputs, self.base, self.taint = workspace, inputs, base, taint
        self.steps = {} if steps is None else steps
        self.completed = set() if completed is None else completed
        self.armed = {} if armed is None else armed
        self.own = own


class ResponseView(Record):
    headers: Mapping[str, Any]
    body: Any
    query: Mapping[str, Any] = field(default_factory=dict)
    path: Mapping[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        headers: Mapping[str, Any],
        body: Any,
        query: Mapping[str, Any] | None = None,
        path: Mapping[str, Any] | None = None,
    ) -> None:
        self.headers, self.body = headers, body
        self.query = {} if query is None else query
        self.path = {} if path is None else path


class SourceViews(Mapping[str, Any]):
    """`$sourceDescriptions.<name>.<ref>` views, created on first use (loading a source is costly)."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace
        self._names = [s.name for s in workspace.document.sources]

    def __getitem__(self, name: str) -> Any:
        entry = self._workspace.document.source(name)
        if entry is None:
            raise KeyError(name)
        return _SourceView(self._workspace, entry)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


class _SourceView:
    def __init__(self, workspace: Workspace, entry: Any) -> None:
        self._workspace = workspace
        self._entry = entry
        self.fields = {"name": entry.name, "url": entry.url, "type": entry.type or "openapi"}

    def lookup(self, reference: str) -> Any:
        # Priority per the spec: an operationId / workflowId first, then a field of the source object.
        try:
            loaded = self._workspace.source(self._entry.name)
        except Exception:  # an unloadable source still has its fields
            loaded = None
        found = _find(loaded, reference)
        if found is not None:
            return found
        if reference in self.fields:
            return self.fields[reference]
        return Missing(f"source '{self._entry.name}' has no operation, workflow or field '{reference}'")


def _find(loaded: Any, reference: str) -> Any:
    if loaded is None:
        return None
    if isinstance(loaded, Workspace):
        workflow = loaded.document.workflow(reference)
        return {"workflowId": workflow.workflow_id} if workflow else None
    operation = loaded.operation(reference)
    if operation is None:
        return None
    return {"operationId": operation.operation_id, "method": operation.method, "path": operation.path}


class _OwnFirst(Mapping[str, Any]):
    """`$workflows` as one execution sees it: the run's latest execution of each workflow, but its own
    for its own workflow (the latest one may be another, running beside it)."""

    def __init__(self, workflows: Mapping[str, Any], own: tuple[str, Any]) -> None:
        self._workflows, (self._id, self._entry) = workflows, own

    def __getitem__(self, workflow_id: str) -> Any:
        return self._entry if workflow_id == self._id else self._workflows[workflow_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._workflows)

    def __len__(self) -> int:
        return len(self._workflows)


def base_context(state: WorkflowState, workflows: Mapping[str, Any]) -> Context:
    """The context shared by every step of a workflow execution (no request/response yet)."""
    if state.base is None:
        workspace = state.workspace
        components = workspace.document.components
        state.base = Context(
            inputs=state.inputs,
            steps=state.steps,
            workflows=workflows if state.own is None else _OwnFirst(workflows, state.own),
            sources=SourceViews(workspace),
            components={
                "parameters": components.parameters,
                "successActions": components.success_actions,
                "failureActions": components.failure_actions,
                "inputs": components.inputs,
            },
            self_uri=workspace.document.self_uri,
            taint=state.taint,
        )
    return state.base


def with_exchange(base: Context, **values: Any) -> Context:
    """A step's context: the workflow's base plus this attempt's url/method/status/request/response.

    A shallow copy with a few members changed; `records.replace` re-runs `__init__` and costs several
    times more on this per-step path."""
    derived = object.__new__(Context)
    derived.__dict__.update(base.__dict__)
    derived.__dict__.update(values)
    return derived
