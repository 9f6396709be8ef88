"""Every JSON Schema validator the engine runs matches its patterns with the engine's bounded matcher.

jsonschema (and openapi-core through openapi-schema-validator) match `pattern`, `patternProperties` and
the patterns that decide `additionalProperties` and `unevaluatedProperties` with Python's `re`, in C,
where nothing interrupts it: `^(a|aa)+$` on forty `a`s and a `!` held a run for 10.8 s under
`--deadline 2`. Every validator the engine builds is of a class `schema_keywords.bounded(cls)`, whose
keywords for these match with `matches` here: `patterns.search`, the matcher of `regex` criteria (the
`regex` module with a timeout, the pattern rewritten to read as `re` reads it; the worker for the rare
pattern only `re` takes). Patterns are still checked by `re` (an invalid one raises re.error as before).

Time: a check (one request, one response, one event stream, one set of inputs, one payload) runs as
`run_check(work)`: all of its matching together may take `limits.SCHEMA_PATTERN_TIMEOUT` seconds,
ending at the run's deadline when that comes first. A match that runs out raises `PatternStopped`, a
BaseException: it unwinds the whole check (a `not` or a `oneOf` branch never reads it as "did not
match"), and the caller turns it into a finding that says so. Under a run deadline the rest of the
check, pure Python (a large body; `uniqueItems` over many objects, which jsonschema compares pairwise),
is stopped there too, by `budget.guarded` (BudgetExceeded). `format: regex` values (openapi-core asserts
formats) are compiled by `re` in pure Python, under `budget.guarded` with the check's time.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, TypeVar

from ..bounds import budget, limits
from ..bounds.budget import Budget, BudgetExceeded
from ..bounds.patterns import checked, for_empty_text, interruptible, is_pattern, search, stopped, within
from ..masking.secrets import clip

T = TypeVar("T")
_CLOCK: ContextVar[_Clock | None] = ContextVar("arazzo_runner_schema_patterns", default=None)
_LIBRARIES = ("jsonschema", "referencing", "jsonschema_path", "openapi_core", "openapi_schema_validator")


class PatternStopped(BudgetExceeded):
    """A schema pattern (or a `format: regex` value) could not be matched within the check's time."""

    def __init__(self, spent: Budget, what: str, size: int, compiling: bool = False) -> None:
        self.what, self.size, self.compiling = what, size, compiling
        super().__init__(spent)

    def __str__(self) -> str:
        if not self.compiling:
            return f"{self.what} could not be checked: {stopped(self.budget, self.size)}"
        deadline = self.budget.deadline_message
        after = f"on {deadline}" if deadline else f"after {self.budget.seconds:g} s"
        return (
            f"{self.what} could not be checked: reading a value of {self.size} characters as a pattern "
            f"was stopped {after}"
        )


class _Clock:
    """The matching time left to one check: `seconds` in all, and never past the run's deadline."""

    __slots__ = ("deadline", "seconds", "used")

    def __init__(self, seconds: float) -> None:
        self.seconds, self.used = seconds, 0.0
        self.deadline = budget.budget(math.inf)  # ends at the run's deadline, or never

    def left(self, now: float) -> float:
        return min(self.seconds - self.used, self.deadline.end - now)

    def budget(self) -> Budget:
        """What is left as a Budget, said as the check's whole allowance (`stopped after 5 s`) or as
        the run's deadline, whichever ends it."""
        now = time.monotonic()
        spent = Budget(self.seconds)
        spent.end = now + max(0.0, self.seconds - self.used)
        if self.deadline.deadline_message is not None and self.deadline.end <= spent.end:
            spent.end, spent.deadline_message = self.deadline.end, self.deadline.deadline_message
        return spent


def run_check(work: Callable[[], T]) -> T:
    """`work()` as one check: its patterns share one check's time (`checking`) and, when the run has a
    deadline, all of it stops there (BudgetExceeded, raised only in the validators' own code, never in
    the engine's: a worker's reply is never left half read)."""
    with checking():
        spent = budget.budget(math.inf)
        if spent.deadline_message is None:
            return work()
        return budget.guarded(spent, work, home=_libraries())


@lru_cache(maxsize=1)
def _libraries() -> tuple[str, ...]:
    """The folders of the validator libraries installed (the code `run_check` may stop)."""
    import importlib.util

    found = []
    for name in _LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            found.append(os.path.dirname(spec.origin) + os.sep)
    return tuple(found)


@contextmanager
def checking(seconds: float | None = None) -> Iterator[_Clock]:
    """The patterns matched inside the block share `seconds` (default `limits.SCHEMA_PATTERN_TIMEOUT`);
    the clock it gives says how much they used (`used`)."""
    clock = _Clock(limits.SCHEMA_PATTERN_TIMEOUT if seconds is None else seconds)
    token = _CLOCK.set(clock)
    try:
        yield clock
    finally:
        _CLOCK.reset(token)


def matches(pattern: str, text: str) -> bool:
    """`re.search(pattern, text) is not None`, within the time of the check in progress (a check of its
    own outside `checking()`): PatternStopped once it is spent. re.error for an invalid pattern and
    TypeError for a text that is not a string, as `re.search` raises them."""
    if not isinstance(text, str):
        return re.search(pattern, text) is not None  # raises TypeError, as jsonschema would
    prefix = _literal_prefix(pattern)
    if prefix is not None:
        return text.startswith(prefix)
    compiled = _compiled(pattern, bool(text))
    clock = _CLOCK.get() or _Clock(limits.SCHEMA_PATTERN_TIMEOUT)
    started = time.monotonic()
    try:
        if compiled is None:  # only `re` takes it: the worker, within what is left (`patterns.search`)
            return search(pattern, text, clock.budget())
        if clock.left(started) > 0:  # a slice here, then the worker: stopped by the clock either way
            return within(compiled, text, clock.budget())
    except (TimeoutError, BudgetExceeded):
        pass
    finally:
        clock.used += time.monotonic() - started
    raise PatternStopped(clock.budget(), f"pattern {clip(repr(pattern), 200)}", len(text))


@lru_cache(maxsize=256)
def _literal_prefix(pattern: str) -> str | None:
    """What `^` followed by plain characters only matches: that text at the start, so `re.search` of it
    is `startswith`, which takes no time worth bounding. OpenAPI's and Arazzo's `^x-` is matched against
    every key of every object (~4 µs each through the bounded matcher); None for any other pattern."""
    body = pattern[1:]
    if not pattern.startswith("^") or not body or any(char in _SPECIAL for char in body):
        return None
    return body


_SPECIAL = frozenset(".^$*+?{}[]\\|()")


@lru_cache(maxsize=256)
def _compiled(pattern: str, text: bool) -> Any:
    """`pattern` checked by `re` (re.error when it is not one), then compiled by `regex` as
    `patterns.search` compiles it (for an empty text too); None when only `re` takes it."""
    checked(pattern)
    return interruptible(pattern if text else for_empty_text(pattern))


def is_regex(instance: Any) -> bool:
    """The `regex` format (openapi-core asserts formats): whether `re` reads `instance` as a pattern,
    within the time of the check in progress (`patterns.is_pattern`)."""
    if not isinstance(instance, str):
        return True
    clock = _CLOCK.get() or _Clock(limits.SCHEMA_PATTERN_TIMEOUT)
    spent = clock.budget()
    started = time.monotonic()
    try:
        return is_pattern(instance, spent)
    except BudgetExceeded:
        raise PatternStopped(spent, "format 'regex'", len(instance), compiling=True) from None
    finally:
        clock.used += time.monotonic() - started


def bounded_formats(checker: Any) -> Any:
    """`checker` (a FormatChecker) with its `regex` format, if any, checked by `is_regex`."""
    if checker is None or "regex" not in checker.checkers:
        return checker
    import copy

    made = copy.copy(checker)
    made.checkers = {**checker.checkers, "regex": (is_regex, ())}
    return made
