"""`regex` conditions: a regular-expression search over the context converted to text.

Numbers and booleans use their JSON spelling (`200`, `true`), objects and arrays compact JSON. Patterns
are checked with Python's `re` (its syntax and error messages) and matched with the `regex` module,
rewritten where the two read a pattern differently (`patterns.py`), with a timeout: a pattern that
backtracks catastrophically on a response (`(a|a)*b`) fails its criterion after `limits.REGEX_TIMEOUT`
s, or at the run's deadline if that comes first, instead of stalling the run. A pattern `regex` cannot
take (counted repeats it would unroll into too much, or one it refuses) is matched with `re` in the
evaluation worker (`bounds/isolated.py`), within the same time.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any

from ..bounds import budget, limits
from ..bounds.budget import BudgetExceeded
from ..bounds.patterns import checked, search, stopped
from ..errors import ArazzoError, ExpressionError
from .base import PASSED, Outcome
from .contextual import ContextCriterion
from .display import show
from .runtime import to_text


def compile_pattern(pattern: str) -> re.Pattern[str]:
    return _compiled(pattern)[0]


def pattern_notes(pattern: str) -> tuple[str, ...]:
    """What Python's `re` warns about in `pattern` (`[[:alpha:]]`: a possible nested set; `&&`: a
    possible set intersection): constructs other engines read differently, for the validator to tell;
    never a Python warning on the user's terminal."""
    tail = "Python reads these characters literally, other regex engines may not"
    return tuple(f"regex {pattern!r}: {note.lower()}: {tail}" for note in _compiled(pattern)[1])


# A JavaScript regex literal, `/pattern/flags`: what other tools' documents write (Respect's examples).
_LITERAL = re.compile(r"/(?P<body>.+)/(?P<flags>[a-z]*)", re.DOTALL)
# What only a pattern writes, never a path to find in a URL: `/api/v1/ids` (a slash inside, none of it)
# is no literal, and `/followers/ids` (a path or `followers` with flags?) is told but not rewritten.
_SYNTAX = re.compile(r"[\\^$*+?()\[\]{}|]")
_INLINE = frozenset("ims")  # the JavaScript flags Python writes inline the same way: (?i), (?m), (?s)
_SAME_MEANING = frozenset("imsgud")  # flags whose pattern Python's re reads the same way once unwrapped
_OTHER_FLAGS = MappingProxyType(
    {  # the others, and why a condition needs none
        "g": "a condition passes on its first match",
        "u": "Python patterns are Unicode already",
        "d": "match indices are not used",
        "y": "anchor with ^ instead",
        "v": "Python has no set operations in classes",
    }
)


def delimited(pattern: str) -> str | None:
    """When `pattern` is written as a JavaScript regex literal (`/^[0-9A-F]{8}$/i`), whose slashes and
    flags the engine matches literally: what happens and the pattern to write instead; else None.

    An Arazzo regex condition is the pattern alone, in Python's `re` syntax: a `/` is a character to
    match and there is no place for flags after the pattern (they go inline, `(?i)`). Only what cannot
    mean the literal text counts: JavaScript's flags after the closing slash (each at most once), or,
    without flags, `/^` or `$/` (a slash before the start or after the end of the text never matches).
    A plain `/pets/`, a path to find in a URL, is left alone, and so is `/api/v1/ids`: a path whose last
    segment spells flags, with a slash inside and no regex syntax (which would end a JavaScript literal)."""
    found = _literal(pattern)
    if found is None:
        return None
    body, flags = found
    inline = "".join(f for f in flags if f in _INLINE)
    advice = f"write {f'(?{inline})' if inline else ''}{body}"
    others = [f"{f}: {_OTHER_FLAGS[f]}" for f in flags if f in _OTHER_FLAGS]
    if others:
        advice += f" ({'; '.join(others)})"
    what = f"the slashes and the flag{'s' if len(flags) > 1 else ''} {flags}" if flags else "the slashes"
    return (
        f"{what} are matched literally, as characters of the text (a regex condition is the pattern "
        f"alone, in Python re syntax, flags inline): {advice}"
    )


def unwrapped(pattern: str) -> str | None:
    """The pattern a JavaScript literal stands for (`(?i)^[0-9A-F]{8}$` for `/^[0-9A-F]{8}$/i`), when
    Python's `re` reads it the same way: flags `i`, `m`, `s` inline, `g`, `u`, `d` dropped (a search
    stops at its first match, patterns are Unicode, indices are not used). None otherwise: not a
    literal, a flag with no equivalent (`y` anchors at a position, `v` has set operations), a pattern
    `re` cannot compile once unwrapped, or one without regex syntax (an anchor, a class, a group, a
    quantifier, an escape): `/followers/ids` may be Twitter's path as much as `followers` with flags,
    and a mechanical fix has one meaning to write."""
    found = _literal(pattern)
    if found is None or not set(found[1]) <= _SAME_MEANING or _SYNTAX.search(found[0]) is None:
        return None
    body, flags = found
    inline = "".join(f for f in flags if f in _INLINE)
    written = f"(?{inline}){body}" if inline else body
    try:
        compile_pattern(written)
    except ExpressionError:  # JavaScript-only syntax inside (`(?<name>...)`): no mechanical rewrite
        return None
    return written


def _literal(pattern: str) -> tuple[str, str] | None:
    """(pattern, flags) of what can only be a JavaScript regex literal (see `delimited`), else None."""
    found = _LITERAL.fullmatch(pattern)
    if found is None:
        return None
    body, flags = found["body"], found["flags"]
    if flags:
        if not set(flags) <= _INLINE | _OTHER_FLAGS.keys() or len(set(flags)) != len(flags):
            return None
        if "/" in body and _SYNTAX.search(body) is None:  # `/api/v1/ids`: a path, never a literal
            return None
    elif not (body.startswith("^") or (body.endswith("$") and not body.endswith("\\$"))):
        return None
    return body, flags


def _compiled(pattern: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    try:
        return checked(pattern)
    except re.error as exc:
        raise ExpressionError(f"invalid regular expression: {exc.msg}", pattern, exc.pos or 0) from None
    except RecursionError:  # Python's pattern parser recurses once per nested group
        raise ExpressionError("invalid regular expression: nested too deeply", pattern, 0) from None
    except OverflowError as exc:  # a repetition count such as a{99999999999}
        raise ExpressionError(f"invalid regular expression: {exc}", pattern, 0) from None


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
            found = search(matcher.pattern, text, spent)
        except BudgetExceeded as exc:
            return Outcome(False, f"{condition}: {stopped(exc.budget, len(text))}")
        except ArazzoError as exc:  # the worker failed (it could not start, ...)
            return Outcome(False, f"{condition}: cannot be matched: {exc}")
        if found:
            return PASSED
        # a template's pattern to write is the template's (`(?i)^{$inputs.x}$`), not its rendering
        written = delimited(self.condition) if self._embedded is not None else None
        hints = [written or delimited(matcher.pattern), self._structured(value)]
        return Outcome(False, "; ".join([f"{condition}: no match in {show(text)}", *filter(None, hints)]))

    def _structured(self, value: Any) -> str | None:
        """What to say when the context is an object or an array: the pattern met its JSON text."""
        kind = "an object" if isinstance(value, dict) else "an array" if isinstance(value, list) else None
        if kind is None:
            return None
        return (
            f"the context {self.context} is {kind}, searched as its compact JSON text: to match a member, "
            "make the context that member"
        )
