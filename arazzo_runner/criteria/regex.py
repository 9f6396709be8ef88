"""`regex` conditions: a regular-expression search over the context converted to text.

Numbers and booleans use their JSON spelling (`200`, `true`), objects and arrays compact JSON. Patterns
are checked with Python's `re` (its syntax and error messages) and matched with the `regex` module,
rewritten where the two read a pattern differently (`patterns.py`), with a timeout: a pattern that
backtracks catastrophically on a response (`(a|a)*b`) fails its criterion after `limits.REGEX_TIMEOUT`
s, or at the run's deadline if that comes first, instead of stalling the run. A pattern `regex` cannot
take (counted repeats it would unroll into too much, or one it refuses) is matched with `re` in the
evaluation worker (`query/isolated.py`), within the same time.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from .. import budget, limits
from ..budget import Budget, BudgetExceeded
from ..errors import ArazzoError, ExpressionError
from ..patterns import UNROLL_LIMIT, for_empty_text, for_regex, unrolled_size
from .base import PASSED, Outcome
from .contextual import ContextCriterion
from .display import show
from .runtime import to_text


def compile_pattern(pattern: str) -> re.Pattern[str]:
    return _compile_noting(pattern)[0]


def pattern_notes(pattern: str) -> tuple[str, ...]:
    """What Python's `re` warns about in `pattern` (`[[:alpha:]]`: a possible nested set; `&&`: a
    possible set intersection): constructs other engines read differently, for the validator to tell;
    never a Python warning on the user's terminal."""
    return _compile_noting(pattern)[1]


_NOTING = threading.Lock()


@lru_cache(maxsize=256)
def _compile_noting(pattern: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """The warning filters are process state: they are changed only inside `catch_warnings` (put back
    on exit) and under a lock, so two threads compiling patterns never restore each other's filters."""
    import warnings

    with _NOTING, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FutureWarning)
        compiled = _compile(pattern)
    notes = tuple(
        f"regex {pattern!r}: {str(w.message).lower()}: "
        "Python reads these characters literally, other regex engines may not"
        for w in caught
        if issubclass(w.category, FutureWarning)
    )
    return compiled, notes


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        # re.UNICODE is what a str pattern gets anyway; given explicitly, it keeps this compile out of
        # the key of `re`'s own cache, where a compile elsewhere would hide the warnings asked for here
        return re.compile(pattern, re.UNICODE)
    except re.error as exc:
        raise ExpressionError(f"invalid regular expression: {exc.msg}", pattern, exc.pos or 0) from None
    except RecursionError:  # Python's pattern parser recurses once per nested group
        raise ExpressionError("invalid regular expression: nested too deeply", pattern, 0) from None
    except OverflowError as exc:  # a repetition count such as a{99999999999}
        raise ExpressionError(f"invalid regular expression: {exc}", pattern, 0) from None


@lru_cache(maxsize=64)
def interruptible(pattern: str) -> Any:
    """The pattern compiled by the `regex` module (imported on first use; ~9 ms), whose `search` takes a
    timeout, rewritten to match as `re` does; None when `regex` cannot take it (see the module doc)."""
    rewritten = for_regex(pattern)
    if unrolled_size(rewritten) > UNROLL_LIMIT:
        return None
    import regex

    try:
        return regex.compile(rewritten)
    except Exception:  # regex.error, or the module's own failures on odd sets
        return None


class RegexCriterion(ContextCriterion):
    type = "regex"

    def __init__(self, condition: str, version: str | None, context: str | None) -> None:
        super().__init__(condition, version, context)
        if self._embedded is None:
            self.notes = pattern_notes(condition)

    def _compile(self, condition: str) -> re.Pattern[str]:
        return compile_pattern(condition)

    def _apply(self, matcher: re.Pattern[str], value: Any, condition: str) -> Outcome:
        text = to_text(value)
        spent = budget.budget(limits.REGEX_TIMEOUT)
        try:
            found = _search(matcher.pattern, text, spent)
        except BudgetExceeded as exc:
            return Outcome(False, f"{condition}: {_stopped(exc.budget, text)}")
        except ArazzoError as exc:  # the worker failed (it could not start, ...)
            return Outcome(False, f"{condition}: cannot be matched: {exc}")
        return PASSED if found else Outcome(False, f"{condition}: no match in {show(text)}")


def _search(pattern: str, text: str, spent: Budget) -> bool:
    """Whether `pattern` matches somewhere in `text`, within `spent` (BudgetExceeded otherwise)."""
    compiled = interruptible(for_empty_text(pattern) if not text else pattern)
    if compiled is None:
        from ..query.isolated import run

        return bool(run("re.search", {"pattern": pattern, "text": text}, spent.seconds))
    left = spent.left()
    if left <= 0:
        raise BudgetExceeded(spent)
    try:
        return compiled.search(text, timeout=left) is not None
    except TimeoutError:
        raise BudgetExceeded(spent) from None


def _stopped(spent: Budget, text: str) -> str:
    if spent.deadline_message:
        return f"matching was stopped on {len(text)} characters: {spent.deadline_message}"
    return (
        f"matching was stopped after {spent.seconds:g} s on {len(text)} characters "
        "(the pattern backtracks catastrophically)"
    )
