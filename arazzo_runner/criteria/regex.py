"""`regex` conditions: a regular-expression search over the context converted to text.

Numbers and booleans use their JSON spelling (`200`, `true`), objects and arrays compact JSON. Patterns
are checked with Python's `re` (its syntax and error messages) and matched with the `regex` module,
`re`-compatible, whose matching takes a timeout: a pattern that backtracks catastrophically on a
response (`(a|a)*b`) fails its criterion after `limits.REGEX_TIMEOUT` s instead of stalling the run.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .. import limits
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


@lru_cache(maxsize=256)
def interruptible(pattern: str) -> Any:
    """The pattern compiled by the `regex` module (imported on first use; ~9 ms), whose `search` takes a
    timeout. The two read a few constructs differently: a `[` inside a set (`[[:alpha:]]` is a POSIX
    class for `regex`, a plain set for `re`) and doubled `--`, `&&`, `||`, `~~` in sets, for which `re`
    itself warns; such patterns, and any `regex` refuses, keep `re` (and no timeout)."""
    if _ambiguous_set(pattern):
        return re.compile(pattern)
    import regex

    try:
        return regex.compile(pattern)
    except regex.error:
        return re.compile(pattern)


def _ambiguous_set(pattern: str) -> bool:
    """Whether a character set holds `[` or a doubled `-&|~` (where `re` warns "possible nested set")."""
    in_set, first, index = False, False, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            first = False
            continue
        if not in_set:
            in_set = first = char == "["
        elif first and char in "^]":
            first = char == "^"  # `[^]...]` and `[]...]`: a leading `]` is literal
        elif char == "]":
            in_set = False
        elif char == "[" or (char in "-&|~" and pattern[index + 1 : index + 2] == char):
            return True
        else:
            first = False
        index += 1
    return False


class RegexCriterion(ContextCriterion):
    type = "regex"

    def _compile(self, condition: str) -> re.Pattern[str]:
        return compile_pattern(condition)

    def _apply(self, matcher: re.Pattern[str], value: Any, condition: str) -> Outcome:
        text = to_text(value)
        pattern, seconds = interruptible(matcher.pattern), limits.REGEX_TIMEOUT
        try:
            found = (
                pattern.search(text)
                if isinstance(pattern, re.Pattern)
                else pattern.search(text, timeout=seconds)
            )
        except TimeoutError:
            return Outcome(
                False,
                f"{condition}: matching was stopped after {seconds:g} s on {len(text)} characters "
                "(the pattern backtracks catastrophically)",
            )
        return PASSED if found else Outcome(False, f"{condition}: no match in {show(text)}")
