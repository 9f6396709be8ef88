"""Compiled values: payloads, parameter values and outputs with their expressions parsed once.

A string that is exactly one expression keeps the referenced value's type; a string with embedded expressions
is a template; containers recurse (keys stay literal); with `selectors=True` an Arazzo 1.1 Selector Object
(`{context, selector, type}`) selects from its context. `evaluate` is the per-step hot path: no parsing, no
copies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import ArazzoError, ExpressionError
from .ast import Expression
from .context import Context, Missing
from .parser import near_miss, parse_expression
from .resolver import resolve
from .template import Template, parse_template

SELECTOR_KEYS = frozenset({"context", "selector", "type"})
# Compiling and evaluating recurse once per container level: below this depth as usual; deeper, a
# container must be plain data (checked in a loop), so any document the loader accepts compiles.
MAX_EXPRESSION_DEPTH = 100
# `$` + an expression root of the ABNF: text starting so is meant as an expression, never as a literal.
_ROOT = (
    r"\$(?:url|method|statusCode|request|response|message|inputs|outputs|steps|workflows|"
    r"sourceDescriptions|components|self|dependencies)(?![A-Za-z0-9_])"
)
_BRACED_ROOT = r"\{" + _ROOT  # `_ROOT` and this compiled on first use (`re`'s cache): not at every start


class CompiledValue:
    """Base class; `raw` is the value as written in the document."""

    __slots__ = ("raw",)
    is_constant = False

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def evaluate(self, ctx: Context) -> Any:
        raise NotImplementedError

    def expressions(self) -> Iterator[Expression]:
        return iter(())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.raw!r})"


class ConstantValue(CompiledValue):
    __slots__ = ()
    is_constant = True

    def evaluate(self, ctx: Context) -> Any:
        return self.raw


class ExpressionValue(CompiledValue):
    """A whole-value expression: the result keeps its type."""

    __slots__ = ("expression",)

    def __init__(self, raw: Any, expression: Expression) -> None:
        super().__init__(raw)
        self.expression = expression

    def evaluate(self, ctx: Context) -> Any:
        return resolve(self.expression, ctx)

    def expressions(self) -> Iterator[Expression]:
        yield self.expression


class TemplateValue(CompiledValue):
    __slots__ = ("template",)

    def __init__(self, raw: Any, template: Template) -> None:
        super().__init__(raw)
        self.template = template

    def evaluate(self, ctx: Context) -> Any:
        return self.template.render(ctx)

    def expressions(self) -> Iterator[Expression]:
        return self.template.expressions()


class MappingValue(CompiledValue):
    __slots__ = ("items",)

    def __init__(self, raw: Any, items: tuple[tuple[str, CompiledValue], ...]) -> None:
        super().__init__(raw)
        self.items = items

    def evaluate(self, ctx: Context) -> Any:
        return {key: value.evaluate(ctx) for key, value in self.items}

    def expressions(self) -> Iterator[Expression]:
        for _, value in self.items:
            yield from value.expressions()


class ListValue(CompiledValue):
    __slots__ = ("members",)

    def __init__(self, raw: Any, members: tuple[CompiledValue, ...]) -> None:
        super().__init__(raw)
        self.members = members

    def evaluate(self, ctx: Context) -> Any:
        return [member.evaluate(ctx) for member in self.members]

    def expressions(self) -> Iterator[Expression]:
        for member in self.members:
            yield from member.expressions()


class SelectorValue(CompiledValue):
    """A Selector Object: one match gives its value, several a list, none a `Missing`."""

    __slots__ = ("context", "query", "selector")

    def __init__(self, raw: Any, context: Expression, selector: str, query: Any) -> None:
        super().__init__(raw)
        self.context = context
        self.selector = selector
        self.query = query

    def evaluate(self, ctx: Context) -> Any:
        if ctx.shown is not None:  # computed from the real context value, then masked if it derives
            real = object.__new__(Context)
            real.__dict__.update(ctx.__dict__, shown=None)
            return ctx.shown(self, self.evaluate(real))
        data = resolve(self.context, ctx)
        if isinstance(data, Missing):
            return data
        try:
            nodes = self.query.select(data)
        except ArazzoError as error:
            return Missing(f"selector {self.selector!r} on {self.context.text}: {error}", self.context.text)
        if not nodes:
            reason = f"selector {self.selector!r} matched nothing in {self.context.text}"
            return Missing(reason, self.context.text)
        return nodes[0] if len(nodes) == 1 else list(nodes)

    def expressions(self) -> Iterator[Expression]:
        yield self.context


def compile_value(raw: Any, *, selectors: bool = False, strict: bool = False) -> CompiledValue:
    """Parse every expression in `raw` once; see the module docstring for the rules.

    With `strict`, text that is evidently meant as an expression but does not parse (a whole value such
    as `$inputs.` or `$steps.x`, or an embedded `{$inputs.}`) raises ExpressionError instead of
    becoming literal text that would be sent as is. An error inside a container carries `path`, the
    keys/indexes leading to the member. Expressions may sit at most MAX_EXPRESSION_DEPTH containers deep.
    """
    return _compile(raw, selectors, strict, 0)


def _compile(raw: Any, selectors: bool, strict: bool, depth: int) -> CompiledValue:
    if isinstance(raw, str):
        return _compile_string(raw, strict)
    if isinstance(raw, (Mapping, list)) and depth >= MAX_EXPRESSION_DEPTH:
        return _deep_constant(raw, selectors, strict)
    if isinstance(raw, Mapping):
        if selectors and _is_selector(raw):
            return _compile_selector(raw)
        items = tuple((key, _member(key, value, selectors, strict, depth)) for key, value in raw.items())
        if all(value.is_constant for _, value in items):
            return ConstantValue(raw)
        return MappingValue(raw, items)
    if isinstance(raw, list):
        members = tuple(_member(i, member, selectors, strict, depth) for i, member in enumerate(raw))
        if all(member.is_constant for member in members):
            return ConstantValue(raw)
        return ListValue(raw, members)
    return ConstantValue(raw)


def _deep_constant(raw: Any, selectors: bool, strict: bool) -> ConstantValue:
    """`raw` as literal data; ExpressionError if an expression (or a Selector Object) is inside."""
    pending = [raw]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            found = not _compile_string(node, strict).is_constant
        elif isinstance(node, Mapping):
            found = selectors and _is_selector(node)
            pending.extend(node.values())
        elif isinstance(node, list):
            found = False
            pending.extend(node)
        else:
            found = False
        if found:
            message = f"an expression nested more than {MAX_EXPRESSION_DEPTH} levels deep in a value"
            raise ExpressionError(message, node if isinstance(node, str) else str(node)[:80], 0)
    return ConstantValue(raw)


def _member(key: str | int, raw: Any, selectors: bool, strict: bool, depth: int) -> CompiledValue:
    """Compile a container member; an error gets the member's path (`error.path`) for its location."""
    try:
        return _compile(raw, selectors, strict, depth + 1)
    except ExpressionError as error:
        error.path = (key, *getattr(error, "path", ()))  # type: ignore[attr-defined]
        raise


def _compile_string(raw: str, strict: bool = False) -> CompiledValue:
    whole_error = None
    if raw.startswith("$"):
        try:
            return ExpressionValue(raw, parse_expression(raw))
        except ExpressionError as error:
            whole_error = error  # not a whole expression: maybe a template, maybe plain text such as "$5"
    template = parse_template(raw)
    if strict:
        if template.problems and re.search(_BRACED_ROOT, raw):
            problem = template.problems[0]  # a cached template's: raise a fresh copy
            raise ExpressionError(problem.message, problem.text, problem.position)
        if whole_error is not None and template.is_constant and re.match(_ROOT, raw):
            raise whole_error
    return ConstantValue(raw) if template.is_constant else TemplateValue(raw, template)


class LiteralOutput(ConstantValue):
    """An output whose value holds no expression (`"Done"`): a run returns it as written, and `note`
    (the run's warning) says so. A misspelt expression (`$respons.body#/id`) is never one: it is
    refused (`output_is_misspelt`)."""

    __slots__ = ("note",)

    def __init__(self, raw: Any, note: str) -> None:
        super().__init__(raw)
        self.note = note


def output_is_misspelt(raw: Any) -> bool:
    """Whether a literal output value is text meant as a runtime expression with a misspelt root
    (`$respons.body#/count`): returned as written, it would be a second meaning of the value, never the
    one meant; so a run refuses it while other literal text (`Done`) runs, returned as written."""
    return isinstance(raw, str) and near_miss(raw) is not None


def literal_output_problem(name: str, raw: Any, selectors: bool, *, returned: bool = False) -> str:
    """What is wrong with output `name`, whose value compiled to a constant: an output is a runtime
    expression (or a `{$...}` template, or in 1.1 a Selector Object); anything else is returned as
    written. The value is spelt as JSON (`null`, `"Done"`), as the document's data reads in any client.
    With a did-you-mean for a misspelt expression. `returned`: a run's wording (it is returned)."""
    text = _json(raw)
    shown = text if len(text) <= 80 else text[:77] + "..."
    verb = "is returned" if returned else "would be returned"
    message = f"output '{name}' is not a runtime expression: {shown} {verb} as it is written"
    miss = near_miss(raw) if isinstance(raw, str) else None
    if miss is not None:
        root, fixed = miss
        return message + f"; did you mean {fixed or root!r}?"
    selector = " or a Selector Object {context, selector, type}" if selectors else ""
    return message + f" (an output is an expression such as $response.body#/id{selector})"


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):  # keys that are not text, data nested without end
        return str(value)


def _is_selector(raw: Mapping[str, Any]) -> bool:
    if raw.keys() != SELECTOR_KEYS:
        return False
    kind = raw["type"]
    kind_ok = isinstance(kind, str) or (isinstance(kind, Mapping) and isinstance(kind.get("type"), str))
    return kind_ok and isinstance(raw["context"], str) and isinstance(raw["selector"], str)


def _compile_selector(raw: Mapping[str, Any]) -> SelectorValue:
    # Imported here: the query package is optional for users of plain expressions.
    from ..query import compile_selector

    kind = raw["type"]
    if isinstance(kind, Mapping):
        type_, version = kind["type"], kind.get("version")
    else:
        type_, version = kind, None
    context = parse_expression(raw["context"])
    query = compile_selector(type_, version, raw["selector"])
    return SelectorValue(raw, context, raw["selector"], query)


Path = tuple[str | int, ...]


def iter_missing(value: Any, path: Path = ()) -> Iterator[tuple[Path, Missing]]:
    """Every `Missing` inside an evaluated value, with its path (for warnings and error messages)."""
    if isinstance(value, Missing):
        yield path, value
    elif isinstance(value, dict):
        for key, member in value.items():
            yield from iter_missing(member, (*path, key))
    elif isinstance(value, list):
        for index, member in enumerate(value):
            yield from iter_missing(member, (*path, index))
