"""The control flow of workflows as a graph: steps, the default "next" and failure edges, goto / retry /
end edges labelled with their action and criteria, nested workflows as clusters of their own.

The graph is plain data (`to_dict` for `--format json`); `mermaid.py` draws it. It is built from the
compiled plan, so actions appear merged with the workflow's and in evaluation order. An action that
always applies (a goto or end without criteria) shadows the actions after it, so those are not drawn;
a retry does not (once its limit is used up, the later actions are considered).
"""

from __future__ import annotations

from typing import Any

from ..errors import ArazzoError
from ..model import Pointer, Workflow
from ..records import Record, field
from ..workspace.plan import CompiledAction, CompiledStep
from .describe import criterion_entry, short_criterion, step_target

CRITERION_LIMIT = 80  # characters of a criterion shown on an edge; `arazzo describe` shows it all


class Node(Record):
    id: str
    kind: str  # start | step | workflow-step | asyncapi-step | end | failed | unresolved
    title: str
    detail: str | None = None
    step_id: str | None = None


class Edge(Record):
    source: str
    target: str
    kind: str  # next | success | failure | retry | call | depends
    lines: list[str] = field(default_factory=list)  # the label, one entry per line (plain text)
    action: str | None = None


class Cluster(Record):
    """One workflow: its start, steps, end and failed nodes."""

    id: str
    workflow_id: str
    title: str
    nodes: list[Node] = field(default_factory=list)

    @property
    def start(self) -> str:
        return f"{self.id}_START"

    @property
    def end(self) -> str:
        return f"{self.id}_END"

    @property
    def failed(self) -> str:
        return f"{self.id}_FAIL"


class Graph(Record):
    clusters: list[Cluster] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)  # outside any workflow: unresolved references
    edges: list[Edge] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "workflows": [
                {
                    "id": c.id,
                    "workflowId": c.workflow_id,
                    "title": c.title,
                    "nodes": [_node(n) for n in c.nodes],
                }
                for c in self.clusters
            ],
            "nodes": [_node(n) for n in self.nodes],
            "edges": [_edge(e) for e in self.edges],
        }


def build_graph(workspace: Any, workflows: list[Workflow]) -> Graph:
    builder = _Builder(workspace)
    for workflow in workflows:
        builder.cluster(workspace, workflow)
    return builder.graph


def graph_of(workspace: Any, workflows: list[Workflow]) -> dict[str, Any]:
    """`build_graph(...).to_dict()` for a report: a workflow whose plan cannot be built (a document
    problem that kept it from running) is left out rather than failing the report."""
    builder = _Builder(workspace)
    for workflow in workflows:
        try:
            builder.cluster(workspace, workflow)
        except ArazzoError:  # raised by its plan, before any node of it was added
            continue
    builder.graph.clusters = [c for c in builder.graph.clusters if c.nodes]
    return builder.graph.to_dict()


class _Scope(Record):
    """What edges of one workflow's steps may point at."""

    workspace: Any
    cluster: Cluster
    ids: dict[str, str]  # stepId -> node id


class _Builder:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.graph = Graph()
        self.seen: dict[tuple[int, str], Cluster] = {}

    def cluster(self, workspace: Any, workflow: Workflow) -> Cluster:
        """The workflow's cluster, built once (a workflow reached again, or recursively, is linked to)."""
        key = (id(workspace), workflow.workflow_id)
        if key in self.seen:
            return self.seen[key]
        cluster_id = f"W{len(self.seen)}"
        title = workflow.workflow_id
        if workspace is not self.root:
            title += f" ({workspace.file})"
        cluster = Cluster(cluster_id, workflow.workflow_id, title)
        self.seen[key] = cluster
        self.graph.clusters.append(cluster)
        self._fill(cluster, workspace, workflow)
        return cluster

    def _fill(self, cluster: Cluster, workspace: Any, workflow: Workflow) -> None:
        plan = workspace.compiled(workflow)
        ids = {s.step_id: f"{cluster.id}_S{i}" for i, s in enumerate(plan.steps)}
        cluster.nodes.append(Node(cluster.start, "start", "start"))
        cluster.nodes.extend(self._step_node(workspace, s, ids[s.step_id]) for s in plan.order)
        cluster.nodes.append(Node(cluster.end, "end", "end", "passed"))
        cluster.nodes.append(Node(cluster.failed, "failed", "failed"))
        scope = _Scope(workspace, cluster, ids)
        order = plan.order  # "next" is the next step in the order a run takes them
        first = ids[order[0].step_id] if order else cluster.end
        self.edge(Edge(cluster.start, first, "next"))
        for ref in workflow.depends_on:
            dependency = self._target(workspace, ref, (*workflow.at, "dependsOn"))
            self.edge(Edge(_exit(dependency), cluster.start, "depends", ["dependsOn"]))
        for i, cstep in enumerate(order):
            after = ids[order[i + 1].step_id] if i + 1 < len(order) else cluster.end
            self._step_edges(scope, cstep, after)

    def _step_node(self, workspace: Any, cstep: CompiledStep, node_id: str) -> Node:
        target = step_target(workspace, cstep.step)
        if target["kind"] == "workflow":
            return Node(
                node_id, "workflow-step", cstep.step_id, f"workflow {target['workflowId']}", cstep.step_id
            )
        if target["kind"] == "asyncapi":
            from .describe_text import message_target_text

            detail = message_target_text(target).split("  (")[0]
            return Node(node_id, "asyncapi-step", cstep.step_id, detail, cstep.step_id)
        if "method" in target:
            detail = f"{target['method']} {target['path']}"
        else:
            detail = target.get("operationPath") or target.get("operationId") or ""
        return Node(node_id, "step", cstep.step_id, detail, cstep.step_id)

    def _step_edges(self, scope: _Scope, cstep: CompiledStep, after: str) -> None:
        node = scope.ids[cstep.step_id]
        step = cstep.step
        if step.target_kind == "workflow":
            child = self._target(scope.workspace, step.workflow_id or "", (*step.at, "workflowId"))
            self.edge(Edge(node, _entry(child), "call", ["calls"]))
        for ref in step.depends_on:  # a join: the step waits for these (an async receive, most often)
            if ref in scope.ids:
                self.edge(Edge(scope.ids[ref], node, "depends", ["joins"]))
        if not self._actions(scope, node, cstep.on_success):
            self.edge(Edge(node, after, "next", ["otherwise"] if cstep.on_success else []))
        if not self._actions(scope, node, cstep.on_failure):
            label = "otherwise fails" if cstep.on_failure else "fails"
            self.edge(Edge(node, scope.cluster.failed, "failure", [label]))

    def _actions(self, scope: _Scope, node: str, actions: list[CompiledAction]) -> bool:
        """Draw the actions in order; True when one always applies (nothing after it can run)."""
        raw = scope.workspace.document.raw
        for action in actions:
            target = self._action_target(scope, node, action)
            kind = "success" if action.kind == "success" else "retry" if action.type == "retry" else "failure"
            lines = [f"{action.name} ({action.type})"]
            lines.extend(_clip(short_criterion(criterion_entry(c, raw))) for c in action.criteria)
            if action.type == "retry":
                after = f", after {action.retry_after:g} s" if action.retry_after is not None else ""
                lines.append(f"limit {action.retry_limit}{after}")
                if action.step_id or action.workflow_id:
                    lines.append(f"runs {action.step_id or action.workflow_id} first")
            self.edge(Edge(node, target, kind, lines, action.name))
            if not action.criteria and action.type != "retry":
                return True
        return False

    def _action_target(self, scope: _Scope, node: str, action: CompiledAction) -> str:
        if action.workflow_id:
            return _entry(self._target(scope.workspace, action.workflow_id, action.at))
        if action.step_id:
            return scope.ids.get(action.step_id, node)
        if action.type == "end":
            return scope.cluster.end if action.kind == "success" else scope.cluster.failed
        return node  # a plain retry: the same step again

    def _target(self, workspace: Any, ref: str, at: Pointer) -> Cluster | Node:
        """The cluster of a referenced workflow, or a placeholder node when it cannot be resolved."""
        try:
            target = workspace.resolve_workflow(ref, at)
        except ArazzoError as exc:  # an arazzo source that cannot be loaded: show the reference
            node = Node(f"X{len(self.graph.nodes)}", "unresolved", f"workflow {ref}", _reason(exc))
            self.graph.nodes.append(node)
            return node
        return self.cluster(target.workspace, target.workflow)

    def edge(self, edge: Edge) -> None:
        self.graph.edges.append(edge)


def _entry(target: Cluster | Node) -> str:
    return target.start if isinstance(target, Cluster) else target.id


def _exit(target: Cluster | Node) -> str:
    return target.end if isinstance(target, Cluster) else target.id


def _clip(text: str) -> str:
    return text if len(text) <= CRITERION_LIMIT else text[: CRITERION_LIMIT - 3] + "..."


def _reason(exc: ArazzoError) -> str:
    return "not loaded: " + _clip(getattr(exc, "message", None) or str(exc))


def _node(node: Node) -> dict[str, Any]:
    data: dict[str, Any] = {"id": node.id, "kind": node.kind, "title": node.title}
    if node.detail:
        data["detail"] = node.detail
    if node.step_id:
        data["stepId"] = node.step_id
    return data


def _edge(edge: Edge) -> dict[str, Any]:
    data: dict[str, Any] = {"from": edge.source, "to": edge.target, "kind": edge.kind}
    if edge.action:
        data["action"] = edge.action
    if edge.lines:
        data["label"] = edge.lines
    return data
