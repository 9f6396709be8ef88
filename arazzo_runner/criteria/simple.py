"""`simple` conditions: lexer -> parser -> AST, evaluated against a `Context`."""

from __future__ import annotations

from collections.abc import Iterator

from .base import DERIVED, PASSED, CompiledCriterion, Outcome
from .compare import truthy
from .lexer import Lexer
from .nodes import MissingOperand, Node
from .parser import Parser
from .runtime import Context, Expression, parse_expression


class SimpleCriterion(CompiledCriterion):
    type = "simple"
    explains_secrets = True  # each part that read a secret is explained without its values

    def __init__(self, condition: str, context: str | None = None) -> None:
        super().__init__(condition, context)
        lexer = Lexer(condition)
        self.root: Node = Parser(condition, lexer.tokens()).parse()
        self.notes = tuple(lexer.notes)
        # A context is meaningless for simple conditions; it is parsed only so that it gets validated.
        self._context = parse_expression(context.strip()) if context else None

    def _evaluate(self, ctx: Context) -> Outcome:
        try:
            if truthy(self.root.value(ctx)):
                return PASSED
            return Outcome(False, self._explain(ctx))
        except MissingOperand as missing:
            if getattr(ctx, "taint", None) is not None and self.reads_secret(ctx):
                return Outcome(False, f"{self.shown}: false ({DERIVED})")
            reason = missing.missing.reason
            # resolver reasons often start with the expression; do not repeat a condition that is just that
            message = reason if reason.startswith(self.condition + ":") else f"{self.shown}: {reason}"
            return Outcome(False, message)

    def _explain(self, ctx: Context) -> str:
        parts = self.root.explain(ctx, self.condition)
        return "; ".join(parts) if parts else f"{self.condition}: false"

    def expressions(self) -> Iterator[Expression]:
        if self._context is not None:
            yield self._context
        yield from self.root.expressions()
