"""The result of a criterion (`Outcome`) and what every compiled criterion offers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator

from ..records import Record
from .runtime import Context, Expression


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

    def __init__(self, condition: str, context: str | None) -> None:
        self.condition = condition
        self.context = context
        self.notes: tuple[str, ...] = ()

    def evaluate(self, ctx: Context) -> Outcome:
        try:
            return self._evaluate(ctx)
        except Exception as exc:  # a bug or an odd value must fail the criterion, not the run
            return Outcome(False, f"{self.condition}: cannot be evaluated: {exc}")

    @abstractmethod
    def _evaluate(self, ctx: Context) -> Outcome: ...

    @abstractmethod
    def expressions(self) -> Iterator[Expression]:
        """The runtime expressions the criterion reads (its context first, if any)."""

    def __repr__(self) -> str:
        kind = self.type if self.version is None else f"{self.type}/{self.version}"
        return f"<{type(self).__name__} {kind} {self.condition!r}>"
