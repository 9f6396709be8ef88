"""The inputs a workflow declares, read off the document: its inputs schema with local `$ref`s followed
(`resolve_schema`), the names it lists, the names its steps read (`$inputs.x`), and the names given
that nobody declares.

Input names nobody declares: `--input modle=gpt` for a workflow that declares `model` is a usage error
with a did-you-mean, not an input silently ignored while the run passes.

The run's inputs go to the selected workflows and to their `dependsOn` workflows (which receive the run's
inputs too), so a name is known when any of them declares it. The check applies only when every one of
them declares its inputs: an inputs schema listing `properties` (directly or in `allOf`/`anyOf`/`oneOf`
branches) that does not open itself to more (`additionalProperties`, `unevaluatedProperties` other than
`false`, or `patternProperties`). A workflow without such a schema accepts any input, so nothing is
unknown. A name the workflow reads (`$inputs.x` anywhere in it or in the components) is known too: an
open schema may leave it undeclared (a validator warning), and the run must still be able to supply it.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ArazzoError, UsageError
from ..loader.pointer import ABSENT, parse_pointer, resolve_pointer
from ..model import Workflow

_BRANCHES = ("allOf", "anyOf", "oneOf")
_MAX_DEPTH = 32
_READ = re.compile(r"\$inputs\.([A-Za-z0-9_\-]+)")


def resolve_schema(schema: Any, document: dict, depth: int = 0) -> Any:
    """Follow a local `$ref` (`#/components/inputs/x`, or an anchor `#x`) to the schema it names; the
    schema itself when the reference leads nowhere in the document (validation then says so)."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < 32:
        ref = schema["$ref"]
        if not ref.startswith("#"):
            return schema
        target = _local(ref[1:], document)
        if target is ABSENT:
            return schema
        schema, depth = target, depth + 1
    return schema


def _local(fragment: str, document: dict) -> Any:
    if fragment and not fragment.startswith("/"):
        from ..sources.schema_registry import anchors_of

        tokens = anchors_of(document).get(fragment)
        return ABSENT if tokens is None else resolve_pointer(document, tokens)
    try:
        return resolve_pointer(document, parse_pointer(fragment))
    except ArazzoError:  # not a valid pointer: validation explains it
        return ABSENT


def declared_input_names(workspace: Any, workflows: list[Workflow]) -> frozenset[str] | None:
    """The input names `workflows` and their dependencies declare; None when one of them accepts any."""
    return _declared(workspace, workflows)[0]


def _declared(workspace: Any, workflows: list[Workflow]) -> tuple[frozenset[str] | None, int]:
    """The declared names (None: any input is accepted) and how many workflows receive the inputs;
    found once per workspace and workflows (a walk of every string the workflows hold)."""
    key = ("declared inputs", *map(id, workflows))  # (`map`: no generator's frame, once a row of a batch)
    return workspace.derived(key, lambda: _find_declared(workspace, workflows))


def _find_declared(workspace: Any, workflows: list[Workflow]) -> tuple[frozenset[str] | None, int]:
    names: set[str] = set()
    pending = [(workspace, w) for w in workflows]
    seen: set[tuple[int, str]] = set()
    while pending:
        current, workflow = pending.pop()
        key = (id(current), workflow.workflow_id)
        if key in seen:
            continue
        seen.add(key)
        found = _schema_names(workflow.inputs, current.document.raw, 0)
        if not found:
            return None, len(seen)
        names.update(found)
        names.update(_read_names(current.document.raw, workflow.at))
        for ref in workflow.depends_on:
            target = current.resolve_workflow(ref, (*workflow.at, "dependsOn"))
            pending.append((target.workspace, target.workflow))
    return frozenset(names), len(seen)


def _read_names(document: dict, at: Any) -> set[str]:
    """The input names the workflow at `at` (and any component it may use) reads with `$inputs.x`."""
    from ..loader.pointer import resolve_pointer

    return inputs_read(resolve_pointer(document, [str(token) for token in at]), document.get("components"))


def inputs_read(*nodes: Any, whole: tuple[str, ...] = ()) -> set[str]:
    """The input names the strings under `nodes` read with `$inputs.x` (expressions and templates).
    `whole`: declared names the character class cuts (`prefs/level`, read whole by the parser in a 1.0.x
    document), longest first: read as written, and what follows `$inputs.` otherwise by the class."""
    names: set[str] = set()
    pending = list(nodes)
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            for name in whole:
                if "$inputs." + name in node:
                    names.add(name)
                    node = node.replace("$inputs." + name, "")
            names.update(_READ.findall(node))
        elif isinstance(node, dict):
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return names


def _schema_names(schema: Any, document: dict, depth: int) -> set[str] | None:
    """Property names of an inputs schema; None (any input accepted) when it lists none or opens itself
    to others."""
    schema = resolve_schema(schema, document)
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return None
    if "patternProperties" in schema:
        return None
    for opener in ("additionalProperties", "unevaluatedProperties"):
        if opener in schema and schema[opener] is not False:
            return None
    properties = schema.get("properties")
    names = set(properties) if isinstance(properties, dict) else set()
    for branch_key in _BRANCHES:
        branches = schema.get(branch_key)
        for branch in branches if isinstance(branches, list) else ():
            found = _schema_names(branch, document, depth + 1)
            if found is None:
                return None
            names |= found
    return names or None


def declared_input(value: Any, workflow: Workflow, document: dict) -> str | None:
    """The input a parameter's compiled value is, when it is a whole `$inputs.<name>` (no pointer) that
    the workflow's inputs schema lists: an optional input the caller may leave out, and the parameter
    with it (`executor/request_values.py` says so only with --verbose). None for anything else: a step
    output, a member of an input, a name the schema does not list (a workflow without a schema that
    lists names declares none to leave out)."""
    from ..expressions.ast import InputsRef

    expression = getattr(value, "expression", None)
    if not isinstance(expression, InputsRef) or expression.pointer or expression.accessors:
        return None
    return expression.name if expression.name in listed_names(workflow.inputs, document) else None


def listed_names(schema: Any, document: dict, depth: int = 0) -> set[str]:
    """Every property name an inputs schema lists (in `allOf`/`anyOf`/`oneOf` branches too), whether or
    not it accepts others: the names it declares."""
    schema = resolve_schema(schema, document)
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return set()
    properties = schema.get("properties")
    names = set(properties) if isinstance(properties, dict) else set()
    for branch_key in _BRANCHES:
        branches = schema.get(branch_key)
        for branch in branches if isinstance(branches, list) else ():
            names |= listed_names(branch, document, depth + 1)
    return names


def grammar_inputs(document: Any) -> set[str]:
    """The input names a document's expressions may read as written, whatever their characters: in a
    1.0.x document (`$inputs.` name is `*( CHAR )`) every name its workflows' inputs schemas list; in
    1.1 none (`input-name = identifier`). For `expressions.names.declared_names`."""
    if not document.version.startswith("1.0"):
        return set()
    names: set[str] = set()
    for workflow in document.workflows:
        if workflow.inputs is not None:
            names |= listed_names(workflow.inputs, document.raw)
    return names


def whole_names(document: Any) -> tuple[str, ...]:
    """The input names of `document` (a model `Document`) its expressions read whole that the character
    class would cut (`prefs/level` in a 1.0.x document: `grammar_inputs`), longest first: for
    `inputs_read`'s `whole`."""
    odd = (n for n in grammar_inputs(document) if isinstance(n, str) and n and _read_prefix(n) != n)
    return tuple(sorted(odd, key=len, reverse=True))


def undeclared_reads(
    raw: Any, schema: Any, document: dict, listed: set[str] | None = None
) -> tuple[tuple[str, str], ...]:
    """(name, did-you-mean text) of each input `raw` (a step's request values) reads with `$inputs.x`
    that `schema` does not list (a dotted name `x.y` it lists declares `x` too): each, when the run
    does not supply it either, fails the step unsent (`request_values.check_input_reads`). A workflow
    whose schema lists no names (or that has none) accepts any input, as `check_input_names` has it:
    nothing there to misspell. `listed`: `listed_names(schema, document)`, when the caller has it (the
    plan compiler asks once per workflow, not once per step)."""
    if listed is None:
        listed = listed_names(schema, document)
    if not listed:  # a schema that lists no names declares none to misspell: any input is taken
        return ()
    prefixes = {name.split(".", 1)[0] for name in listed}  # a dotted name `x.y` declares `x`
    whole = sorted((n for n in listed if _read_prefix(n) != n), key=len, reverse=True)
    read = inputs_read(raw, whole=tuple(whole))  # `$inputs.prefs/level` is `prefs/level`, not `prefs`
    names = sorted(name for name in read if name not in listed and name not in prefixes)
    if not names:
        return ()
    import difflib  # only for a document with such a read

    found = []
    for name in names:
        close = difflib.get_close_matches(name, sorted(listed), n=1, cutoff=0.6)
        found.append((name, f"; did you mean '{close[0]}'?" if close else ""))
    return tuple(found)


def _read_prefix(name: str) -> str:
    found = _READ.match("$inputs." + name)
    return found.group(1) if found else name


def check_input_names(
    workspace: Any, workflows: list[Workflow], inputs: dict[str, Any], where: str = ""
) -> None:
    """A UsageError naming each input no workflow declares, with the closest declared name; `where`
    names a row of --inputs-file."""
    if not inputs:
        return
    names, receivers = _declared(workspace, workflows)
    if names is None or names.issuperset(inputs):  # (every row of a batch asks: no loop in Python)
        return
    unknown = [name for name in inputs if name not in names]
    import difflib  # only on this error path (tests/e2e/test_import_costs.py)

    declared = sorted(names)
    lines = []
    for name in unknown:
        close = difflib.get_close_matches(str(name), declared, n=1, cutoff=0.6)
        hint = f": did you mean '{close[0]}'?" if close else ""
        lines.append(f"unknown input '{name}'{where}{hint}")
    if receivers == 1:
        owners = f"workflow '{workflows[0].workflow_id}' declares"
    else:
        owners = "the workflows that receive the run's inputs (selected, and their dependencies) declare"
    lines.append(f"{owners}: {', '.join(declared)}; nothing was sent")
    raise UsageError("\n".join(lines))
