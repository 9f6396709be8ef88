"""RFC 9535 queries that count their own work, so that `budget.metered` bounds them without a hook.

Why: under `budget.guarded` a profile hook ran Python code at every call and return of the library,
roughly tripling its cost (83% of a step's CPU for a filter over a 20 MB body). Here a compiled query
is rebuilt, once, with its work counted where the library does it (`current_meter()`, a look at the
clock every CHECK_EVERY counts, BudgetExceeded raised from the count):

* every selector call (`_Counted`): one per node a segment visits, descendants included, and for a
  wildcard or a slice as many as the array or object it selects from has members;
* every filter candidate (`_CountedFilter`), whatever its expression holds;
* the queries embedded in filters are rebuilt the same way, so `$..*[?$..*]` counts its inner work.

What is left uncounted between two counts is bounded by the body, not by the query: one `==` of two
of its values (C code), one node's location, one `match()`/`search()` (which takes the time left as
its own timeout). A singular relative query of names and indexes in a filter (`@.price`,
`@.owner.id`, `@[0]`) is read directly (`_Singular`): the library builds a query, a node and a
generator per segment for each candidate, ~60% of a filter's cost; the nodes it returns are the
library's, so the filter's meaning is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jsonpath_rfc9535.filter_expressions import (
    ComparisonExpression,
    FilterContext,
    FilterExpression,
    FunctionExtension,
    LogicalExpression,
    PrefixExpression,
    RelativeFilterQuery,
    RootFilterQuery,
    _is_truthy,
)
from jsonpath_rfc9535.node import JSONPathNode, JSONPathNodeList
from jsonpath_rfc9535.query import JSONPathQuery
from jsonpath_rfc9535.segments import JSONPathChildSegment
from jsonpath_rfc9535.selectors import (
    FilterSelector,
    IndexSelector,
    JSONPathSelector,
    NameSelector,
    SliceSelector,
    WildcardSelector,
)

from ..bounds.budget import current_meter


def counted(query: JSONPathQuery) -> JSONPathQuery:
    """`query` (just compiled: owned by the caller) with its work counted; changed in place."""
    for segment in query.segments:
        segment.selectors = tuple(_selector(selector) for selector in segment.selectors)
    return query


def uncounted(selector: JSONPathSelector) -> JSONPathSelector:
    """The library's selector behind a counted one."""
    return selector.inner if isinstance(selector, _Counted) else selector


def _selector(selector: JSONPathSelector) -> JSONPathSelector:
    if isinstance(selector, FilterSelector):
        inner = selector.expression
        selector.expression = _CountedFilter(inner.token, _expression(inner.expression))
    return _Counted(selector)


def _expression(expression: Any) -> Any:
    """The filter expression with its embedded queries counted (and singular ones read directly)."""
    if isinstance(expression, RelativeFilterQuery):
        steps = _singular_steps(expression.query)
        if steps is not None:
            return _Singular(expression.token, expression.query, steps)
        expression.query = counted(expression.query)
    elif isinstance(expression, RootFilterQuery):
        expression.query = counted(expression.query)
    elif isinstance(expression, FunctionExtension):
        expression.args = [_expression(arg) for arg in expression.args]
    elif isinstance(expression, LogicalExpression | ComparisonExpression):
        expression.left, expression.right = _expression(expression.left), _expression(expression.right)
    elif isinstance(expression, PrefixExpression):
        expression.right = _expression(expression.right)
    elif isinstance(expression, FilterExpression):
        expression.expression = _expression(expression.expression)
    return expression  # a literal


def _singular_steps(query: JSONPathQuery) -> tuple[str | int, ...] | None:
    """The names and indexes of a query made only of child segments of one name or index selector."""
    steps: list[str | int] = []
    for segment in query.segments:
        if type(segment) is not JSONPathChildSegment or len(segment.selectors) != 1:
            return None
        selector = segment.selectors[0]
        if type(selector) is NameSelector:
            steps.append(selector.name)
        elif type(selector) is IndexSelector:
            steps.append(selector.index)
        else:
            return None
    return tuple(steps)


class _Counted(JSONPathSelector):
    """A selector whose calls are counted: one each, or for a wildcard or a slice the size of the array
    or object it selects from (charged before it selects: no layer between the library and the nodes
    it yields). A filter counts its candidates itself (`_CountedFilter`)."""

    __slots__ = ("bulk", "inner")

    def __init__(self, inner: JSONPathSelector) -> None:
        super().__init__(env=inner.env, token=inner.token)
        self.inner = inner
        self.bulk = isinstance(inner, WildcardSelector | SliceSelector)

    def resolve(self, node: JSONPathNode) -> Iterable[JSONPathNode]:
        meter = current_meter()
        value = node.value
        if self.bulk and isinstance(value, list | dict):
            meter.count -= len(value) + 1
        else:
            meter.count -= 1
        if meter.count <= 0:
            meter.look()
        return self.inner.resolve(node)

    def __str__(self) -> str:
        return str(self.inner)

    def __eq__(self, other: object) -> bool:
        return self.inner == uncounted(other) if isinstance(other, JSONPathSelector) else False

    def __hash__(self) -> int:
        return hash(self.inner)


class _CountedFilter(FilterExpression):
    """A filter expression whose evaluations (one per candidate node) are counted."""

    __slots__ = ()

    def evaluate(self, context: FilterContext) -> bool:
        meter = current_meter()
        meter.count -= 1
        if meter.count <= 0:
            meter.look()
        return _is_truthy(self.expression.evaluate(context))


class _Singular(RelativeFilterQuery):
    """`@.a.b[0]`: the nodelist the library's query gives (the node, or none), read with lookups."""

    __slots__ = ("steps",)

    def __init__(self, token: Any, query: JSONPathQuery, steps: tuple[str | int, ...]) -> None:
        super().__init__(token, query)
        self.steps = steps

    def evaluate(self, context: FilterContext) -> object:
        value = context.current
        if not isinstance(value, list | dict):
            return value if not self.steps else JSONPathNodeList()
        location: list[str | int] = []
        for step in self.steps:
            if isinstance(step, str):
                if not isinstance(value, dict) or step not in value:
                    return JSONPathNodeList()
                value = value[step]
                location.append(step)
            else:
                if not isinstance(value, list) or not -len(value) <= step < len(value):
                    return JSONPathNodeList()
                location.append(step + len(value) if step < 0 else step)
                value = value[step]
        root: Any = context.current
        node = JSONPathNode(value=value, location=tuple(location), parent=None, root=root)
        return JSONPathNodeList([node])
