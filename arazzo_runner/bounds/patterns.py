"""Regular expressions written for Python's `re`, matched by the `regex` module, whose matching takes a
timeout (`re` cannot be interrupted: a pattern that backtracks catastrophically would hold the run).

The two modules read a few patterns differently; `for_regex` rewrites those so that `regex` (in its
default, `re`-compatible VERSION0) matches what `re` would:
* a `[` inside a set is a literal for `re` but opens a POSIX class or a nested set for `regex`
  (`[[:alpha:]]`): it is escaped;
* a negated set holding a class and its complement (`[^\\s\\S]`, `[^\\w\\Wx]`) matches nothing in
  `re`, everything in `regex` (and `(?i)` makes `regex` fail on it): it becomes `(?!)`;
* `\\B` never matches an empty text in `re` (before Python 3.14), and does in `regex`: for an empty
  text it becomes `(?!)` (`for_empty_text`).
`&&`, `||`, `--` and `~~` in sets are literal in VERSION0, as in `re`.

`regex` also unrolls counted repeats when it compiles (`(?:a{1000}){1000}` is a million copies: 0.6 s
and 277 MB; one more level never ends), where `re` keeps a counter. `unrolled_size` bounds what it
would build; above UNROLL_LIMIT a pattern is not given to `regex`: `search` then matches it with `re` in
the evaluation worker, which is killed at the end of the time given (`isolated.py`).

`search` is the one bounded matcher: `regex` criteria, RFC 9535 JSONPath's `match()` and `search()`
(`bounded`, the same matcher for a pattern already in `regex`'s syntax) and every JSON Schema `pattern`
the engine's validators match (`sources/schema_patterns.py`) go through it.

`regex` measures its timeout in CPU time (C's `clock()`), while a budget ends at a moment (`--deadline`
is wall-clock time): on a busy machine a match given 3 s of timeout ran for 6 s. So a match gets at
most SLICE of CPU time in this process, which every ordinary pattern needs far less than; one that is
not done by then (backtracking) goes to the evaluation worker with the rest of its budget, where it is
stopped at the budget's end, by the clock, whatever the machine's load (`isolated.py`).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from .budget import Budget, BudgetExceeded, guarded

UNROLL_LIMIT = 10_000  # pieces `regex` may unroll a pattern into (~300 bytes each; 10 ms to compile)
SLICE = 0.05  # CPU seconds a match may take in this process before it moves to the evaluation worker
_COMPLEMENTS = (("\\s", "\\S"), ("\\w", "\\W"), ("\\d", "\\D"))
_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def for_regex(pattern: str) -> str:
    """`pattern` (valid for `re`) rewritten so that the `regex` module matches what `re` matches."""
    out: list[str] = []
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if char == "\\":
            out.append(pattern[index : index + 2])
            index += 2
        elif char == "[":
            end, members = _read_set(pattern, index)
            if members.startswith("^") and _matches_everything(members[1:]):
                out.append("(?!)")
            else:
                out.append("[" + _escape_brackets(members) + "]")
            index = end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def for_empty_text(pattern: str) -> str:
    """`pattern` with `\\B` outside sets made a never-matching `(?!)`: what `re` does on an empty text."""
    out: list[str] = []
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if char == "\\":
            escape = pattern[index : index + 2]
            out.append("(?!)" if escape == "\\B" else escape)
            index += 2
        elif char == "[":
            end, _ = _read_set(pattern, index)
            out.append(pattern[index:end])
            index = end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _read_set(pattern: str, start: int) -> tuple[int, str]:
    """(index after the set opened at `start`, its members as written). A `]` first (after an optional
    `^`) is a member, as `re` reads it; an unclosed set runs to the end (`re` refused it already)."""
    index = start + 1
    if pattern.startswith("^", index):
        index += 1
    if pattern.startswith("]", index):
        index += 1
    while index < len(pattern) and pattern[index] != "]":
        index += 2 if pattern[index] == "\\" else 1
    return index + 1, pattern[start + 1 : index]


def _escape_brackets(members: str) -> str:
    """A set's members with each unescaped `[` escaped."""
    out: list[str] = []
    index = 0
    while index < len(members):
        if members[index] == "\\":
            out.append(members[index : index + 2])
            index += 2
        else:
            out.append("\\[" if members[index] == "[" else members[index])
            index += 1
    return "".join(out)


def _matches_everything(members: str) -> bool:
    escapes = re.findall(r"\\.", members)
    return any(a in escapes and b in escapes for a, b in _COMPLEMENTS)


def unrolled_size(pattern: str) -> int:
    """An upper bound of the pieces `regex` unrolls `pattern` into: each item counts once, times the
    minimum count of every counted repeat around it (`{m}`, `{m,n}`, `{m,}`), summed."""
    stack = [0]  # size of each open group so far
    last = 0  # size of the item a quantifier would apply to
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if char == "(":
            stack.append(0)
            index += 1
            continue
        if char == ")" and len(stack) > 1:
            last = stack.pop()
            stack[-1] += last
            index += 1
            continue
        count = _COUNT.match(pattern, index) if char == "{" else None
        if count is not None and count.group(1):
            times = int(count.group(1)) if len(count.group(1)) < 10 else 10**9
            stack[-1] += last * (max(times, 1) - 1)
            last *= max(times, 1)
            index = count.end()
            continue
        if char == "[":
            index, _ = _read_set(pattern, index)
        else:
            index += 2 if char == "\\" else 1
        last = 1
        stack[-1] += 1
    return sum(stack)


_NOTING = threading.Lock()


@lru_cache(maxsize=256)
def checked(pattern: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """`pattern` compiled by `re` (its syntax and its errors: re.error, RecursionError for a pattern
    nested too deeply, OverflowError for a count such as `a{99999999999}`), and what `re` warns about in
    it (`[[:alpha:]]`: a possible nested set; `&&`: a possible set intersection) as a FutureWarning,
    which is recorded, never shown. The warning filters are process state: they are changed only inside
    `catch_warnings` (put back on exit) and under a lock, so two threads compiling patterns never restore
    each other's filters."""
    import warnings

    with _NOTING, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FutureWarning)
        # re.UNICODE is what a str pattern gets anyway; given explicitly, it keeps this compile out of
        # the key of `re`'s own cache, where a compile elsewhere would hide the warnings asked for here
        compiled = re.compile(pattern, re.UNICODE)
    notes = tuple(str(w.message) for w in caught if issubclass(w.category, FutureWarning))
    return compiled, notes


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


def search(pattern: str, text: str, spent: Budget) -> bool:
    """Whether `pattern` (valid for `re`) matches somewhere in `text`, as `re.search` would, within
    `spent`: BudgetExceeded once it is over (ArazzoError when the worker a pattern needs failed)."""
    written = for_empty_text(pattern) if not text else pattern
    compiled = interruptible(written)
    if spent.left() <= 0:
        raise BudgetExceeded(spent)
    if compiled is None:
        return bool(_in_worker("re.search", {"pattern": pattern, "text": text}, spent))
    return within(compiled, text, spent)


def bounded(pattern: str, text: str, spent: Budget, *, full: bool = False, version1: bool = False) -> bool:
    """Whether `pattern`, written for the `regex` module (VERSION1 with `version1`), matches `text`:
    somewhere, or the whole of it with `full` (what RFC 9535's `search()` and `match()` ask), within
    `spent` as `search` matches. ValueError for a pattern `regex` does not take."""
    compiled = _regex_compiled(pattern, version1)
    if compiled is None:
        raise ValueError(f"not a pattern: {pattern!r}")
    if spent.left() <= 0:
        raise BudgetExceeded(spent)
    return within(compiled, text, spent, full=full, version1=version1)


@lru_cache(maxsize=64)
def _regex_compiled(pattern: str, version1: bool) -> Any:
    import regex

    try:
        return regex.compile(pattern, regex.VERSION1 if version1 else 0)
    except Exception:  # regex.error, or the module's own failures on odd patterns
        return None


def within(compiled: Any, text: str, spent: Budget, *, full: bool = False, version1: bool = False) -> bool:
    """`compiled` (a `regex` pattern; VERSION1 with `version1`) on `text`, searched or with `full`
    matched whole, for at most SLICE of this process's CPU time; past that, in the evaluation worker
    with what is left of `spent`, stopped there by the clock. BudgetExceeded once `spent` is over."""
    left = spent.left()
    try:
        if full:
            return compiled.fullmatch(text, timeout=min(left, SLICE)) is not None
        return compiled.search(text, timeout=min(left, SLICE)) is not None
    except TimeoutError:
        if left <= SLICE:
            raise BudgetExceeded(spent) from None
    args = {"pattern": compiled.pattern, "text": text, "full": full, "version1": version1}
    return bool(_in_worker("regex.match", {**args, "timeout": spent.left()}, spent))


def _in_worker(op: str, args: dict[str, Any], spent: Budget) -> Any:
    from .isolated import run

    try:
        return run(op, args, spent.left())
    except BudgetExceeded:  # the worker's own budget of what was left: say it as `spent` does
        raise BudgetExceeded(spent) from None


def stopped(spent: Budget, size: int) -> str:
    """Why matching on `size` characters ended without an answer: its time, or the run's deadline."""
    if spent.deadline_message:
        return f"matching was stopped on {size} characters: {spent.deadline_message}"
    return (
        f"matching was stopped after {spent.seconds:g} s on {size} characters "
        "(the pattern backtracks catastrophically)"
    )


def is_pattern(text: str, spent: Budget) -> bool:
    """Whether `re` reads `text` as a pattern (one nested too deeply for it, or with a count it cannot
    hold, is not one): the `regex` format of JSON Schema, for a value a server sent. Compiled in pure
    Python under `budget.guarded` (BudgetExceeded once `spent` is over: 0.7 s per MB), by the compiler
    `re.compile` calls but without `re`'s cache, which would keep up to 512 such values, and with what
    `re` warns about recorded, never shown."""
    import warnings

    compiler: Any = getattr(re, "_compiler", None)
    if compiler is None:  # Python 3.10
        import sre_compile as compiler
    with _NOTING, warnings.catch_warnings(record=True):
        warnings.simplefilter("always", FutureWarning)
        try:
            guarded(spent, compiler.compile, text, 0)
        except (re.error, RecursionError, OverflowError, ValueError):
            return False
    return True
