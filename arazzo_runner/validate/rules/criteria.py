"""Criterion Objects: type and version, context, condition syntax per type, non-standard forms."""

from __future__ import annotations

import re

from ...criteria import compile_criterion, condition_type
from ...errors import ExpressionError
from ...expressions import Expression, parse_expression
from ...loader.pointer import format_pointer
from ...model import Criterion
from ..checker import Checker
from ..findings import Edit
from .values import Found

_EMBEDDED = re.compile(r"\{\$[^{}]*\}")  # a `{$...}` expression of a condition, for `_regex_literal`
_SYNTAX_RULES = {
    "simple": "condition-syntax",
    "regex": "regex-syntax",
    "jsonpath": "jsonpath-syntax",
    "xpath": "xpath-syntax",
}


def check_criterion(ck: Checker, criterion: Criterion) -> Found:
    """Report the criterion's problems; return the expressions it reads (for reference checks)."""
    at = criterion.at
    found: Found = []
    try:
        kind, _ = condition_type(criterion.type)
    except ExpressionError as exc:
        ck.report("criterion-type", (*at, "type"), exc.message)
        return found
    context = criterion.context.strip() if isinstance(criterion.context, str) else ""
    if criterion.type is not None and not context:
        needs = "" if kind == "simple" else f" (a {kind} condition is applied to it, e.g. $response.body)"
        ck.report("criterion-context", at, f"a criterion with a 'type' needs a 'context'{needs}")
        if kind != "simple":
            return found
    context_ok = True
    if context:
        expression = _context(ck, context, criterion)
        context_ok = expression is not None
        if expression is not None:
            found.append((expression, (*at, "context")))
    if not context_ok and kind != "simple":
        return found
    try:
        compiled = compile_criterion(
            criterion.condition, criterion.type, context if kind != "simple" else None
        )
    except ExpressionError as exc:
        message = (
            f"invalid {kind} condition: {exc.message} in {criterion.condition!r} at offset {exc.position}"
        )
        ck.report(_SYNTAX_RULES[kind], (*at, "condition"), message)
        return found
    for note in compiled.notes:
        ck.report("condition-nonstandard", (*at, "condition"), note)
    if kind == "regex":
        _regex_literal(ck, criterion, compiled.has_embedded)
    if getattr(compiled, "comparison_form", False):  # a JSONPath criterion (its module loaded only then)
        ck.report("jsonpath-comparison-form", (*at, "condition"), _comparison_message(criterion.condition))
    read = list(compiled.expressions())
    if kind != "simple":
        read = read[1:]  # a context criterion yields its context first: already collected above
    found.extend((expression, (*at, "condition")) for expression in read)
    return found


def _regex_literal(ck: Checker, criterion: Criterion, embedded: bool) -> None:
    """A condition written as a JavaScript literal. With `{$...}` expressions in it (`/^{$inputs.x}$/i`)
    the slashes and flags are the document's text all the same: each expression is read as plain text
    (never regex syntax) to decide, and the template itself is told and unwrapped."""
    from ...criteria.regex import delimited, unwrapped  # the regex module: only for a regex criterion

    text = criterion.condition
    probe = _EMBEDDED.sub("x", text) if embedded else text
    hint = delimited(text) if delimited(probe) is not None else None
    if hint is None:
        return
    message = f"regex {text} is written as a JavaScript regex literal: {hint}"
    pattern = unwrapped(text) if unwrapped(probe) is not None else None
    at = (*criterion.at, "condition")
    fix = [] if pattern is None else [Edit(format_pointer(at), 0, criterion.condition, pattern)]
    ck.report("regex-literal", at, message, fix=fix)


def _context(ck: Checker, text: str, criterion: Criterion) -> Expression | None:
    inner = text[1:-1].strip() if text.startswith("{") and text.endswith("}") else text
    try:
        return parse_expression(inner)
    except ExpressionError as exc:
        ck.report("expression-syntax", (*criterion.at, "context"), f"invalid criterion context: {exc}")
        return None


def _comparison_message(condition: str) -> str:
    from ...criteria.comparison_form import split_comparison

    split = split_comparison(condition)
    base = f"{condition} compares a JSONPath query with a literal, which RFC 9535 does not define"
    if split is None:
        return base
    left, op, right, _ = split
    if not left.startswith("$"):
        return base
    return f"{base}; write the filter $[?@{left[1:]} {op} {right}]"
