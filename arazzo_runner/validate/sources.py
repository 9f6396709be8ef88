"""Checks that need the source descriptions: operations, parameters, request bodies, response pointers.

Sources are loaded through the `Workspace` (lazily, once, shared with a run). A source that cannot be
loaded is one `source-unavailable` warning and the checks that need it are skipped.
"""

from __future__ import annotations

import re
from typing import Any

from ..bounds.budget import BudgetExceeded
from ..errors import ArazzoError, ExpressionError
from ..loader.pointer import parse_pointer
from ..model import Action, Pointer, Step, Workflow, dialect
from ..workspace import operation_path_parts
from .checker import Checker, did_you_mean
from .left_refs import all_plain, unresolvable_refs, walked
from .openapi_schemas import (
    local_deref,
    media_type_for,
    payload_errors,
    pointer_possible,
    response_schemas,
)
from .regex_context import check_response_contexts
from .rules.extensions import scheme_names
from .rules.targets import (
    non_arazzo_sources,
    operation_path_problem,
    plain_in_one_source,
    source_named_path,
    source_workflow,
)
from .source_facts import (
    body_pointer,
    implicit_params,
    is_remote,
    param_key,
    path_hint,
    trim,
    unknown_message,
    unknown_paths,
)

_QUALIFIED = re.compile(r"^\{?\$sourceDescriptions\.([A-Za-z0-9_\-]+)\.(.+?)\}?$")
_IGNORED_HEADERS = frozenset(
    {"accept", "content-type", "authorization"}
)  # OpenAPI: such parameters are ignored
_UNAVAILABLE = object()


def check_sources(ck: Checker, workspace: Any, *, remote: bool = True) -> None:
    _SourceChecks(ck, workspace, remote).run()


class _SourceChecks:
    def __init__(self, ck: Checker, workspace: Any, remote: bool) -> None:
        self.ck = ck
        self.workspace = workspace
        self.remote = remote
        self.loaded: dict[str, Any] = {}
        self.refused: dict[tuple[int, str], list[str]] = {}  # per operation: schema-reference messages
        self.refs_below: dict[Any, Any] = {}  # the references in each resolved subtree (`left_refs`)
        self.plain_nodes: dict[int, set[int]] = {}  # per description: nodes found to reach plain refs only
        self.whole_plain: dict[int, bool] = {}  # per description: `_all_plain`

    def run(self) -> None:
        document = self.ck.document
        for workflow in document.workflows:
            for index, entry in enumerate(workflow.depends_on):
                self.workflow_in_source(entry, (*workflow.at, "dependsOn", index), "depends-on-exists")
            for step in workflow.steps:
                if step.workflow_id is not None:
                    self.workflow_in_source(
                        step.workflow_id, (*step.at, "workflowId"), "step-workflow-exists"
                    )
                elif step.target_kind == "asyncapi":
                    from .async_rules import check_async_step

                    check_async_step(self.ck, self, step)
                elif step.operation_id is not None or step.operation_path is not None:
                    self.operation_step(workflow, step)
            actions = [a for s in workflow.steps for a in self.ck.actions(s.on_success, "success")]
            actions += [a for s in workflow.steps for a in self.ck.actions(s.on_failure, "failure")]
            for action, at in actions + self.ck.workflow_actions(workflow):
                if isinstance(action, Action) and action.workflow_id:
                    self.workflow_in_source(action.workflow_id, (*at, "workflowId"), "goto-target-exists")

    # -- loading -----------------------------------------------------------------------------------------

    def source(self, name: str) -> Any:
        """The loaded source (OpenAPIDescription or Workspace), or None after reporting why not."""
        if name in self.loaded:
            found = self.loaded[name]
            return None if found is _UNAVAILABLE else found
        entry = self.ck.document.source(name)
        if entry is None:
            return None
        result: Any = _UNAVAILABLE
        if not self.remote and is_remote(entry.url, self.workspace.base):
            self.ck.report(
                "source-unavailable",
                (*entry.at, "url"),
                f"source '{name}' ({entry.url}) is remote and was not fetched; its checks are skipped",
            )
        else:
            try:
                result = self.workspace.source(name)
            except ArazzoError as exc:
                reason = getattr(exc, "message", str(exc))
                if not reason.startswith(f"source '{name}'"):
                    reason = f"source '{name}' cannot be loaded: {reason}"
                self.ck.report("source-unavailable", (*entry.at, "url"), f"{reason}; its checks are skipped")
        self.loaded[name] = result
        return None if result is _UNAVAILABLE else result

    # -- workflows in arazzo sources ------------------------------------------------------------------

    def workflow_in_source(self, text: str, at: Pointer, rule: str) -> None:
        ref = source_workflow(text)
        if ref is None:
            return
        name, workflow_id = ref
        entry = self.ck.document.source(name)
        if entry is None or entry.type != "arazzo":
            return  # reported by source-reference / the target rules
        child = self.source(name)
        if child is None:
            return
        known = [w.workflow_id for w in child.document.workflows]
        legacy = dialect.legacy_workflow(workflow_id)
        if workflow_id in known or (legacy is not None and legacy in known):
            if workflow_id in known:
                self.ck.retract(dialect.WORKFLOW_ID_LEGACY, at)  # a workflow is named so, as written
            return
        self.ck.retract(dialect.WORKFLOW_ID_LEGACY, at)
        hint = did_you_mean(workflow_id, known)
        self.ck.report(rule, at, f"'{text}': source '{name}' has no workflow '{workflow_id}'{hint}")

    # -- operation steps --------------------------------------------------------------------------------

    def operation_step(self, workflow: Workflow, step: Step) -> None:
        target = self.resolve(step)
        if target is None:
            return
        name, description, operation = target
        scheme_names(self.ck, workflow, step, name, description.security_schemes)
        where = (*step.at, "operationPath" if step.operation_path is not None else "operationId")
        label = operation.operation_id or f"{operation.method.upper()} {operation.path}"
        try:
            self.parameters(workflow, step, operation, description, label)
            self.request_body(step, operation, description, label)
            self.outputs(step, operation, description, label)
            check_response_contexts(self.ck, step, operation, description, label)
            self.schema_references(step, operation, description, label)
        except ArazzoError as exc:  # broken $refs inside the operation
            reason = getattr(exc, "message", str(exc))
            message = (
                f"operation '{label}' of source '{name}' cannot be read ({trim(reason)}); "
                "its checks are skipped"
            )
            self.ck.report("source-unavailable", where, message)

    def resolve(self, step: Step) -> tuple[str, Any, Any] | None:
        if step.operation_path is not None:
            return self.by_path(step)
        text = step.operation_id or ""
        at = (*step.at, "operationId")
        match = _QUALIFIED.match(text)
        if match:
            name, op_id = match.groups()
            entry = self.ck.document.source(name)
            if entry is None:
                return None  # source-reference
            if entry.type == "asyncapi":
                message = f"step '{step.step_id}' names AsyncAPI operation '{op_id}': it needs an action"
                message += " (send or receive)"
                self.ck.report("async-action", step.at, message)
                return None
            if entry.type == "arazzo":
                message = (
                    f"operationId '{text}': source '{name}' is an arazzo document, not an OpenAPI description"
                )
                self.ck.report("operation-exists", at, message)
                return None
            description = self.source(name)
            if description is None:
                return None
            operation = description.operation(op_id)
            if operation is None:
                hint = description.suggest(op_id)
                tip = f"; did you mean {', '.join(hint)}?" if hint else ""
                self.ck.report(
                    "operation-exists", at, f"operationId '{op_id}' was not found in source '{name}'{tip}"
                )
                return None
            return name, description, operation
        found, loaded, complete = [], [], True
        names = [n for n in non_arazzo_sources(self.ck) if self.ck.document.source(n).type != "asyncapi"]
        for name in names:
            description = self.source(name)
            if description is None:
                complete = False
                continue
            loaded.append(description)
            operation = description.operation(text)
            if operation is not None:
                found.append((name, description, operation))
        prefixed = dialect.source_prefixed(text, names)
        if found:
            self.ck.retract(dialect.OPERATION_ID_SOURCE_PREFIX, at)  # the operationId as written exists
            if len(found) == 1 and len(names) > 1:
                plain_in_one_source(self.ck, text, found[0][0], at)
            return found[0]
        for name in (s.name for s in self.ck.document.sources if s.type == "asyncapi"):
            described = self.source(name)
            if described is not None and described.operation(text) is not None:
                message = f"step '{step.step_id}' names AsyncAPI operation '{text}': it needs an action"
                message += " (send or receive)"
                self.ck.report("async-action", step.at, message)
                return None
        if prefixed is not None:
            description = self.source(prefixed[0])
            operation = description.operation(prefixed[1]) if description is not None else None
            if operation is not None or description is None:  # found, or assumed when not loaded
                return (prefixed[0], description, operation) if operation is not None else None
            self.ck.retract(dialect.OPERATION_ID_SOURCE_PREFIX, at)
        if complete and names:
            hints = [hint for description in loaded for hint in description.suggest(text)]
            tip = f"; did you mean {', '.join(hints[:3])}?" if hints else ""
            where = f"source '{names[0]}'" if len(names) == 1 else f"sources {', '.join(names)}"
            self.ck.report("operation-exists", at, f"operationId '{text}' was not found in {where}{tip}")
        return None

    def by_path(self, step: Step) -> tuple[str, Any, Any] | None:
        text = step.operation_path or ""
        named = source_named_path(self.ck, text)
        if named is None and operation_path_problem(self.ck, text):
            return None  # reported by operation-path-form
        parts = operation_path_parts(text)
        if named is not None:
            name, fragment = named
        elif parts is not None:
            name, fragment, _ = parts
        else:
            url, _, rest = text.partition("#")
            name = next(s.name for s in self.ck.document.sources if s.url == url)
            fragment = "#" + rest
        if self.ck.document.source(name) is None:
            return None  # source-reference
        description = self.source(name)
        if description is None or not hasattr(description, "operation_at"):
            return None
        operation = description.operation_at(fragment)
        if operation is None:
            message = (
                f"operationPath '{text}' does not point to an operation{path_hint(description, fragment)}"
            )
            self.ck.report("operation-exists", (*step.at, "operationPath"), message)
            return None
        return name, description, operation

    # -- parameters -----------------------------------------------------------------------------------

    def parameters(
        self, workflow: Workflow, step: Step, operation: Any, description: Any, label: str
    ) -> None:
        specs = {param_key(s.name, s.in_): s for s in operation.parameters}
        implicit = implicit_params(description)
        supplied: set[tuple[str, str]] = set()
        inherited = [(p, at) for p, at in self.ck.parameters(workflow.parameters) if p.in_]
        for param, _ in inherited:
            supplied.add(param_key(param.name, param.in_ or ""))
        for param, at in self.ck.parameters(step.parameters):
            if not param.in_:
                continue  # parameter-in
            key = param_key(param.name, param.in_)
            supplied.add(key)
            if key in specs or key in implicit:
                continue
            if param.in_ == "header" and param.name.lower() in _IGNORED_HEADERS:
                continue
            self.ck.report("parameter-unknown", at, unknown_message(param, specs.values(), label))
        where = (*step.at, "parameters") if step.parameters else step.at
        for key, spec in specs.items():
            if not spec.required or key in supplied:
                continue
            if spec.in_ == "header" and spec.name.lower() in _IGNORED_HEADERS:
                continue
            message = (
                f"operation '{label}' requires the {spec.in_} parameter '{spec.name}', which is not supplied"
            )
            blocks = spec.in_ == "path"  # the URL cannot be built; any other is sent without it
            self.ck.report("parameter-required", where, message, key=bool(step.parameters), blocks=blocks)

    # -- request body -----------------------------------------------------------------------------------

    def request_body(self, step: Step, operation: Any, description: Any, label: str) -> None:
        declared = operation.request_body
        body = step.request_body
        if declared is None:
            return
        if body is None or not body.has_payload:
            if declared.get("required") is True:
                at = body.at if body is not None else step.at
                self.ck.report("request-body-required", at, f"operation '{label}' requires a request body")
            return
        content = declared.get("content")
        if not isinstance(content, dict) or isinstance(body.payload, str):
            return
        media = media_type_for(body.content_type, content)
        if media is None or not isinstance(content.get(media), dict) or "schema" not in content[media]:
            return
        unknown = unknown_paths(body.payload, self.ck.is_1_1)
        for replacement in body.replacements:
            try:
                tokens = parse_pointer(replacement.target)
            except ExpressionError:
                return  # not a JSON pointer: the payload is rewritten in ways we do not model
            unknown.add(tuple(int(t) if t.isdigit() else t for t in tokens))
        schema = content[media]["schema"]
        try:
            errors = payload_errors(
                schema, body.payload, unknown, description.version, description.data, description
            )
        except BudgetExceeded as exc:  # PatternStopped, or the run's deadline
            message = f"payload could not be checked against the {media} schema of '{label}': {exc}"
            self.ck.report("payload-schema", (*body.at, "payload"), message)
            return
        for path, message in errors:
            where = (*body.at, "payload", *path)
            self.ck.report(
                "payload-schema", where, f"payload does not match the {media} schema of '{label}': {message}"
            )

    def schema_references(self, step: Step, operation: Any, description: Any, label: str) -> None:
        """Schema references of the operation that validators would refuse (never fetching them)."""
        key = (id(description), operation.pointer)
        if key not in self.refused and self._plain(operation, description):
            self.refused[key] = []
        if key not in self.refused:
            params = [p.schema if p.schema is not None else p.content for p in operation.parameters]
            holders = [operation.request_body, operation.responses, *params]
            self.refused[key] = unresolvable_refs(
                description, [h for h in holders if h is not None], self.refs_below
            )
        where = (*step.at, "operationPath" if step.operation_path is not None else "operationId")
        for message in self.refused[key]:
            text = f"operation '{label}': {message}; --validate-requests and the contract checks fail on it"
            self.ck.report("schema-reference", where, text)

    def _plain(self, operation: Any, description: Any) -> bool:
        """Whether the operation as written reaches only plain pointers into its description (`all_plain`),
        so no reference can be refused and its schemas need not be resolved for this check."""
        data = description.data
        raw, item = operation.raw, operation._path_item
        responses = raw.get("responses")
        if operation.document is not data or item.doc.data is not data or not isinstance(item.value, dict):
            return False  # an operation in another file: the full check
        if responses is not None and not isinstance(responses, dict):
            return False  # malformed: the full check says what is wrong
        if self._all_plain(description) and all(map(walked, parse_pointer(operation.pointer))):
            return True  # the walk of the whole description reached its roots, and found all plain
        roots = [responses, raw.get("requestBody"), raw.get("parameters"), item.value.get("parameters")]
        proven = self.plain_nodes.setdefault(id(description), set())
        return all_plain(data, roots, proven)

    def _all_plain(self, description: Any) -> bool:
        """`all_plain` from the root of a description read through the parsed-source store: worked out
        once for its bytes (a fact of its entry, ~0.13 s for Stripe's 4 MB), then read back; False (the
        walk of each operation's reach) for any other."""
        facts = getattr(description, "facts", None)
        if facts is None:
            return False
        found = self.whole_plain.get(id(description))
        if found is None:
            from .stored_document import engine_stamp

            data = description.data
            found = self.whole_plain[id(description)] = bool(
                facts.get("refs-plain", engine_stamp(), lambda: all_plain(data, [data], set()))
            )
        return found

    # -- outputs ------------------------------------------------------------------------------------------

    def outputs(self, step: Step, operation: Any, description: Any, label: str) -> None:
        pointers = []
        for name, raw in step.outputs.items():
            tokens = body_pointer(raw)
            if tokens:
                pointers.append((name, raw, tokens))
        if not pointers:
            return
        schemas = list(response_schemas(operation.responses))
        if not schemas:
            return
        deref = local_deref(description.data)
        for name, raw, tokens in pointers:
            if not any(pointer_possible(schema, tokens, deref) for schema in schemas):
                message = f"{raw}: no response schema of operation '{label}' has /{'/'.join(tokens)}"
                self.ck.report("output-pointer", (*step.at, "outputs", name), message)
