"""Before `arazzo mcp` or `arazzo agent` offers its tools: the security schemes of the operations each
tool's workflow reaches that no credential meets. `arazzo run` warns on each step that goes without its
credentials; a tool server runs its workflows for a client who sees only the tools' answers (a 401), so
it says it once per scheme at start, naming the tools, in the step's words (`http/security_hints.py`).

Statically, with what is known before any call: the `--auth` items, the inputs the server fixes (a
credential input is never asked of a model), the environment; a requirement is met as at run time
(`http/security.py`), a step parameter in the credential's place counting as set by the step, unless
its value is an input of the tool's workflow that nothing gives (an input sent where a credential goes
is a credential input, never asked of a model: without `--input` or a default, the step leaves the
parameter out, and the request goes without its credential). A step with Respect's `x-security`
carries its own credentials: it is left out.
"""

from __future__ import annotations

from typing import Any

from ..records import Record


class Unmet(Record):
    """A scheme of an operation's first security requirement that nothing gives a credential."""

    source: str  # the family name of the operation's source (`a`, `kid/a`)
    scheme: str
    hint: str  # how to give it (`for 'api_key' set ARAZZO_AUTH_API_KEY_API_KEY (or --auth ...)`)


def unmet_security(workspace: Any, workflow: Any, options: Any, inputs: dict[str, Any]) -> list[Unmet]:
    """The schemes without credentials of every operation `workflow` reaches (its steps, the workflows
    it calls, depends on or an action runs), each (source, scheme) once, in the order met."""
    from ..sources.family import FamilyNames
    from .inputs import apply_defaults

    walk = _Walk(workspace, options, inputs, FamilyNames(workspace))
    raw = workspace.document.raw
    given = apply_defaults(workflow.inputs, dict(inputs), raw) if isinstance(raw, dict) else inputs
    walk.workflow(workspace, workflow, given)
    return list(walk.found.values())


class _Walk:
    def __init__(self, root: Any, options: Any, inputs: dict[str, Any], names: Any) -> None:
        self.root, self.options, self.inputs, self.names = root, options, inputs, names
        self.seen: set[tuple[int, str]] = set()
        self.found: dict[tuple[str, str], Unmet] = {}
        self._owners: dict[str, frozenset[str]] | None = None

    def workflow(self, workspace: Any, workflow: Any, given: dict[str, Any] | None = None) -> None:
        """`given`: the inputs the workflow is known to receive (the tool's own: its fixed inputs and
        defaults); None for a workflow another one runs (its inputs are the caller's to pass)."""
        key = (id(workspace), workflow.workflow_id)
        if key in self.seen:
            return
        self.seen.add(key)
        for ref in workflow.depends_on:
            self._reach(workspace, ref, (*workflow.at, "dependsOn"))
        for cstep in workspace.compiled(workflow).steps:
            step = cstep.step
            if step.target_kind == "operation" and not cstep.x_security:
                self._operation(workspace, cstep, given)
            elif step.target_kind == "workflow":
                self._reach(workspace, step.workflow_id or "", (*step.at, "workflowId"))
            for action in (*cstep.on_success, *cstep.on_failure):
                if action.workflow_id:
                    self._reach(workspace, action.workflow_id, action.at)

    def _reach(self, workspace: Any, ref: str, at: Any) -> None:
        target = workspace.resolve_workflow(ref, at)
        self.workflow(target.workspace, target.workflow)

    def _operation(self, workspace: Any, cstep: Any, given: dict[str, Any] | None) -> None:
        from ..errors import ArazzoError
        from ..http.credentials import Credentials
        from ..http.request import ParamValue
        from ..http.security import requirement_met
        from ..http.security_hints import scheme_hint

        try:
            target = workspace.resolve_operation(cstep.step)
            if target.source is None:  # an x-operation: no source, so no credential of the engine's
                return
            requirements = [r for r in target.operation.security or [] if isinstance(r, dict)]
            schemes = target.description.security_schemes if requirements else {}
        except ArazzoError:  # a malformed piece of the description: the tool's call says so, not this
            return
        if not requirements:
            return
        source = self.names.key(workspace, target.source)
        params = [  # an input nobody gives leaves its parameter out (`request_values.py`)
            ParamValue(p.name, p.in_ or "", None)
            for p in cstep.params
            if given is None or p.input is None or p.input in given
        ]
        credentials = Credentials(
            self.options.auth, [self.inputs], self.options.environ, source=source, owners=self._scheme_owners
        )
        if any(requirement_met(r, schemes, params, credentials) for r in requirements):
            return
        for name, scopes in requirements[0].items():
            if (source, name) in self.found or requirement_met({name: scopes}, schemes, params, credentials):
                continue
            self.found[(source, name)] = Unmet(source, name, scheme_hint(name, schemes, credentials))

    def _scheme_owners(self) -> dict[str, frozenset[str]]:
        if self._owners is None:
            from ..http.auth_listing import scheme_sources

            self._owners = scheme_sources(self.root)
        return self._owners
