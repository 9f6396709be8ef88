"""Evaluate an expression AST against a `Context`: name lookup, then JSON pointer, then accessors.

Values are returned as they are stored (no copies). Anything that is not there is a `Missing` with a reason,
never None (None is a JSON null that exists).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..bounds.json_stream import MISSING, StreamedJson
from ..loader.pointer import ABSENT, describe_miss, resolve_pointer
from . import ast
from .context import Context, Missing, get_header

Getter = Callable[[str], Any]


def resolve(expr: ast.Expression, ctx: Context) -> Any:
    """The value `expr` refers to in `ctx`, or a `Missing` explaining what is not there."""
    value = _RESOLVERS[type(expr)](expr, ctx)
    if expr.accessors and not isinstance(value, Missing):
        value = walk(value, expr.accessors, expr.text)
    if ctx.unresolved is not None and isinstance(value, Missing):
        value = ctx.unresolved(expr, value)
    if ctx.shown is not None:  # the printed form of a request: what derives from a secret is masked
        return ctx.shown(expr, value)
    return value


# -- accessors and the "longest declared name wins" rule


def step_into(value: Any, key: ast.Accessor) -> Any:
    """One `.member` / `[index]` step; ABSENT when it reaches nothing."""
    if isinstance(value, Mapping):
        if key in value:
            return value[key]
        return value.get(str(key), ABSENT) if isinstance(key, int) else ABSENT
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        if isinstance(key, str):
            if not (key.isdigit() and key.isascii()):
                return ABSENT
            key = int(key)
        return value[key] if -len(value) <= key < len(value) else ABSENT
    return ABSENT


def walk(value: Any, keys: Sequence[ast.Accessor], text: str) -> Any:
    for depth, key in enumerate(keys):
        found = step_into(value, key)
        if found is ABSENT:
            where = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys[:depth])
            at = f" at {where}" if where else ""
            return Missing(f"{text}: {_why_not(value, key)}{at}", text)
        value = found
    return value


def _why_not(value: Any, key: ast.Accessor) -> str:
    if isinstance(value, Mapping):
        return f"no member {key!r}"
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        if isinstance(key, int) or key.isdigit():
            return f"index {key} is out of range (length {len(value)})"
        return f"{key!r} is not an array index"
    kind = "null" if value is None else type(value).__name__
    return f"cannot take {key!r} of a {kind}"


def lookup(
    get: Getter, name: str, keys: Callable[[], Iterable[str]] | None = None
) -> tuple[Any, tuple[str, ...]]:
    """Find `name`; if absent and dotted, the longest declared prefix wins and the rest become members.

    `keys` lists the names `get` can find (as `get` compares them): only prefixes no longer than the
    longest of them are tried, so a long dotted name (`$inputs.a.a.a...`) costs linear time, not
    quadratic.
    """
    value = get(name)
    if value is not ABSENT or "." not in name:
        return value, ()
    longest = max((len(k) for k in keys() if isinstance(k, str)), default=0) if keys else len(name)
    end = name.rfind(".", 0, longest + 1)
    while end > 0:
        value = get(name[:end])
        if value is not ABSENT:
            return value, tuple(name[end + 1 :].split("."))
        end = name.rfind(".", 0, end)
    return ABSENT, ()


def _named(mapping: Mapping[str, Any], name: str, pointer: tuple[str, ...], text: str, missing: str) -> Any:
    if name == "":  # the whole collection (an extension, see the parser)
        return _pointer(dict(mapping), pointer, text)
    value, members = lookup(lambda key: mapping.get(key, ABSENT), name, mapping.keys)
    if value is ABSENT:
        return Missing(missing, text)
    if members:
        value = walk(value, members, text)
        if isinstance(value, Missing):
            return value
    return _pointer(value, pointer, text)


def _pointer(value: Any, tokens: tuple[str, ...], text: str) -> Any:
    if not tokens:
        return value
    found = resolve_pointer(value, tokens)
    if found is ABSENT:
        return Missing(f"{text}: {describe_miss(value, tokens)}", text)
    return found


# -- one resolver per node kind


def _inputs(expr: ast.InputsRef, ctx: Context) -> Any:
    inputs, name = ctx.inputs, expr.name
    value = inputs.get(name, ABSENT) if name else ABSENT
    if value is not ABSENT:  # the name as written (the usual case): `_named`'s first try, no message made
        return _pointer(value, expr.pointer, expr.text)
    return _named(inputs, name, expr.pointer, expr.text, f"input {name!r} was not provided")


def _outputs(expr: ast.OutputsRef, ctx: Context) -> Any:
    missing = f"workflow output {expr.name!r} has not been set"
    return _named(ctx.outputs, expr.name, expr.pointer, expr.text, missing)


def _step_output(expr: ast.StepOutputRef, ctx: Context) -> Any:
    outputs = ctx.steps.get(expr.step_id)
    if outputs is None:
        return Missing(f"step {expr.step_id!r} has not run (no outputs recorded)", expr.text)
    name = expr.name
    value = outputs.get(name, ABSENT) if name else ABSENT
    if value is not ABSENT:  # as `_inputs`: found as written, no message made
        return _pointer(value, expr.pointer, expr.text)
    missing = f"step {expr.step_id!r} has no output {name!r}"
    return _named(outputs, name, expr.pointer, expr.text, missing)


def _workflow(expr: ast.WorkflowRef, ctx: Context) -> Any:
    workflow = ctx.workflows.get(expr.workflow_id)
    if workflow is None:
        return Missing(f"workflow {expr.workflow_id!r} has not run", expr.text)
    if isinstance(workflow, Mapping):
        values = workflow.get(expr.field)
    else:
        values = getattr(workflow, expr.field, None)
    noun = "input" if expr.field == "inputs" else "output"
    missing = f"workflow {expr.workflow_id!r} has no {noun} {expr.name!r}"
    return _named(values or {}, expr.name, expr.pointer, expr.text, missing)


def _workflow_step_output(expr: ast.WorkflowStepOutputRef, ctx: Context) -> Any:
    workflow = ctx.workflows.get(expr.workflow_id)
    if workflow is None:
        return Missing(f"workflow {expr.workflow_id!r} has not run", expr.text)
    steps = workflow.get("steps") if isinstance(workflow, Mapping) else getattr(workflow, "steps", None)
    outputs = (steps or {}).get(expr.step_id)
    if outputs is None:
        reason = f"step {expr.step_id!r} of workflow {expr.workflow_id!r} has not run (no outputs recorded)"
        return Missing(reason, expr.text)
    missing = f"step {expr.step_id!r} of workflow {expr.workflow_id!r} has no output {expr.name!r}"
    return _named(outputs, expr.name, expr.pointer, expr.text, missing)


def _source(expr: ast.SourceRef, ctx: Context) -> Any:
    view = ctx.sources.get(expr.source)
    if view is None:
        return Missing(f"there is no source description named {expr.source!r}", expr.text)
    # Spec priority: an operationId/workflowId first, then a field of the Source Description Object.
    found = view.lookup(expr.reference)
    if found is not None and found is not ABSENT and not isinstance(found, Missing):
        return found
    fields = view.fields
    if expr.reference in fields:
        return fields[expr.reference]
    reason = f"source description {expr.source!r} has no operation, workflow or field {expr.reference!r}"
    return Missing(reason, expr.text)


def _component(expr: ast.ComponentRef, ctx: Context) -> Any:
    entries = ctx.components.get(expr.kind) or {}
    missing = f"no component {expr.kind}.{expr.name} is defined"
    return _named(entries, expr.name, (), expr.text, missing)


_NOT_YET = {
    "request": "no request has been made yet",
    "response": "no response has been received yet",
    "message": "no message is available",
}
_PART_NOUNS = {"header": "header", "query": "query parameter", "path": "path parameter"}


def _message_source(expr: ast.MessageSourceRef, ctx: Context) -> Any:
    view = getattr(ctx, expr.root)
    if view is None:
        return Missing(_NOT_YET[expr.root], expr.text)
    part = expr.part
    if part in ("body", "payload"):
        body = view.body
        if isinstance(body, Missing):  # a body not kept (above the size limit): say why
            return Missing(f"{expr.text}: {body.reason}", expr.text)
        if type(body) is StreamedJson:  # read as a stream: what its pass found, else the document
            found = body.at(expr.pointer) if expr.pointer else MISSING
            if found is not MISSING:
                return found
            body = body.tree()
        return _pointer(body, expr.pointer, expr.text)
    name = expr.name or ""
    if part == "header":
        headers = view.headers
        # get_header compares case-folded names, which may be longer than the names themselves
        folded = lambda: map(str.casefold, headers)  # noqa: E731
        value, members = lookup(lambda key: get_header(headers, key, ABSENT), name, folded)
    else:
        mapping = view.query if part == "query" else view.path
        value, members = lookup(lambda key: mapping.get(key, ABSENT), name, mapping.keys)
    if value is ABSENT:
        withheld = _withheld(view, part, name)
        if withheld:
            reason = f"the {expr.root}'s {_PART_NOUNS[part]} {name!r} is {withheld}"
            return Missing(reason, expr.text, withheld=True)
        return Missing(f"the {expr.root} has no {_PART_NOUNS[part]} {name!r}", expr.text)
    return walk(value, members, expr.text) if members else value


def streamed_body(expr: ast.Expression, ctx: Context) -> StreamedJson | None:
    """The body `expr` reads whole when it is `$response.body` read as a stream (`bounds/json_stream.py`):
    for what its pass found; None otherwise (`resolve` then gives the value, the document included)."""
    if type(expr) is not ast.ResponseRef or expr.pointer or expr.accessors or ctx.shown is not None:
        return None
    body = ctx.response.body if ctx.response is not None else None
    return body if type(body) is StreamedJson and expr.part in ("body", "payload") else None


def _withheld(view: Any, part: str, name: str) -> str | None:
    """Why a header/query value the message carries is not shown (`withheld`, of a request: the
    credentials the engine added), for `name` or a dotted prefix of it; None when nothing is withheld."""
    withheld = getattr(view, "withheld", None)
    if not withheld:
        return None
    key = name.casefold() if part == "header" else name
    while True:
        why = withheld.get((part, key))
        if why is not None or "." not in key:
            return why
        key = key.rpartition(".")[0]


def _scalar(attr: str, reason: str) -> Callable[[ast.Expression, Context], Any]:
    def resolve_scalar(expr: ast.Expression, ctx: Context) -> Any:
        value = getattr(ctx, attr)
        return Missing(reason, expr.text) if value is None else value

    return resolve_scalar


_RESOLVERS: dict[type, Callable[[Any, Context], Any]] = {
    ast.InputsRef: _inputs,
    ast.OutputsRef: _outputs,
    ast.StepOutputRef: _step_output,
    ast.WorkflowRef: _workflow,
    ast.WorkflowStepOutputRef: _workflow_step_output,
    ast.SourceRef: _source,
    ast.ComponentRef: _component,
    ast.RequestRef: _message_source,
    ast.ResponseRef: _message_source,
    ast.MessageRef: _message_source,
    ast.UrlRef: _scalar("url", "the request URL is not known yet"),
    ast.MethodRef: _scalar("method", "the request method is not known yet"),
    ast.StatusCodeRef: _scalar("status_code", "no response has been received yet"),
    ast.SelfRef: _scalar("self_uri", "the document declares no $self URI"),
}
