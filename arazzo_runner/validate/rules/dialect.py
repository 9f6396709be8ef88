"""Forms other tools write (`arazzo_runner.model.dialect`): each runs as the one standard form it stands for;
here each is a warning that names that form, with the edits that write it (`arazzo validate --fix`).

An expression's edits are located in the string that holds it: the expression text is found where it
starts an expression (not inside a longer name or a quoted literal), and each of its rewrites is an edit
at that offset.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from ...expressions import (
    Expression,
    InputsRef,
    OutputsRef,
    StepOutputRef,
    WorkflowRef,
    WorkflowStepOutputRef,
)
from ...loader.pointer import escape_token, format_pointer
from ...model import Pointer
from ...model.dialect import DEPENDENCIES_ROOT, HEADER_PLURAL, STEP_OUTPUT_SHORTHAND
from ..checker import Checker
from ..findings import Edit

# What may not stand right before an expression's `$` (it would be part of a longer word, a quoted
# literal or an escape) or right after its end (the expression would be longer).
_NOT_BEFORE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.'\"\\")
_NOT_AFTER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.#[")

_WHY = MappingProxyType(
    {
        HEADER_PLURAL: "an expression reads a header as '$response.header.<name>' (Jentic writes 'headers')",
        STEP_OUTPUT_SHORTHAND: (
            "a step output is written '$steps.<id>.outputs.<name>' (Jentic's shorthand leaves 'outputs.' out)"
        ),
        DEPENDENCIES_ROOT: (
            "an output of another workflow is written '$workflows.<id>.outputs.<name>' (Jentic writes "
            "'$dependencies.<id>.<name>' for the workflows in dependsOn)"
        ),
    }
)


def occurrences(raw: str, text: str) -> list[int]:
    """Offsets in `raw` where the expression `text` stands as a whole expression."""
    found, start = [], raw.find(text)
    while start != -1:
        end = start + len(text)
        before = raw[start - 1] if start else ""
        after = raw[end] if end < len(raw) else ""
        if before not in _NOT_BEFORE and after not in _NOT_AFTER:
            found.append(start)
        start = raw.find(text, start + 1)
    return found


def expression_edits(
    ck: Checker, at: Pointer, text: str, spans: Iterable[tuple[int, int, str]]
) -> list[Edit]:
    """The edits that replace `text[start:end]` by each span's text, wherever the expression `text`
    stands in the string at `at`; none when it cannot be located (the finding then has no fix)."""
    raw = ck.raw(at)
    if not isinstance(raw, str):
        return []
    path = format_pointer(at)
    spans = list(spans)
    return [
        Edit(path, offset + start, text[start:end], new)
        for offset in occurrences(raw, text)
        for start, end, new in spans
    ]


def check_rewrites(ck: Checker, expression: Expression, at: Pointer) -> None:
    """One warning per dialect form the parser read in `expression`, naming the standard form."""
    for form in dict.fromkeys(r.form for r in expression.rewrites):
        spans = [(r.start, r.end, r.replacement) for r in expression.rewrites if r.form == form]
        message = f"'{expression.text}' is read as '{expression.standard_text}': {_WHY[form]}"
        ck.report(form, at, message, fix=expression_edits(ck, at, expression.text, spans))


def pointer_suffix(tokens: Iterable[str | int]) -> str:
    """`#/a/0` for the tokens a, 0 (each escaped as RFC 6901 asks)."""
    return "#/" + "/".join(escape_token(str(token)) for token in tokens)


def member_split(name: str, names: Iterable[str]) -> tuple[str, list[str]] | None:
    """(the declared name, the member tokens after it) when `name` is not declared but a dotted prefix of
    it is (`env.TOKEN` with `env` declared: the longest declared name wins); None otherwise."""
    known = set(names)
    if not name or name in known:
        return None
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:cut])
        if head in known:
            return head, parts[cut:]
    return None


def check_member_names(
    ck: Checker, expression: Expression, at: Pointer, names: Iterable[str], what: str
) -> None:
    """`$inputs.env.TOKEN` where only `env` is declared reads member TOKEN of it (an extension: the
    ABNF reads one name `env.TOKEN`); the standard form is the pointer `$inputs.env#/TOKEN`."""
    name = getattr(expression, "name", "")
    split = member_split(name, names)
    begin = _name_start(expression)
    text = expression.text
    if split is None or begin is None or text[begin : begin + len(name)] != name:
        return
    head, members = split
    dot, end = begin + len(head), begin + len(name)
    if text.startswith("#", end):
        spans = [(dot, end + 1, pointer_suffix(members))]  # what followed the '#' continues the pointer
    elif expression.accessors:
        if any(isinstance(a, int) and a < 0 for a in expression.accessors):
            return  # `[-1]` has no JSON pointer
        spans = [(dot, len(text), pointer_suffix([*members, *expression.accessors]))]
    else:
        spans = [(dot, end, pointer_suffix(members))]
    start, stop, new = spans[0]
    standard = text[:start] + new + text[stop:]
    message = (
        f"{text} reads member {'.'.join(members)!r} of {what} {head!r} (names may contain dots: the "
        f"longest declared name wins); the standard form is {standard}"
    )
    ck.report("expression-accessor", at, message, fix=expression_edits(ck, at, text, spans))


def _name_start(expression: Expression) -> int | None:
    """Where the input/output name starts in the expression's text."""
    if isinstance(expression, InputsRef):
        return len("$inputs.")
    if isinstance(expression, OutputsRef):
        return len("$outputs.")
    if isinstance(expression, StepOutputRef):
        head = len(f"$steps.{expression.step_id}.")
        return head if expression.rewrites else head + len("outputs.")
    if isinstance(expression, WorkflowRef):
        if expression.rewrites:  # `$dependencies.<id>.`
            return len(f"$dependencies.{expression.workflow_id}.")
        return len(f"$workflows.{expression.workflow_id}.{expression.field}.")
    if isinstance(expression, WorkflowStepOutputRef):
        return len(f"$workflows.{expression.workflow_id}.steps.{expression.step_id}.outputs.")
    return None
