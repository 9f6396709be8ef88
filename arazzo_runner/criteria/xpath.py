"""`xpath` conditions: the effective boolean value of the expression over the XML context.

EBV (per the XPath version): a boolean as is, a non-zero (non-NaN) number, a non-empty string, a non-empty
node sequence. In XPath 2.0+ a sequence of several atomic values has no EBV: the criterion fails.
The expression is checked and evaluated in the evaluation worker, within bounds (`query/xpath.py`).
"""

from __future__ import annotations

from typing import Any

from ..query import XPathQuery, compile_selector
from ..query.xpath import XPathVerdict
from .base import PASSED, Outcome
from .contextual import ContextCriterion
from .display import show


class XPathCriterion(ContextCriterion):
    type = "xpath"
    computes = True  # upper-case, substring, string-to-codepoints, error()...

    def _compile(self, condition: str) -> XPathQuery:
        query = compile_selector("xpath", self.version, condition)
        assert isinstance(query, XPathQuery)
        return query

    def _apply(self, matcher: XPathQuery, value: Any, condition: str) -> Outcome:
        # QueryError (not XML, unsafe XML, dynamic errors, stopped) propagates to `evaluate`: it fails.
        verdict = matcher.test(value)
        if verdict.passed:
            return PASSED
        return Outcome(False, f"{condition}: got {_describe(verdict)}")


def _describe(verdict: XPathVerdict) -> str:
    values = list(verdict.values)
    if not verdict.sequence:
        return show(values[0] if values else None)
    if not values:
        return "an empty sequence"
    return show([*values, "…"] if verdict.more else values)
