"""The tools of some Arazzo documents: one per selected workflow, with its name, description, parameters
schema, the inputs the server supplies, and hints; in the three forms the APIs take.

- openai: `{"type": "function", "function": {"name", "description", "parameters"}}` (chat completions);
- anthropic: `{"name", "description", "input_schema"}` (messages API);
- mcp: `{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}` (MCP
  `tools/list`; `outputSchema`: the shape of its structured content, `outputs.output_schema`), the
  annotations `readOnlyHint`, `destructiveHint` (meaningful when not read-only) and `openWorldHint`
  (a workflow calls APIs).

The description: the workflow's summary and description, then what it returns (its outputs' names),
at most `MAX_DESCRIPTION` characters (the description is cut, the returns line kept).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...errors import UsageError
from ...records import Record, field
from .hints import Hints

MAX_DESCRIPTION = 1024
FORMATS = ("openai", "anthropic", "mcp")


class ToolSource(Record):
    """One document whose workflows become tools: its inputs supplied where the tools run (fixed for every
    call: the tools' schemas leave them out), the options its runs start from, the workflows to offer
    (None: all)."""

    workspace: Any
    inputs: dict[str, Any] = field(default_factory=dict)
    options: Any = None  # RunOptions; None: the defaults
    workflows: list[str] | None = None


class Tool(Record):
    name: str
    workflow: Any  # model.Workflow
    source: ToolSource
    description: str
    parameters: dict[str, Any]
    credentials: dict[str, str]  # credential input -> why it is one
    fixed: dict[str, Any]  # the inputs the server gives this tool's runs
    hints: Hints
    # names no text the caller reads may hold: the hidden inputs, the credentials of workflows it runs
    unspoken: frozenset[str] = frozenset()
    # what a call derives once from the tool (its visible and declared names, its scrubber: `hidden`)
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def workflow_id(self) -> str:
        return self.workflow.workflow_id

    @property
    def file(self) -> str:
        return self.source.workspace.file

    @property
    def hidden(self) -> frozenset[str]:
        """The inputs a caller may not give: credentials, and the inputs the server fixes."""
        return frozenset(self.credentials) | frozenset(self.fixed)

    def definition(self, form: str) -> dict[str, Any]:
        if form == "openai":
            function = {"name": self.name, "description": self.description, "parameters": self.parameters}
            return {"type": "function", "function": function}
        if form == "anthropic":
            return {"name": self.name, "description": self.description, "input_schema": self.parameters}
        annotations: dict[str, Any] = {"readOnlyHint": self.hints.read_only}
        if not self.hints.read_only:
            annotations["destructiveHint"] = self.hints.destructive
        annotations["openWorldHint"] = True
        from .outputs import output_schema

        return {
            "name": self.name,
            "title": self.workflow_id,
            "description": self.description,
            "inputSchema": self.parameters,
            "outputSchema": output_schema(self),
            "annotations": annotations,
        }

    def missing_credentials(self) -> list[str]:
        """Required credential inputs that nothing supplies (neither the server's inputs nor a default)."""
        from ...report.listing import input_entries

        entries = input_entries(self.workflow, self.source.workspace.document.raw)
        return [
            e["name"]
            for e in entries
            if e["required"] and e["name"] in self.credentials and e["name"] not in self.fixed
            and "default" not in e
        ]  # fmt: skip


class Catalog(Record):
    tools: list[Tool]
    notes: list[str] = field(default_factory=list)  # the names that are not their workflowId, and why

    def get(self, name: str) -> Tool | None:
        return next((tool for tool in self.tools if tool.name == name), None)

    def definitions(self, form: str) -> list[dict[str, Any]]:
        return [tool.definition(form) for tool in self.tools]


def build_catalog(sources: Iterable[ToolSource]) -> Catalog:
    """The tools of `sources`, in order. Raises UsageError for a workflow id no source has, and for an
    inputs schema that cannot be a tool's (`schema.SchemaError`); DocumentError/SourceError when a
    target or a source cannot be resolved."""
    from .credentials import credentials_reached
    from .hints import workflow_hints
    from .names import assign_names
    from .schema import tool_parameters

    chosen = select(list(sources))
    names, notes = assign_names(
        [(source.workspace.file, workflow.workflow_id) for source, workflow in chosen]
    )
    tools = []
    for name, (source, workflow) in zip(names, chosen, strict=True):
        workspace = source.workspace
        credentials, reached = credentials_reached(workspace, workflow)
        fixed = fixed_inputs(workspace, workflow, source.inputs)
        hidden = set(credentials) | set(fixed)
        parameters = tool_parameters(workflow, workspace.document.raw, hidden)
        hints = workflow_hints(workspace, workflow)
        unspoken = frozenset(hidden | reached)
        tools.append(
            Tool(name, workflow, source, describe(workflow), parameters, credentials, fixed, hints, unspoken)
        )
    return Catalog(tools, notes)


def select(sources: Sequence[ToolSource]) -> list[tuple[ToolSource, Any]]:
    """(source, workflow) for each selected workflow, in document order."""
    chosen: list[tuple[ToolSource, Any]] = []
    wanted: set[str] = set()
    for source in sources:
        ids = None if source.workflows is None else set(source.workflows)
        wanted |= ids or set()
        chosen.extend(
            (source, w) for w in source.workspace.document.workflows if ids is None or w.workflow_id in ids
        )
    known = {w.workflow_id for source in sources for w in source.workspace.document.workflows}
    unknown = sorted(wanted - known)
    if unknown:
        files = ", ".join(source.workspace.file for source in sources)
        raise UsageError(f"no workflow '{unknown[0]}' in {files} (workflows: {', '.join(sorted(known))})")
    return chosen


def fixed_inputs(workspace: Any, workflow: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """The server's inputs this workflow receives: those it (or a workflow it depends on) declares, all of
    them when it accepts any input."""
    from ...workspace.inputs import declared_input_names

    names = declared_input_names(workspace, [workflow])
    return dict(inputs) if names is None else {k: v for k, v in inputs.items() if k in names}


def describe(workflow: Any) -> str:
    parts: list[str] = []
    for text in (workflow.summary, workflow.description):
        if isinstance(text, str) and text.strip() and text.strip() not in parts:
            parts.append(text.strip())
    outputs = list(workflow.outputs)
    returns = f"Returns its outputs: {', '.join(outputs)}." if outputs else "Returns no outputs."
    body = "\n\n".join(parts) or f"Runs the Arazzo workflow '{workflow.workflow_id}'."
    room = MAX_DESCRIPTION - len(returns) - 2
    if len(body) > room:
        body = body[: max(0, room - 3)].rstrip() + "..."
    return f"{body}\n\n{returns}"[:MAX_DESCRIPTION]
