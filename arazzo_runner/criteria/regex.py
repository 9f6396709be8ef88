"""`regex` conditions: Python `re.search` over the context converted to text.

Numbers and booleans use their JSON spelling (`200`, `true`), objects and arrays compact JSON.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..errors import ExpressionError
from .base import PASSED, Outcome
from .contextual import ContextCriterion
from .display import show
from .runtime import to_text


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ExpressionError(f"invalid regular expression: {exc.msg}", pattern, exc.pos or 0) from None
    except RecursionError:  # Python's pattern parser recurses once per nested group
        raise ExpressionError("invalid regular expression: nested too deeply", pattern, 0) from None
    except OverflowError as exc:  # a repetition count such as a{99999999999}
        raise ExpressionError(f"invalid regular expression: {exc}", pattern, 0) from None


class RegexCriterion(ContextCriterion):
    type = "regex"

    def _compile(self, condition: str) -> re.Pattern[str]:
        return compile_pattern(condition)

    def _apply(self, matcher: re.Pattern[str], value: Any, condition: str) -> Outcome:
        text = to_text(value)
        if matcher.search(text):
            return PASSED
        return Outcome(False, f"{condition}: no match in {show(text)}")
