"""`jsonpath` conditions: pass when the query selects at least one node.

DESIGN rules on top of RFC 9535:
* a filter applied at the root (`$[?...]`) also tests the root value itself: the query runs against the
  context and, when its first segment is such a filter, against `[context]`;
* `<query> <op> <literal>` (not RFC 9535) passes when any selected node compares true with the literal
  (see `comparison_form.py`); `comparison_form` tells whether a condition used it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..bounds.budget import BudgetExceeded
from ..errors import ExpressionError
from ..expressions.ast import ResponseRef
from ..expressions.resolver import streamed_body
from ..masking.secrets import VALUE_LIMIT, clip
from ..query import CompiledQuery, QueryStopped, compile_selector
from ..query.goessner import GOESSNER
from ..records import Record
from .base import PASSED, Outcome
from .comparison_form import json_compare, parse_literal, split_comparison
from .contextual import ContextCriterion
from .display import show
from .runtime import Context


class PathMatcher(Record, frozen=True):
    query: CompiledQuery
    comparison_form = False

    def nodes(self, value: Any) -> list[Any]:
        nodes = self.query.select(value)
        if getattr(self.query, "root_filter", False):
            nodes = nodes + self.query.select([value])
        return nodes

    def apply(self, value: Any, condition: str) -> Outcome:
        nodes = self.nodes(value)
        if nodes:
            return self.judge(nodes, condition)
        return Outcome(False, f"{condition}: no node matched in {show(value)}")

    def judge(self, nodes: list[Any], condition: str) -> Outcome:
        """The outcome for the nodes the query selected (some)."""
        return PASSED


class ComparisonMatcher(PathMatcher):
    op: str
    literal: Any
    comparison_form = True

    def apply(self, value: Any, condition: str) -> Outcome:
        nodes = self.nodes(value)
        if not nodes:
            return Outcome(False, f"{condition}: {clip(self.query.expression, VALUE_LIMIT)} selected nothing")
        return self.judge(nodes, condition)

    def judge(self, nodes: list[Any], condition: str) -> Outcome:
        if any(json_compare(self.op, node, self.literal) for node in nodes):
            return PASSED
        seen = show(nodes[0]) if len(nodes) == 1 else show(nodes)
        return Outcome(False, f"{condition}: got {seen}")


@lru_cache(maxsize=512)
def compile_condition(condition: str, version: str) -> PathMatcher:
    """A matcher for a JSONPath condition; ExpressionError when it is neither a query nor a comparison."""
    try:
        return PathMatcher(compile_selector("jsonpath", version, condition))
    except ExpressionError as error:
        split = split_comparison(condition)
        if split is None:
            raise
        left, op, right, position = split
        try:
            query = compile_selector("jsonpath", version, left)
        except ExpressionError:
            raise error from None  # the whole text is the better diagnostic
        literal = parse_literal(right, condition, position)
        return ComparisonMatcher(query, op, literal)


class JSONPathCriterion(ContextCriterion):
    type = "jsonpath"

    @property
    def computes(self) -> bool:  # type: ignore[override]
        """The goessner dialect's extensions compute (`sub()`, `split()`, arithmetic); RFC 9535 selects."""
        return self.version == GOESSNER

    def _compile(self, condition: str) -> PathMatcher:
        return compile_condition(condition, self.version or "rfc9535")

    def _apply(self, matcher: PathMatcher, value: Any, condition: str) -> Outcome:
        return matcher.apply(value, condition)

    def streamed_query(self) -> CompiledQuery | None:
        """The RFC 9535 query this criterion applies to `$response.body` itself (no pointer, no
        accessor, no embedded expression): what a streamed body may answer (`bounds/json_stream.py`)."""
        context = self.context_expression
        if self._matcher is None or self.version not in (None, "rfc9535") or type(context) is not ResponseRef:
            return None
        whole = context.part in ("body", "payload") and not context.pointer and not context.accessors
        return self._matcher.query if whole else None

    def _evaluate(self, ctx: Context) -> Outcome:
        """The nodes a streamed body's pass selected, when it did and they are some; else as ever (the
        body's document then parsed: `StreamedJson.tree`), which says why none matched."""
        body = streamed_body(self.context_expression, ctx)
        # an RFC 9535 query only: a workflow step's `$response` is its child's last, whose body may be
        # streamed for a query of the same text that this criterion reads in another dialect
        query = self.streamed_query() if body is not None else None
        if body is not None and query is not None and self._matcher is not None:
            try:
                nodes = body.selected(query.expression)
            except BudgetExceeded as exc:  # the query's budget, spent during the pass
                stopped = QueryStopped(exc.budget, exc.memory)
                return Outcome(False, f"{self.shown}: {clip(str(stopped), VALUE_LIMIT)}")
            if nodes:
                return self._matcher.judge(nodes, self.shown)
        return super()._evaluate(ctx)

    @property
    def comparison_form(self) -> bool | None:
        """Whether the `<query> <op> <literal>` form is used (None: decided per evaluation, embedded)."""
        return None if self._matcher is None else self._matcher.comparison_form
