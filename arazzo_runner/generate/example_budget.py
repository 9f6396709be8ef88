"""The work of finding one input's example, bounded (issue 38, item 3).

An example is made from its schema (`Examples.make`) and checked against it by JSON Schema validation,
for each candidate and for each `anyOf`/`oneOf` branch tried. Through `$ref`s, schemas that reference
each other with fan-out (`anyOf: [B, B]`, `allOf: [B]`, `properties: {a: B, b: B}`, B the same again)
multiply: both the making and the validation grow as the fan-out to the power of the depth (a 2 KB
description at depth 18 had not finished in 100 s). And a catastrophic `pattern` took the schema check's
whole pattern time (5 s) for each candidate of each input.

So one input's example (`Examples.value`) has a `Budget`: `MAX_SCHEMA_NODES` schema nodes, counting each
schema made from and each combinator, reference or property keyword the validator evaluates. Past it,
or past the command's `--deadline`, `OverBudget` ends the search: the input gets no checked example,
and a note names the schema and the bound. The patterns of one candidate's check may match for
`CHECK_PATTERN_SECONDS`, those of every check of one `arazzo generate` for `PATTERN_SECONDS` in all: a
check they stop is `Undecided` (the candidate is passed over, and the note says why when none fits).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

MAX_SCHEMA_NODES = 20_000  # schema nodes made from and validated, for one input's example
CHECK_PATTERN_SECONDS = 0.25  # pattern matching of one candidate's check
PATTERN_SECONDS = 5.0  # pattern matching of all the example checks of one `arazzo generate`

_DOC_URI = "urn:arazzo:generated"  # the document the examples are checked in, by this name only
_CURRENT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("generate_budget", default=None)


class OverBudget(Exception):
    """The search for one example went past a bound: `reason` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Undecided(Exception):
    """A candidate's check was stopped by its pattern time: whether it fits is not known."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Patterns:
    """The pattern matching time left to the example checks of one generated document."""

    def __init__(self) -> None:
        self.left = PATTERN_SECONDS


class Budget:
    """What one input's example may still cost: nodes of its own, pattern time shared (`patterns`)."""

    def __init__(self, patterns: Patterns) -> None:
        self.nodes = 0
        self.patterns = patterns

    def spend(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_SCHEMA_NODES:
            raise OverBudget(f"more than {MAX_SCHEMA_NODES} schema nodes")
        if self.nodes % 256 == 0:
            check_deadline()


def check_deadline() -> None:
    """OverBudget when the command's deadline (`--deadline`, armed) has passed."""
    from ..bounds.deadline import armed

    deadline = armed()
    if deadline is not None and deadline.expired():
        raise OverBudget(deadline.message)


def active(budget: Budget) -> contextvars.Token:
    """Make `budget` the one the validator's keywords count against (reset with the token)."""
    return _CURRENT.set(budget)


def reset(token: contextvars.Token) -> None:
    _CURRENT.reset(token)


def spend() -> None:
    """Count one schema node made from against the budget in effect (OverBudget past it)."""
    budget = _CURRENT.get()
    if budget is not None:
        budget.spend()


def problems(value: Any, document: dict[str, Any]) -> list[str]:
    """What is wrong with `value` under `document["schema"]` (an Arazzo document's inputs components
    beside it), checked as a run checks inputs, each keyword counted against the budget in effect.
    Raises OverBudget past a bound."""
    from ..bounds.budget import BudgetExceeded
    from ..sources.schema_patterns import PatternStopped, checking, run_check
    from ..sources.schema_registry import registry as schema_registry
    from ..sources.simple_schema import subset_problems

    budget = _CURRENT.get()

    patterns = budget.patterns if budget is not None else Patterns()

    allowed = max(min(CHECK_PATTERN_SECONDS, patterns.left), 0.0)

    def check() -> list[str]:
        with checking(allowed) as clock:
            try:
                fast = subset_problems(document["schema"], value, document)
                if fast is None:
                    registry = schema_registry(resources={_DOC_URI: document})
                    validator = _counting_class()({"$ref": f"{_DOC_URI}#/schema"}, registry=registry)
                    fast = [error.message for error in validator.iter_errors(value)]
            finally:
                patterns.left -= clock.used
            if clock.used >= allowed and any("could not be checked" in p for p in fast):
                raise Undecided(_said(next(p for p in fast if "could not be checked" in p), allowed))
            return fast

    try:
        return run_check(check)
    except PatternStopped as exc:
        raise Undecided(_said(str(exc), allowed)) from None
    except BudgetExceeded as exc:
        raise OverBudget(exc.cause()) from None


def _said(reason: str, allowed: float) -> str:
    if allowed < CHECK_PATTERN_SECONDS:
        return f"{reason}; the {PATTERN_SECONDS:g} s of pattern matching of this generate were spent"
    return reason


_COUNTED = (
    "$ref",
    "$dynamicRef",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "properties",
    "patternProperties",
    "additionalProperties",
    "dependentSchemas",
    "items",
    "prefixItems",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "pattern",
)


@lru_cache(maxsize=1)
def _counting_class() -> Any:
    """The bounded 2020-12 validator class (`schema_keywords.bounded`), each keyword that descends (and
    `pattern`) counting against the budget in effect."""
    import jsonschema
    from jsonschema.validators import extend

    from ..sources.schema_keywords import bounded

    base = bounded(jsonschema.Draft202012Validator)
    keywords = {name: _counted(name, base.VALIDATORS[name]) for name in _COUNTED if name in base.VALIDATORS}
    return extend(base, keywords)


def _counted(name: str, original: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        budget = _CURRENT.get()
        if budget is not None:
            budget.spend()
        yield from original(validator, value, instance, schema)

    return keyword
