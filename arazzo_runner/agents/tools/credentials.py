"""Which inputs of a workflow are credentials: never in a tool's schema, never asked of a model, always
supplied where the tool runs (`--input`, the environment, `.env`), and masked by value in what a model
or a client is shown. An input is a credential when

- its schema says so: `format: password` or `writeOnly: true`, at any depth of it (an object holding a
  password is a credential as a whole);
- it is named like a security scheme of the document's sources (`S`, or `SOURCE:S`): the engine reads
  such an input as that scheme's credential (`docs/security.md`);
- a step sends it where credentials travel: in the `Authorization`, `Proxy-Authorization` or `Cookie`
  header, or in the header, query parameter or cookie an apiKey scheme of the step's source names;
- it is passed to a credential input of a workflow the workflow calls (a workflow step, or an action's
  workflow), or is a credential input of a workflow it depends on (which receives its inputs by name).

"Sends it" means the parameter's value reads `$inputs.NAME` (in an expression or a `{$...}` template).
"""

from __future__ import annotations

from typing import Any

from ...loader.pointer import ABSENT, resolve_pointer
from ...workspace.inputs import inputs_read, resolve_schema, whole_names

CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
_MAX_DEPTH = 32


def credential_inputs(workspace: Any, workflow: Any) -> dict[str, str]:
    """Input name -> why it is a credential, for `workflow` of `workspace`."""
    return _Finder().find(workspace, workflow)


def credentials_reached(workspace: Any, workflow: Any) -> tuple[dict[str, str], frozenset[str]]:
    """`credential_inputs`, and the names of the credential inputs of every workflow it runs or
    depends on too (an error inside one may name them)."""
    finder = _Finder()
    found = finder.find(workspace, workflow)
    return found, frozenset(name for names in finder.memo.values() for name in names)


class _Finder:
    def __init__(self) -> None:
        self.memo: dict[tuple[int, str], dict[str, str]] = {}
        self.active: set[tuple[int, str]] = set()

    def find(self, workspace: Any, workflow: Any) -> dict[str, str]:
        key = (id(workspace), workflow.workflow_id)
        if key in self.memo or key in self.active:
            return self.memo.get(key, {})
        self.active.add(key)
        try:
            found = self._find(workspace, workflow)
        finally:
            self.active.discard(key)
        self.memo[key] = found
        return found

    def _find(self, workspace: Any, workflow: Any) -> dict[str, str]:
        document = workspace.document.raw
        schema = resolve_schema(workflow.inputs or {}, document)
        properties = schema.get("properties") if isinstance(schema, dict) else None
        declared = properties if isinstance(properties, dict) else {}
        found: dict[str, str] = {}
        for name, sub in declared.items():
            mark = _marked(sub, document, 0)
            if mark:
                found[name] = f"its schema says {mark}"
        schemes = _scheme_names(workspace)
        for name in declared:
            scheme = name.rpartition(":")[2]
            if scheme in schemes and name not in found:
                found[name] = f"it is the credential of security scheme '{scheme}'"
        plan = workspace.compiled(workflow)
        for cstep in plan.steps:
            self._step(workspace, cstep, found)
        for ref in workflow.depends_on:
            target = workspace.resolve_workflow(ref, (*workflow.at, "dependsOn"))
            for name in self.find(target.workspace, target.workflow):
                if name in declared:
                    found.setdefault(name, f"workflow '{ref}', which it depends on, has it as a credential")
        return found

    def _step(self, workspace: Any, cstep: Any, found: dict[str, str]) -> None:
        step = cstep.step
        document = workspace.document.raw
        if step.target_kind == "operation":
            named = _api_key_names(workspace.resolve_operation(step).description)
            for param in cstep.params:
                where = (param.in_ or "", param.name.lower())
                if (where[0] == "header" and where[1] in CREDENTIAL_HEADERS) or where in named:
                    why = f"step '{step.step_id}' sends it in the {param.in_} '{param.name}'"
                    for name in _reads(workspace, document, param.at):
                        found.setdefault(name, why)
        elif step.target_kind == "workflow":
            self._passed(workspace, step.workflow_id or "", (*step.at, "workflowId"), cstep.params, found)
        for action in (*cstep.on_success, *cstep.on_failure):
            if action.workflow_id:
                self._passed(workspace, action.workflow_id, action.at, action.params, found)

    def _passed(self, workspace: Any, ref: str, at: Any, params: list[Any], found: dict[str, str]) -> None:
        target = workspace.resolve_workflow(ref, at)
        child = self.find(target.workspace, target.workflow)
        for param in params:
            if param.name in child:
                why = f"it is passed to '{param.name}', a credential of workflow '{ref}'"
                for name in _reads(workspace, workspace.document.raw, param.at):
                    found.setdefault(name, why)


def _marked(schema: Any, document: dict, depth: int) -> str | None:
    """`format: password` or `writeOnly: true` anywhere in `schema`, or None."""
    schema = resolve_schema(schema, document)
    if depth > _MAX_DEPTH:
        return None
    if isinstance(schema, list):
        return next((m for s in schema if (m := _marked(s, document, depth + 1))), None)
    if not isinstance(schema, dict):
        return None
    if schema.get("format") == "password":
        return "format: password"
    if schema.get("writeOnly") is True:
        return "writeOnly: true"
    for key, child in schema.items():
        if key not in ("default", "examples", "const", "enum") and isinstance(child, (dict, list)):
            mark = _marked(child, document, depth + 1)
            if mark:
                return mark
    return None


def _scheme_names(workspace: Any) -> frozenset[str]:
    from ...http.auth_listing import scheme_sources

    return frozenset(scheme_sources(workspace))


def _api_key_names(description: Any) -> set[tuple[str, str]]:
    """(in, lower-cased name) of the apiKey schemes of an OpenAPI description."""
    names = set()
    for scheme in description.security_schemes.values():
        if (
            isinstance(scheme, dict)
            and scheme.get("type") == "apiKey"
            and isinstance(scheme.get("name"), str)
        ):
            names.add((str(scheme.get("in", "header")), scheme["name"].lower()))
    return names


def _reads(workspace: Any, document: dict, at: Any) -> set[str]:
    """The input names the parameter written at `at` reads (through a reusable parameter, the value of
    the component it references too); a 1.0.x name read whole (`auth/token`) as a whole."""
    node = resolve_pointer(document, [str(token) for token in at])
    pending = [node]
    if isinstance(node, dict) and isinstance(node.get("reference"), str) and "value" not in node:
        _, _, name = node["reference"].rpartition(".")
        component = resolve_pointer(document, ["components", "parameters", name])
        if component is not ABSENT:
            pending.append(component)
    return inputs_read(*pending, whole=whole_names(workspace.document))
