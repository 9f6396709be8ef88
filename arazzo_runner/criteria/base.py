"""The result of a criterion (`Outcome`) and what every compiled criterion offers.

A failure message says what was seen, except what is derived from a secret: when the context carries the
run's rule for that (`Context.taint`, see `arazzo_runner.masking.taint`), a criterion that read a secret
prints none of the values it read or computed (XPath could print the token upper-cased, as code points...).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator

from ..masking.secrets import MESSAGE_LIMIT, VALUE_LIMIT, clip
from ..records import Record
from .runtime import Context, Expression, resolve

DERIVED = "derived from a secret: values not shown"


class Outcome(Record, frozen=True):
    """Whether a criterion passed; on failure `message` says why, with the values that were seen."""

    passed: bool
    message: str | None = None

    def __bool__(self) -> bool:
        return self.passed


PASSED = Outcome(True)  # shared: passing is the hot path


class CompiledCriterion(ABC):
    """A condition parsed once. `evaluate` never raises for runtime problems: they fail the criterion.

    `notes` lists non-standard constructs the condition relies on (for a validator to warn about).
    """

    type: str = "simple"
    version: str | None = None
    explains_secrets = False  # True: `_evaluate` itself leaves out the parts that read a secret
    # Whether the condition computes values (XPath functions, goessner JSONPath's `sub()`...): then a
    # value holding a secret taints it too; a value shown as read is masked by value, where it is shown.
    computes = False

    def __init__(self, condition: str, context: str | None) -> None:
        self.condition = condition
        self.context = context
        self.notes: tuple[str, ...] = ()

    def evaluate(self, ctx: Context) -> Outcome:
        explained = True
        try:
            outcome = self._evaluate(ctx)
        except Exception as exc:  # a bug or an odd value must fail the criterion, not the run
            outcome = Outcome(False, f"{self.shown}: cannot be evaluated: {clip(str(exc), VALUE_LIMIT)}")
            explained = False
        if outcome.passed:
            return outcome
        checked = getattr(ctx, "taint", None) is not None and not (explained and self.explains_secrets)
        if checked and self.reads_secret(ctx):
            return Outcome(False, f"{self.shown}: false ({DERIVED})")
        if outcome.message is not None and len(outcome.message) > MESSAGE_LIMIT:
            return Outcome(False, clip(outcome.message, MESSAGE_LIMIT))
        return outcome

    @property
    def shown(self) -> str:
        """The condition as messages quote it (as written: never with embedded values substituted)."""
        return clip(self.condition, VALUE_LIMIT)

    def reads_secret(self, ctx: Context) -> bool:
        """Whether an expression the criterion reads gave a value derived from a secret."""
        taint, computes = ctx.taint, self.computes
        for expression in self.expressions():
            if not computes and not taint.reads_by_name(expression, ctx):
                continue  # (what it would say of the value: not resolved, a streamed body stays unparsed)
            if taint.reads_secret(expression, ctx, resolve(expression, ctx), computes):
                return True
        return False

    @abstractmethod
    def _evaluate(self, ctx: Context) -> Outcome: ...

    @abstractmethod
    def expressions(self) -> Iterator[Expression]:
        """The runtime expressions the criterion reads (its context first, if any)."""

    def __repr__(self) -> str:
        kind = self.type if self.version is None else f"{self.type}/{self.version}"
        return f"<{type(self).__name__} {kind} {self.condition!r}>"
