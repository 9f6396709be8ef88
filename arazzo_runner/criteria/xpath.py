"""`xpath` conditions: the effective boolean value of the expression over the XML context.

EBV (per the XPath version): a boolean as is, a non-zero (non-NaN) number, a non-empty string, a non-empty
node sequence. In XPath 2.0+ a sequence of several atomic values has no EBV: the criterion fails.
"""

from __future__ import annotations

from typing import Any

from ..query import XPathQuery, compile_selector
from ..query.xpath import node_value
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
        # QueryError (not XML, unsafe XML, dynamic errors) propagates to `evaluate`, which fails with it.
        result = matcher.evaluate(value)
        if matcher.ebv(result):
            return PASSED
        return Outcome(False, f"{condition}: got {_describe(result)}")


def _describe(result: Any) -> str:
    if isinstance(result, list):
        if not result:
            return "an empty sequence"
        return show([node_value(item) for item in result])
    return show(node_value(result))
