"""Which RFC 9535 queries a streamed body answers (`bounds/json_stream.py`), and how: `$`, then child
segments of one name or one non-negative index each, then one filter segment `[?expr]` whose expression
reads only `@`: literals, comparisons, `&&`, `||`, `!`, the standard functions (`length`, `count`,
`match`, `search`, `value`) and relative queries of child segments (no `$`, no `..`).

Such a filter tests each child of the node the path reaches by that child alone (`@`), so the library's
filter segment, applied to a list of some of the children (`$[?expr]` over `[child, ...]`), selects
exactly the nodes it selects among them in the whole document, in their order; the stream gives it the
children a chunk at a time. The segment is the query's own, compiled and counted as ever
(`jsonpath_counted.py`), so functions and comparisons behave identically. A query that starts with its
filter (`$[?...]`, which the criterion also applies to `[context]`) is not one of these."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jsonpath_rfc9535.filter_expressions import (
    ComparisonExpression,
    FilterExpression,
    FilterExpressionLiteral,
    FunctionExtension,
    LogicalExpression,
    PrefixExpression,
    RelativeFilterQuery,
)
from jsonpath_rfc9535.query import JSONPathQuery
from jsonpath_rfc9535.segments import JSONPathChildSegment
from jsonpath_rfc9535.selectors import FilterSelector, IndexSelector, NameSelector

from .base import QueryError
from .jsonpath import RFC9535Query, _PatternRefused
from .jsonpath_counted import uncounted

FUNCTIONS = frozenset({"length", "count", "match", "search", "value"})

Step = tuple[str | None, int]


def stream_parts(query: Any) -> tuple[tuple[Step, ...], Callable[[Any], list]] | None:
    """The steps down to the filtered node and the filter's `select` (the nodes it selects among the
    children of a list or a dict), or None when `query` is not one of the streamed form (module doc)."""
    if not isinstance(query, RFC9535Query):
        return None
    compiled = query._query
    segments = compiled.segments
    if len(segments) < 2:
        return None
    steps: list[Step] = []
    for segment in segments[:-1]:
        selector = _only(segment)
        if type(selector) is NameSelector:
            steps.append((selector.name, -1))
        elif type(selector) is IndexSelector and selector.index >= 0:
            steps.append((None, selector.index))
        else:
            return None
    last = segments[-1]
    selector = _only(last)
    if type(selector) is not FilterSelector or not _relative(selector.expression):
        return None
    filtered = JSONPathQuery(env=compiled.env, segments=(last,))  # `$[?expr]`, the query's own segment

    def select(children: Any) -> list:
        try:
            return filtered.find(children).values()
        except _PatternRefused as exc:  # (a BaseException): not answered here, the whole query says it
            raise QueryError(str(exc)) from None

    return tuple(steps), select


def _only(segment: Any) -> Any:
    """The one selector of a child segment, the library's (not the counting wrapper); else None."""
    if type(segment) is not JSONPathChildSegment or len(segment.selectors) != 1:
        return None
    return uncounted(segment.selectors[0])


def _relative(expression: Any) -> bool:
    """Whether a filter expression reads only `@` and literals (module doc)."""
    if isinstance(expression, FilterExpression):  # the filter's own wrapper (counted or not)
        return _relative(expression.expression)
    if isinstance(expression, FilterExpressionLiteral):
        return True
    if isinstance(expression, LogicalExpression | ComparisonExpression):
        return _relative(expression.left) and _relative(expression.right)
    if isinstance(expression, PrefixExpression):
        return _relative(expression.right)
    if isinstance(expression, FunctionExtension):
        return expression.name in FUNCTIONS and all(_relative(arg) for arg in expression.args)
    if isinstance(expression, RelativeFilterQuery):  # `@.a[0]`, read directly or by the library
        return all(_only(segment) is not None and type(_only(segment)) in (NameSelector, IndexSelector)
                   for segment in expression.query.segments)  # fmt: skip
    return False
