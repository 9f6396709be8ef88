"""What regex, JSONPath and XPath criteria share: a context expression and optional `{$...}` embeddings.

Without embedded expressions the condition is compiled once, here; with them it is rendered per evaluation
and compiled through a cache keyed by the rendered text.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from typing import Any

from ..errors import ExpressionError
from ..masking.secrets import VALUE_LIMIT, clip
from ..query import QueryError
from .base import CompiledCriterion, Outcome
from .runtime import Context, Expression, Missing, Template, parse_expression, parse_template, resolve


class ContextCriterion(CompiledCriterion):
    def __init__(self, condition: str, version: str | None, context: str | None) -> None:
        super().__init__(condition, context)
        self.version = version
        self._context = parse_context(context, self.type, condition)
        self._embedded = embedded_expressions(condition)
        self._matcher: Any = self._compile(condition) if self._embedded is None else None

    @abstractmethod
    def _compile(self, condition: str) -> Any:
        """Compile the (rendered) condition; ExpressionError when it is invalid. Should be cached."""

    @abstractmethod
    def _apply(self, matcher: Any, value: Any, condition: str) -> Outcome:
        """Decide pass/fail for the context `value`; `condition` is the text to show in messages."""

    def _evaluate(self, ctx: Context) -> Outcome:
        value = resolve(self._context, ctx)
        context = clip(str(self.context), VALUE_LIMIT)
        if isinstance(value, Missing):
            return Outcome(False, f"{self.shown}: the context {context} is missing: {_cut(value.reason)}")
        if value is None:
            return Outcome(False, f"{self.shown}: the context {context} is null")
        condition, matcher = self.shown, self._matcher
        if self._embedded is not None:
            rendered = self._embedded.render(ctx)
            if isinstance(rendered, Missing):
                return Outcome(False, f"{self.shown}: {_cut(rendered.reason)}")
            condition = clip(rendered, VALUE_LIMIT)
            try:
                matcher = self._compile(rendered)
            except ExpressionError as exc:
                return Outcome(False, f"{condition}: {_cut(exc.message)} at offset {exc.position}")
            except QueryError as exc:  # an XPath check stopped by the run's deadline
                return Outcome(False, f"{condition}: {_cut(str(exc))}")
        try:
            return self._apply(matcher, value, condition)
        except QueryError as exc:  # e.g. XPath over a body that is not XML
            return Outcome(False, f"{condition}: {_cut(str(exc))}")

    @property
    def context_expression(self) -> Expression:
        """The expression of the value the condition is applied to (`context`)."""
        return self._context

    def expressions(self) -> Iterator[Expression]:
        yield self._context
        if self._embedded is not None:
            yield from self._embedded.expressions()

    @property
    def has_embedded(self) -> bool:
        """Whether the condition has `{$...}` expressions (then it is compiled at evaluation time)."""
        return self._embedded is not None


def _cut(text: str) -> str:
    return clip(text, VALUE_LIMIT)


def embedded_expressions(condition: str) -> Template | None:
    """The condition as a template of `{$...}` expressions, or None when it has none.

    Only the braced form counts: a bare `$` is JSONPath's root and XPath's variable sign. A `{$` that does
    not parse is an error here (templates elsewhere keep it as text): in these conditions it is a typo.
    """
    template = parse_template(condition, bare=False)
    if template.problems:
        raise template.problems[0]
    return None if template.is_constant else template


def parse_context(context: str | None, kind: str, condition: str) -> Expression:
    """The criterion's context expression; `{$...}` braces around it are tolerated."""
    if context is None or not isinstance(context, str) or not context.strip():
        raise ExpressionError(f"a {kind} condition needs a context (e.g. $response.body)", condition, 0)
    text = context.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    return parse_expression(text)
