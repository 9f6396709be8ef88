"""What every compiled selector looks like, and the error raised when data cannot be queried."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..bounds.budget import Budget
from ..bounds.isolated import EvaluationError


class QueryError(EvaluationError):
    """A compiled query could not be applied to the data (not XML, an XPath dynamic error...).

    Syntax problems are reported earlier, by `compile_selector`, as `ExpressionError`.
    """


class CompiledQuery(ABC):
    """A selector parsed once; `select` may then run any number of times, on any thread."""

    __slots__ = ("expression", "type", "version")

    def __init__(self, type_: str, version: str, expression: str) -> None:
        self.type = type_
        self.version = version
        self.expression = expression

    @abstractmethod
    def select(self, data: Any) -> list[Any]:
        """Apply the query to `data` and return the selected node values (possibly none)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.type}/{self.version} {self.expression!r}>"


class QueryStopped(QueryError):
    """An evaluation stopped at the end of its time: its own limit (`limits.py`), or the run's deadline.

    `budget.BudgetExceeded` (which must pass through the engines' own `except Exception`) becomes this
    at the query API, so callers handle it as any other QueryError."""

    def __init__(self, spent: Budget, memory: bool = False) -> None:
        if memory and spent.memory is not None:
            super().__init__(f"evaluation stopped: needs more than {spent.memory // 2**20} MiB of memory")
        elif spent.deadline_message:
            super().__init__(f"evaluation stopped: {spent.deadline_message}")
        else:
            super().__init__(f"evaluation stopped after {spent.seconds:g} s (too expensive)")
        self.budget = spent
