"""XPath 1.0 / 2.0 / 3.0 / 3.1 selectors over XML, evaluated in the evaluation worker.

elementpath cannot be stopped from within this process (pure Python with no limit, constant folding
while parsing, C-level big numbers and whole sequences in memory), so both the check of an expression
and every evaluation run in a worker process (`isolated.py`, engine `xpath_engine.py`), bounded in
time and memory: `limits.COMPILE_TIMEOUT` for the check (which evaluates the constant parts, as
elementpath does while parsing), `limits.QUERY_TIMEOUT` or the run's deadline for an evaluation,
`limits.QUERY_MEMORY` for the worker. This process never imports elementpath.

An expression whose constant part does not finish within those bounds is invalid, as a syntax error
is (`validate` reports it, a run refuses the document); the verdict is kept for the process, so a
document repeating one such expression pays for it once.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..bounds import limits
from ..bounds.budget import BudgetExceeded
from ..errors import ExpressionError
from ..records import Record
from .base import CompiledQuery, QueryError, QueryStopped

XPATH_VERSIONS = ("xpath-10", "xpath-20", "xpath-30", "xpath-31")


class XPathVerdict(Record, frozen=True):
    """The effective boolean value of an XPath result, and what the result was when it is false:
    `values` (the first items, as plain values), whether it was a sequence, how many items were left out."""

    passed: bool
    values: tuple[Any, ...] = ()
    sequence: bool = False
    more: int = 0


class XPathQuery(CompiledQuery):
    """An XPath expression, checked by the worker. `select` gives node values, `test` the EBV."""

    __slots__ = ()

    def __init__(self, version: str, expression: str) -> None:
        super().__init__("xpath", version, expression)
        problem = _check(version, expression)
        if problem is not None:
            raise ExpressionError(problem[0], expression, problem[1])

    def select(self, data: Any) -> list[Any]:
        return list(self._evaluate(data, "select"))

    def test(self, data: Any) -> XPathVerdict:
        """The effective boolean value of the result on `data` (with the rules of this XPath version)."""
        found = self._evaluate(data, "test")
        seen = found["seen"] or {}
        values = tuple(seen.get("values", ()))
        return XPathVerdict(found["passed"], values, bool(seen.get("sequence")), int(seen.get("more", 0)))

    def boolean(self, data: Any) -> bool:
        return self.test(data).passed

    def _evaluate(self, data: Any, mode: str) -> Any:
        from ..bounds.isolated import EvaluationError, run

        document, raw = _document(data)
        args = {"version": self.version, "expression": self.expression, "document": document, "raw": raw}
        try:
            return run("xpath.evaluate", {**args, "mode": mode}, limits.QUERY_TIMEOUT)
        except BudgetExceeded as exc:
            raise QueryStopped(exc.budget) from None
        except EvaluationError as exc:
            raise QueryError(f"XPath {self.expression!r}: {exc}") from None
        except ExpressionError as exc:  # checked when compiled: only if the worker disagrees
            raise QueryError(f"XPath {self.expression!r}: {exc.message}") from None


@lru_cache(maxsize=1024)
def _check(version: str, expression: str) -> tuple[str, int] | None:
    """None for a valid expression, else (message, position); kept for the process. A check cut short
    by the run's deadline (a condition with `{$...}` is compiled while the run goes on) is not kept."""
    from ..bounds.isolated import EvaluationError, run

    try:
        run("xpath.check", {"version": version, "expression": expression}, limits.COMPILE_TIMEOUT)
    except ExpressionError as exc:
        return exc.message, exc.position
    except BudgetExceeded as exc:
        if exc.budget.deadline_message:
            raise QueryStopped(exc.budget) from None
        return f"invalid XPath: too expensive to evaluate when compiled ({exc.budget.cause()})", 0
    except EvaluationError as exc:
        if exc.kind != "memory":
            raise ExpressionError(f"XPath cannot be checked: {exc}", expression, 0) from None
        return f"invalid XPath: too expensive to evaluate when compiled ({exc})", 0
    return None


def _document(data: Any) -> tuple[str, bool]:
    """The XML text to send the worker, and whether it stands for bytes (one latin-1 char a byte)."""
    if isinstance(data, str):
        return data, False
    if isinstance(data, (bytes, bytearray)):
        return bytes(data).decode("latin-1"), True
    if hasattr(data, "tag") or hasattr(data, "getroot"):  # an already parsed element or element tree
        root = data.getroot() if hasattr(data, "getroot") else data
        try:
            if type(root).__module__.startswith("lxml"):
                from lxml import etree

                return etree.tostring(root, encoding="unicode"), False
            from xml.etree import ElementTree as ET

            return ET.tostring(root, encoding="unicode"), False
        except (TypeError, ValueError, AttributeError) as exc:
            raise QueryError(f"XPath cannot read this XML tree: {exc}") from None
    kind = "null" if data is None else type(data).__name__
    raise QueryError(f"XPath needs an XML document, got a {kind}")
