"""Step targets, action targets and fields, dependsOn, and parameter `in` placement."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...errors import ExpressionError
from ...loader.pointer import escape_token, format_pointer, parse_pointer, resolve_pointer
from ...model import Action, Pointer, Step, Workflow, dialect
from ...workspace import operation_path_parts
from ..checker import Checker, did_you_mean
from ..findings import WARNING, Edit

_SOURCE_PREFIX = re.compile(r"^\{?\$sourceDescriptions\.([A-Za-z0-9_\-]*)")
_SOURCE_WORKFLOW = re.compile(r"^\{?\$sourceDescriptions\.([A-Za-z0-9_\-]+)\.(.+?)\}?$")
_METHOD_PATH = re.compile(r"^(?:([A-Za-z]+)\s+)?(/\S*)$")
_WORKFLOW_STEP = re.compile(r"^\$workflows\.([^.]+)\.steps\.([^.]+)$")
_SOURCE_STEP = re.compile(r"^\$sourceDescriptions\.([^.]+)\.([^.]+)\.steps\.([^.]+)$")


def source_prefix(text: str) -> str | None:
    """The source name of a `$sourceDescriptions.<name>...` reference (also `{$...}`), else None."""
    match = _SOURCE_PREFIX.match(text)
    return match.group(1) if match else None


def source_workflow(text: str) -> tuple[str, str] | None:
    """(source, workflowId) of `$sourceDescriptions.<source>.<workflowId>`, else None (a local id)."""
    match = _SOURCE_WORKFLOW.match(text)
    return (match.group(1), match.group(2)) if match else None


def non_arazzo_sources(ck: Checker) -> list[str]:
    return [s.name for s in ck.document.sources if (s.type or "openapi") != "arazzo"]


def _check_workflow_ref(ck: Checker, rule: str, text: str, at: Pointer, what: str) -> None:
    """A workflowId: a local workflow, or `$sourceDescriptions.<arazzo source>.<id>` (checked when loaded)."""
    ref = source_workflow(text)
    if ref is not None:
        source = ck.document.source(ref[0])
        if source is not None and source.type != "arazzo":
            kind = source.type or "openapi"
            ck.report(rule, at, f"{what} '{text}': source '{ref[0]}' is an {kind} source, not an arazzo one")
        elif source is not None and dialect.legacy_workflow(ref[1]) is not None:
            legacy_workflow_id(ck, text, at)  # confirmed (or withdrawn) once the source is loaded
        return  # an unknown source name is reported by `source-reference`
    if ck.document.workflow(text) is None:
        known = [w.workflow_id for w in ck.document.workflows]
        ck.report(rule, at, f"{what} '{text}' is not a workflow of this document{did_you_mean(text, known)}")


def legacy_workflow_id(ck: Checker, text: str, at: Pointer) -> None:
    """Respect's `$sourceDescriptions.<source>.workflows.<id>`: a warning with the standard form."""
    cut = text.find(".workflows.")
    standard = text[:cut] + text[cut + len(".workflows") :]
    message = (
        f"'{text}' is read as '{standard}': a workflow of an arazzo source is written "
        "$sourceDescriptions.<source>.<workflowId> (Respect's legacy form adds 'workflows.')"
    )
    edit = Edit(format_pointer(at), cut + 1, "workflows.", "")
    ck.report(dialect.WORKFLOW_ID_LEGACY, at, message, fix=[edit])


def source_prefixed_operation(ck: Checker, text: str, source: str, operation_id: str, at: Pointer) -> None:
    """Respect's `operationId: <source>.<operationId>`: a warning with the standard form."""
    standard = dialect.standard_operation_id(source, operation_id)
    message = (
        f"operationId '{text}' is read as '{standard}': an operationId names its source with a runtime "
        "expression (Respect writes <source>.<operationId>)"
    )
    ck.report(
        dialect.OPERATION_ID_SOURCE_PREFIX, at, message, fix=[Edit(format_pointer(at), 0, text, standard)]
    )


def step_target(ck: Checker) -> None:
    fields = ("operationId", "operationPath", "workflowId", *(("channelPath",) if ck.is_1_1 else ()))
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            raw = _raw(ck, step.at)
            given = [f for f in fields if f in raw]
            if "x-operation" in raw:  # Respect's extension: a target too (rule `x-operation`)
                given.append("x-operation")
            if len(given) == 1:
                continue
            if not given:
                message = f"step '{step.step_id}' needs exactly one of {', '.join(fields)}"
            else:
                message = f"step '{step.step_id}' has both {' and '.join(given)}; they are mutually exclusive"
            ck.report("step-target", step.at, message)


def _raw(ck: Checker, at: Pointer) -> dict:
    node = resolve_pointer(ck.document.raw, [str(token) for token in at])
    return node if isinstance(node, dict) else {}


def step_workflow_exists(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            if step.workflow_id is not None:
                at = (*step.at, "workflowId")
                _check_workflow_ref(ck, "step-workflow-exists", step.workflow_id, at, "workflowId")


def _all_actions(ck: Checker, workflow: Workflow) -> Iterator[tuple[Action, Pointer, Step | None]]:
    for step in workflow.steps:
        for action, at in ck.actions(step.on_success, "success") + ck.actions(step.on_failure, "failure"):
            yield action, at, step
    for action, at in ck.workflow_actions(workflow):
        yield action, at, None


def goto_target_exists(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        known = {s.step_id for s in workflow.steps}
        for action, at, _ in _all_actions(ck, workflow):
            if action.type not in ("goto", "retry"):
                continue
            if action.step_id is not None and action.step_id not in known:
                hint = did_you_mean(action.step_id, ck.step_choices(workflow))
                message = (
                    f"{action.type} target stepId '{action.step_id}' is not a step of workflow "
                    f"'{workflow.workflow_id}'{hint}"
                )
                ck.report("goto-target-exists", (*at, "stepId"), message)
            if action.workflow_id is not None:
                at_id = (*at, "workflowId")
                _check_workflow_ref(
                    ck, "goto-target-exists", action.workflow_id, at_id, f"{action.type} target"
                )


def action_target(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        for action, at, _ in _all_actions(ck, workflow):
            both = action.step_id is not None and action.workflow_id is not None
            if action.type == "goto" and action.step_id is None and action.workflow_id is None:
                ck.report("action-target", at, f"goto action '{action.name}' needs a stepId or a workflowId")
            elif action.type in ("goto", "retry") and both:
                message = (
                    f"{action.type} action '{action.name}' has both stepId and workflowId; "
                    "they are mutually exclusive"
                )
                ck.report("action-target", at, message)


def action_fields(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        for action, at, _ in _all_actions(ck, workflow):
            if action.type == "end":
                for field, value in (("stepId", action.step_id), ("workflowId", action.workflow_id)):
                    if value is not None:
                        message = f"'{field}' has no effect on an end action (did you mean type: goto?)"
                        ck.report("action-fields", (*at, field), message, key=True)
            if action.type in ("end", "goto"):
                for name, setting in (("retryAfter", action.retry_after), ("retryLimit", action.retry_limit)):
                    if setting is not None:
                        article = "an" if action.type == "end" else "a"
                        message = (
                            f"'{name}' only applies to retry actions; this is {article} {action.type} action"
                        )
                        ck.report("action-fields", (*at, name), message, key=True)


def depends_on_exists(ck: Checker) -> None:
    document = ck.document
    for workflow in document.workflows:
        for index, entry in enumerate(workflow.depends_on):
            at = (*workflow.at, "dependsOn", index)
            _check_workflow_ref(ck, "depends-on-exists", entry, at, "dependsOn")
        known = {s.step_id for s in workflow.steps}
        for step in workflow.steps:
            for index, entry in enumerate(step.depends_on):
                _check_step_dependency(ck, workflow, known, entry, (*step.at, "dependsOn", index))


def _check_step_dependency(ck: Checker, workflow: Workflow, known: set[str], entry: str, at: Pointer) -> None:
    if not entry.startswith("$"):
        if entry not in known:
            hint = did_you_mean(entry, ck.step_choices(workflow))
            message = f"dependsOn '{entry}' is not a step of workflow '{workflow.workflow_id}'{hint}"
            ck.report("depends-on-exists", at, message)
        return
    match = _WORKFLOW_STEP.match(entry)
    if match:
        other = ck.document.workflow(match.group(1))
        if other is None:
            ck.report("depends-on-exists", at, f"dependsOn '{entry}': no workflow '{match.group(1)}'")
        elif other.step(match.group(2)) is None:
            message = f"dependsOn '{entry}': workflow '{other.workflow_id}' has no step '{match.group(2)}'"
            ck.report("depends-on-exists", at, message)
        return
    match = _SOURCE_STEP.match(entry)
    if match:
        source = ck.document.source(match.group(1))
        if source is not None and source.type != "arazzo":
            ck.report(
                "depends-on-exists",
                at,
                f"dependsOn '{entry}': source '{source.name}' is not an arazzo source",
            )


def depends_on_cycle(ck: Checker) -> None:
    document = ck.document
    graph = {
        w.workflow_id: [
            (d, (*w.at, "dependsOn", i)) for i, d in enumerate(w.depends_on) if document.workflow(d)
        ]
        for w in document.workflows
    }
    _report_cycles(ck, graph, "workflow")
    for workflow in document.workflows:
        steps = {
            s.step_id: [(d, (*s.at, "dependsOn", i)) for i, d in enumerate(s.depends_on) if workflow.step(d)]
            for s in workflow.steps
        }
        _report_cycles(ck, steps, f"step of workflow '{workflow.workflow_id}':")


def _report_cycles(ck: Checker, graph: dict[str, list[tuple[str, Pointer]]], what: str) -> None:
    """Each cycle a depth-first walk meets, once (by its set of nodes). Iterative, with one shared path:
    a chain of 10,000 steps each naming the next was a RecursionError, and a copy of the path per
    level was quadratic memory."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    reported: set[frozenset[str]] = set()
    for root in graph:
        if root in state:
            continue
        path = [root]
        where = {root: 0}  # node -> its index in `path`
        state[root] = 1
        work = [iter(graph.get(root, ()))]
        while work:
            for target, at in work[-1]:
                if state.get(target) == 1:
                    cycle = [*path[where[target] :], target]
                    key = frozenset(cycle)
                    if key not in reported:
                        reported.add(key)
                        ck.report("depends-on-cycle", at, f"dependsOn cycle ({what} {' -> '.join(cycle)})")
                elif state.get(target) is None:
                    state[target] = 1
                    where[target] = len(path)
                    path.append(target)
                    work.append(iter(graph.get(target, ())))
                    break
            else:
                work.pop()
                done = path.pop()
                del where[done]
                state[done] = 2


def operation_path_form(ck: Checker) -> None:
    """`{$sourceDescriptions.<name>.url}#<JSON pointer>` (or a source's literal url before the `#`);
    `$sourceDescriptions.<name>#<JSON pointer>` and Jentic's `<name>#<JSON pointer>` run, with a warning
    that shows the standard form."""
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            text = step.operation_path
            if text is None:
                continue
            at = (*step.at, "operationPath")
            path = format_pointer(at)
            named = source_named_path(ck, text)
            problem = None if named else operation_path_problem(ck, text)
            parts = operation_path_parts(text)
            if problem:
                ck.report("operation-path-form", at, problem)
            elif named is not None:
                name, fragment = named
                standard = dialect.standard_operation_path(name, fragment)
                message = (
                    f"operationPath '{text}' is read as '{standard}': the source description is named "
                    "by a runtime expression (Jentic writes <source>#<JSON pointer>)"
                )
                edit = Edit(path, 0, name, dialect.standard_operation_path(name, ""))
                ck.report(dialect.OPERATION_PATH_SOURCE_NAME, at, message, fix=[edit])
            elif parts is not None and not parts[2]:
                name, fragment, _ = parts
                standard = dialect.standard_operation_path(name, fragment)
                message = (
                    f"operationPath '{text}' names the source description by a runtime expression, which "
                    f"works; the form the specification shows is '{standard}'"
                )
                head = text[: len(text) - len(fragment)]
                edit = Edit(path, 0, head, dialect.standard_operation_path(name, ""))
                ck.report("operation-path-form", at, message, severity=WARNING, fix=[edit])


def source_named_path(ck: Checker, text: str) -> tuple[str, str] | None:
    sources = ck.document.sources
    return dialect.source_named_path(text, [s.name for s in sources], [s.url for s in sources])


def operation_path_problem(ck: Checker, text: str) -> str | None:
    """Why an operationPath is malformed, with the fix when it can be guessed; None when well-formed."""
    parts = operation_path_parts(text)
    if parts is not None:
        fragment = parts[1]
    else:
        url, sep, rest = text.partition("#")
        if not sep or not any(s.url == url for s in ck.document.sources):
            fix = _path_fix(text, [s.name for s in ck.document.sources])
            return f"operationPath '{text}' must be {{$sourceDescriptions.<name>.url}}#<JSON pointer>{fix}"
        fragment = "#" + rest
    try:
        parse_pointer(fragment)
    except ExpressionError as exc:
        return f"operationPath '{text}': the fragment is not a JSON pointer: {exc.message}"
    return None


def _path_fix(text: str, names: list[str]) -> str:
    url, sep, fragment = text.partition("#")
    bare = url.lstrip("{$").removeprefix("sourceDescriptions.").rstrip("}")
    if sep and bare.removesuffix(".url") in names:
        return f"; write '{{$sourceDescriptions.{bare.removesuffix('.url')}.url}}#{fragment}'"
    found = _METHOD_PATH.match(text.strip())
    if found and len(names) == 1:
        method, path = found.group(1), found.group(2)
        tokens = f"/paths/{escape_token(path)}/{method.lower() if method else '<method>'}"
        return f"; e.g. '{{$sourceDescriptions.{names[0]}.url}}#{tokens}'"
    return ""


def plain_operation_id(ck: Checker) -> None:
    """With several sources an operationId names its source; Respect's `<source>.<operationId>` is
    warned about as that form (confirmed or withdrawn when the sources are loaded, see `sources.py`),
    for one source too. A plain operationId that exactly one loaded source has runs: the source checks
    demote this error to a warning with the fix."""
    sources = non_arazzo_sources(ck)
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            op = step.operation_id
            if op is None or source_prefix(op) is not None:
                continue
            at = (*step.at, "operationId")
            prefixed = dialect.source_prefixed(op, sources)
            if prefixed is not None:
                source_prefixed_operation(ck, op, *prefixed, at)
            elif len(sources) >= 2:
                message = (
                    f"operationId '{op}' must name its source when there are several "
                    f"({', '.join(sources)}): write $sourceDescriptions.<name>.{op}"
                )
                ck.report("plain-operation-id", at, message)


def plain_in_one_source(ck: Checker, text: str, name: str, at: Pointer) -> None:
    """A plain operationId with several sources that exactly one of them has (found by the source checks):
    it runs (the meaning is unambiguous), so the `plain-operation-id` error becomes a warning with the fix."""
    ck.retract("plain-operation-id", at)
    standard = dialect.standard_operation_id(name, text)
    message = (
        f"operationId '{text}' is found in source '{name}' only (a run calls it there, with a warning); "
        f"with several sources the specification asks for {standard}"
    )
    fix = [Edit(format_pointer(at), 0, text, standard)]
    ck.report("plain-operation-id", at, message, fix=fix)


def parameter_in(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            to_workflow = step.workflow_id is not None
            for param, at in ck.parameters(step.parameters):
                if to_workflow and param.in_ is not None:
                    message = (
                        f"parameter '{param.name}' of a workflow step maps to a workflow input: "
                        f"remove 'in: {param.in_}'"
                    )
                    ck.report("parameter-in", at, message, blocks=False)  # a run ignores the `in`
                elif not to_workflow and param.in_ is None and param.name:
                    message = (
                        f"parameter '{param.name}' of an operation step needs 'in' "
                        "(path, query, header or cookie)"
                    )
                    ck.report("parameter-in", at, message)
        for action, _, _ in _all_actions(ck, workflow):
            for param, at in ck.parameters(action.parameters):
                if param.in_ is not None:
                    message = (
                        f"action parameter '{param.name}' maps to a workflow input: remove 'in: {param.in_}'"
                    )
                    ck.report("parameter-in", at, message, blocks=False)


RULES = (
    step_target,
    step_workflow_exists,
    goto_target_exists,
    action_target,
    action_fields,
    depends_on_exists,
    depends_on_cycle,
    operation_path_form,
    plain_operation_id,
    parameter_in,
)
