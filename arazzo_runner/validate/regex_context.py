"""`regex-context`: a regex criterion whose context is, by the schemas, always an object or an array.

A regex is searched in its context converted to text, and an object or an array becomes its compact JSON
(`{"id":"DEADBEEF"}`): `^[0-9A-F]{8}$` then never matches, though the same pattern on `#/id` would. The
run cannot tell that from a plain miss; the schemas can, where they pin the type down: the response
schemas of the step's operation for `$response.body[#/pointer]` (every JSON response of the operation),
the workflow's inputs schema for `$inputs.name[#/pointer]`. Anything they leave open (no `type`, an
external `$ref`, a member they do not declare, a response that is not JSON) is no finding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import MappingProxyType
from typing import Any

from ..errors import ExpressionError
from ..expressions import InputsRef, ResponseRef, parse_expression
from ..loader.pointer import ABSENT
from ..model import Action, Criterion, Step, Workflow
from .checker import Checker
from .openapi_schemas import local_deref

_MAX_DEPTH = 32  # `$ref`s, members and branches followed; deeper (or a cycle) is unknown
_STRUCTURED = MappingProxyType({"object": "an object", "array": "an array"})
Deref = Callable[[str], Any]


def check_response_contexts(ck: Checker, step: Step, operation: Any, description: Any, label: str) -> None:
    """The step's regex criteria (its successCriteria, its own actions') read `$response.body`."""
    for criterion in _regex_criteria(step):
        context = _context(criterion, ResponseRef)
        if context is None or context.part != "body":
            continue
        tokens = [*context.pointer, *(str(a) for a in context.accessors)]
        found = _response_kinds(operation.responses, tokens, local_deref(description.data))
        _report(ck, criterion, found, f"every JSON response schema of operation '{label}' says so")


def check_input_contexts(ck: Checker, workflow: Workflow) -> None:
    """The workflow's regex criteria that read `$inputs.name`, against its inputs schema."""
    if workflow.inputs is None:
        return
    deref = local_deref(ck.document.raw)
    for step in workflow.steps:
        for criterion in _regex_criteria(step):
            context = _context(criterion, InputsRef)
            if context is None or not context.name:
                continue
            tokens = [context.name, *context.pointer, *(str(a) for a in context.accessors)]
            found = _kinds(workflow.inputs, tokens, deref, 0)
            _report(ck, criterion, found, "the workflow's inputs schema says so")


def _report(ck: Checker, criterion: Criterion, found: set[str] | None, why: str) -> None:
    if not found or not found <= _STRUCTURED.keys():
        return
    kind = " or ".join(_STRUCTURED[k] for k in sorted(found))
    context = str(criterion.context).strip()
    token = "0" if found == {"array"} else "name"  # an item of an array, a member of an object
    inner = context[1:-1].strip() if context.startswith("{") and context.endswith("}") else context
    member = f"{inner}/{token}" if "#" in inner else f"{inner}#/{token}"  # `{$x}#/name` would be text
    message = (
        f"regex {criterion.condition} is searched in {context}, which is {kind} ({why}): it is matched "
        "as its compact JSON text, where anchors and the pattern rarely mean what they say; to match a "
        f"member, make the context that member ({member} or deeper)"
    )
    ck.report("regex-context", (*criterion.at, "context"), message)


def _regex_criteria(step: Step) -> Iterator[Criterion]:
    actions = [a for a in (*step.on_success, *step.on_failure) if isinstance(a, Action)]
    for criterion in (*step.success_criteria, *(c for a in actions for c in a.criteria)):
        if criterion.type == "regex" and isinstance(criterion.context, str):
            yield criterion


def _context(criterion: Criterion, kind: type) -> Any:
    text = str(criterion.context).strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    try:
        expression = parse_expression(text)
    except ExpressionError:  # reported by the syntax rules
        return None
    return expression if isinstance(expression, kind) else None


def _response_kinds(responses: Any, tokens: list[str], deref: Deref) -> set[str] | None:
    """The types the body may have at `tokens`, over every response of the operation; None when a
    response leaves it open (no content, a media type that is not JSON, a schema that does not say)."""
    found: set[str] = set()
    for response in (responses or {}).values():
        content = response.get("content") if isinstance(response, dict) else None
        if not isinstance(content, dict) or not content:
            return None
        for media, entry in content.items():
            schema = entry.get("schema") if isinstance(entry, dict) else None
            if "json" not in str(media).lower() or schema is None:
                return None
            kinds = _kinds(schema, tokens, deref, 0)
            if kinds is None:
                return None
            found |= kinds
    return found or None


def _kinds(schema: Any, tokens: list[str], deref: Deref, depth: int) -> set[str] | None:
    """The JSON types a value at `tokens` inside an instance of `schema` may have; None when unknown."""
    if depth > _MAX_DEPTH or not isinstance(schema, dict):
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = deref(ref)
        return None if target is ABSENT else _kinds(target, tokens, deref, depth + 1)
    branches = [b for k in ("allOf", "anyOf", "oneOf") for b in schema.get(k) or () if isinstance(b, dict)]
    if tokens:
        own = _member(schema, tokens, deref, depth)
        if own is not None:
            return own
    else:
        own = _types(schema)
        if own is not None:
            return own
    if not branches:
        return None
    found: set[str] = set()
    for branch in branches:  # the union: what any branch allows (a superset for allOf: never a false finding)
        kinds = _kinds(branch, tokens, deref, depth + 1)
        if kinds is None:
            return None
        found |= kinds
    return found


def _member(schema: dict[str, Any], tokens: list[str], deref: Deref, depth: int) -> set[str] | None:
    head, rest = tokens[0], tokens[1:]
    properties = schema.get("properties")
    if isinstance(properties, dict) and head in properties:
        return _kinds(properties[head], rest, deref, depth + 1)
    items = schema.get("items")
    if head.isdigit() and isinstance(items, dict):
        return _kinds(items, rest, deref, depth + 1)
    return None


def _types(schema: dict[str, Any]) -> set[str] | None:
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else None
    if not names:
        return None
    found = {"number" if n == "integer" else str(n) for n in names}
    if schema.get("nullable") is True:  # OpenAPI 3.0
        found.add("null")
    return found
