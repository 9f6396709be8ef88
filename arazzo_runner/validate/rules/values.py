"""Runtime expressions in values: syntax, the bare form, accessors, Selector Objects, replacement targets."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...errors import ExpressionError
from ...expressions import Embedded, Expression, parse_expression, parse_expression_prefix, parse_template
from ...expressions.parser import DIALECT_ROOTS, ROOTS, near_miss
from ...loader.pointer import format_pointer, parse_pointer
from ...model import Pointer, RequestBody
from ...spelling import json_spelling
from ..checker import Checker
from ..findings import Edit
from .dialect import expression_edits

Found = list[tuple[Expression, Pointer]]

_ROOTS = tuple(sorted((*ROOTS, *DIALECT_ROOTS), key=len, reverse=True))
_KNOWN_ROOT = re.compile(r"\$(" + "|".join(_ROOTS) + r")(?![A-Za-z0-9_])")
SELECTOR_KEYS = frozenset({"context", "selector", "type"})


def scan_value(ck: Checker, raw: Any, at: Pointer, *, typos: bool = True) -> Found:
    """Report syntax problems in a value and return its expressions, each with the pointer of its string.
    `typos`: warn about text that is a misspelt expression (`$respons.body`); outputs report it as an
    error of their own (`output-value`)."""
    found: Found = []
    _scan(ck, raw, at, found, typos)
    return found


def _scan(ck: Checker, raw: Any, at: Pointer, found: Found, typos: bool) -> None:
    if isinstance(raw, str):
        _scan_string(ck, raw, at, found, typos)
    elif isinstance(raw, dict):
        if ck.is_1_1 and raw.keys() == SELECTOR_KEYS:
            _scan_selector(ck, raw, at, found)
            return
        if _unquoted_template(ck, raw, at):
            return
        for key, value in raw.items():
            _scan(ck, value, (*at, key), found, typos)
    elif isinstance(raw, list):
        for index, value in enumerate(raw):
            _scan(ck, value, (*at, index), found, typos)


def _scan_string(ck: Checker, text: str, at: Pointer, found: Found, typos: bool) -> None:
    if text.startswith("$"):
        try:
            found.append((parse_expression(text), at))
            return
        except ExpressionError as exc:
            whole_error = exc
        if typos and not _KNOWN_ROOT.match(text):
            _report_typo(ck, text, at)
    else:
        whole_error = None
    template = parse_template(text)
    starts_bare = bool(template.parts) and isinstance(template.parts[0], Embedded)
    if whole_error is not None and not starts_bare and _KNOWN_ROOT.match(text):
        message = (
            f"invalid runtime expression: {whole_error.message} in {text!r} at offset {whole_error.position}"
        )
        ck.report("expression-syntax", at, message + _embed_hint(text))
        return
    for problem in template.problems:
        ck.report("expression-syntax", at, f"invalid embedded expression: {problem}")
    bare: list[tuple[int, int]] = []
    for part in template.parts:
        if isinstance(part, Embedded):
            found.append((part.expression, at))
            if not part.braced:
                bare.append((part.start, part.end))
    loose = []
    for start, end in _unsubstituted(template.parts):
        try:
            parse_expression_prefix(text, start)
        except ExpressionError as exc:
            message = f"invalid runtime expression in {text!r} at offset {exc.position}: {exc.message}"
            ck.report("expression-syntax", at, message)
            continue
        loose.append((start, end))
    if bare or loose:
        _report_bare(ck, text, at, bare, loose)


def _unquoted_template(ck: Checker, raw: dict, at: Pointer) -> bool:
    """`value: {$inputs.id}` unquoted is YAML for the mapping {"$inputs.id": null}, which would be sent
    as that mapping: an error, fixed by quoting what was written."""
    if len(raw) != 1 or ck.loaded.format != "yaml":
        return False
    ((key, value),) = raw.items()
    if value is not None or not key.startswith("$"):
        return False
    try:
        parse_expression(key.strip())
    except ExpressionError:
        return False
    text = "{" + key.strip() + "}"
    mapping = json_spelling({key.strip(): None})
    message = (
        f"YAML reads the unquoted {text} as a mapping ({mapping}), which would be sent as "
        f"that mapping; quote the template: '{text}' (or write the expression {key.strip()} alone)"
    )
    ck.report("unquoted-template", at, message, fix=[Edit(format_pointer(at), 0, "", text, node=True)])
    return True


def _report_typo(ck: Checker, text: str, at: Pointer) -> None:
    """`$respons.body#/id` in a parameter or payload is sent as that text: warn with the likely fix."""
    miss = near_miss(text)
    if miss is not None:
        root, fixed = miss
        message = f"{text!r} is not a runtime expression and is sent as written"
        ck.report("expression-typo", at, f"{message}; did you mean {fixed or root!r}?")


def _embed_hint(text: str) -> str:
    """When an expression is followed by text ("$inputs.id/details"), suggest embedding it."""
    try:
        _, end = parse_expression_prefix(text, 0)
    except ExpressionError:
        return ""
    return f"; to embed the expression in text, write {'{' + text[:end] + '}' + text[end:]!r}"


def _unsubstituted(parts: tuple[Any, ...]) -> Iterator[tuple[int, int]]:
    """Spans of `$root...` text inside literal parts: it looks like an expression but is sent as is."""
    offset = 0
    for part in parts:
        if isinstance(part, Embedded):
            offset = part.end
            continue
        for match in _KNOWN_ROOT.finditer(part):
            start = offset + match.start()
            if start > 0 and part[match.start() - 1 : match.start()] == "{":
                continue  # a `{$...}` that does not parse: reported as expression-syntax
            yield start, start + len(match.group(0))
        offset += len(part)


def _report_bare(
    ck: Checker, text: str, at: Pointer, bare: list[tuple[int, int]], loose: list[tuple[int, int]]
) -> None:
    spans = sorted(bare + [_extend(text, start, end) for start, end in loose])
    fixed, last = [], 0
    for start, end in spans:
        fixed.append(text[last:start] + "{" + text[start:end] + "}")
        last = end
    fixed.append(text[last:])
    fix = "".join(fixed)
    names = ", ".join(text[s:e] for s, e in spans)
    if loose:
        message = f"{names} in {text!r} is not substituted as written; write {fix!r}"
    else:
        message = f"bare runtime expression {names} in {text!r}; write {fix!r}"
    # Only the bare form is fixed: it is substituted already, so braces change nothing but the spelling;
    # text that is not substituted (glued to other text) would change meaning: the message suggests it.
    path = format_pointer(at)
    edits = [] if loose else [Edit(path, at_, "", b) for s, e in spans for at_, b in ((s, "{"), (e, "}"))]
    ck.report("bare-expression", at, message, fix=edits)


def _extend(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole expression starting at `start` (at least the root already matched)."""
    try:
        _, stop = parse_expression_prefix(text, start)
    except ExpressionError:
        return start, end
    return start, max(stop, end)


def _scan_selector(ck: Checker, raw: dict[str, Any], at: Pointer, found: Found) -> None:
    context = raw["context"]
    if isinstance(context, str):
        try:
            found.append((parse_expression(context.strip()), (*at, "context")))
        except ExpressionError as exc:
            ck.report("expression-syntax", (*at, "context"), f"invalid selector context: {exc}")
    check_selector(ck, raw.get("type"), raw.get("selector"), (*at, "selector"))


def check_selector(ck: Checker, kind: Any, selector: Any, at: Pointer) -> None:
    """A selector of `kind` (a type name or an Expression Type Object) parses."""
    if isinstance(kind, dict):
        type_, version = kind.get("type"), kind.get("version")
    else:
        type_, version = kind, None
    if not isinstance(type_, str) or not isinstance(selector, str):
        return  # the schema check reports the shape
    try:
        from ...query import compile_selector, resolve_version  # only for a document with selectors

        resolve_version(type_, version)
        compile_selector(type_, version, selector)
    except ExpressionError as exc:
        ck.report("selector-syntax", at, f"invalid {type_} selector {selector!r}: {exc.message}")


def check_replacement_targets(ck: Checker) -> None:
    for workflow in ck.document.workflows:
        for step in workflow.steps:
            body = step.request_body
            if body is not None:
                for replacement in body.replacements:
                    _check_target(ck, body, replacement.target, replacement.target_type, replacement.at)


def _check_target(ck: Checker, body: RequestBody, target: str, target_type: Any, at: Pointer) -> None:
    if not target:
        return
    where = (*at, "target")
    if target_type is not None:
        check_selector(ck, target_type, target, where)
        return
    media = (body.content_type or "").lower()
    payload = body.payload if body.has_payload else None
    is_xml = "xml" in media or (isinstance(payload, str) and payload.lstrip().startswith("<"))
    if is_xml:
        check_selector(ck, "xpath", target, where)
        return
    try:
        parse_pointer(target)
    except ExpressionError as exc:
        ck.report(
            "selector-syntax", where, f"replacement target {target!r} is not a JSON pointer: {exc.message}"
        )


def check_accessors(ck: Checker, expression: Expression, at: Pointer) -> None:
    if not expression.accessors:
        return
    base = _base_text(expression)
    pointer = "/".join(str(a).replace("~", "~0").replace("/", "~1") for a in expression.accessors)
    fix: list = []
    if base is not None and not getattr(expression, "pointer", ()):
        standard = f"{base}#/{pointer}"
        message = f"the standard form is {standard}"
        if not any(isinstance(a, int) and a < 0 for a in expression.accessors):  # no pointer for [-1]
            text = expression.text
            fix = expression_edits(ck, at, text, [(len(base), len(text), f"#/{pointer}")])
    else:
        message = "the standard form is a JSON pointer (#/...)"
    message = f"{expression.text} uses non-standard accessors after the expression; {message}"
    ck.report("expression-accessor", at, message, fix=fix)


def _base_text(expression: Expression) -> str | None:
    text = expression.text
    for index in range(len(text), 0, -1):
        head = text[:index]
        try:
            node = parse_expression(head)
        except ExpressionError:
            continue
        if not node.accessors:
            return head
    return None
