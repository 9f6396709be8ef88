"""Criterion conditions (`simple`, `regex`, `jsonpath`, `xpath`) compiled once, evaluated to an `Outcome`.

```python
criterion = compile_criterion("$statusCode == 200")
criterion.evaluate(ctx)   # Outcome(passed=False, message="$statusCode == 200: got 503")
```
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ..errors import ExpressionError
from ..expressions.names import current as current_names
from ..spelling import json_spelling
from .base import PASSED, CompiledCriterion, Outcome
from .simple import SimpleCriterion

if TYPE_CHECKING:
    from .jsonpath import JSONPathCriterion
    from .regex import RegexCriterion
    from .xpath import XPathCriterion


def __getattr__(name: str) -> Any:
    """The regex, JSONPath and XPath criteria (and their selector engines) are imported on first use: a
    run whose conditions are all `simple` never loads them."""
    found: type[Any]
    if name == "JSONPathCriterion":
        from .jsonpath import JSONPathCriterion as found
    elif name == "RegexCriterion":
        from .regex import RegexCriterion as found
    elif name == "XPathCriterion":
        from .xpath import XPathCriterion as found
    else:
        raise AttributeError(f"module 'arazzo_runner.criteria' has no attribute {name!r}")
    globals()[name] = found
    return found


__all__ = [
    "CONDITION_TYPES",
    "PASSED",
    "CompiledCriterion",
    "JSONPathCriterion",
    "Outcome",
    "RegexCriterion",
    "SimpleCriterion",
    "XPathCriterion",
    "compile_criterion",
    "condition_type",
]

CONDITION_TYPES = ("simple", "regex", "jsonpath", "xpath")
_VERSIONED = ("jsonpath", "xpath")  # the types an Expression Type Object may name in a criterion


def compile_criterion(
    condition: str, type_: str | dict[str, Any] | None = None, context: str | None = None
) -> CompiledCriterion:
    """Parse a Criterion Object's condition. ExpressionError on bad syntax, unknown type/version, or a
    missing context for regex/jsonpath/xpath. Runtime problems never raise: they fail the `Outcome`.
    """
    if not isinstance(condition, str):
        raise ExpressionError("a condition must be a string", json_spelling(condition), 0)
    kind, version = condition_type(type_)
    if kind == "simple":
        return _simple(condition, context, current_names())
    if kind == "regex":
        from .regex import RegexCriterion

        return RegexCriterion(condition, None, context)
    if kind == "jsonpath":
        from .jsonpath import JSONPathCriterion

        return JSONPathCriterion(condition, version, context)
    from .xpath import XPathCriterion

    return XPathCriterion(condition, version, context)


@functools.lru_cache(maxsize=1024)
def _simple(condition: str, context: str | None, names: Any) -> SimpleCriterion:
    """A simple condition parsed once per process: documents repeat theirs (`$statusCode == 200` in
    most steps), and a parsed one is never changed (evaluating it reads a context, never writes it).
    `names`: the declared names its expressions read (`expressions/names.py`), part of the key."""
    return SimpleCriterion(condition, context)


def condition_type(type_: str | dict[str, Any] | None) -> tuple[str, str | None]:
    """(type, version) from a Criterion Object's `type`: omitted, a string or an Expression Type Object.

    jsonpath/xpath get their default version when none is named; unknown names raise ExpressionError.
    """
    if type_ is None:
        return "simple", None
    if isinstance(type_, str):
        if type_ not in CONDITION_TYPES:
            expected = ", ".join(CONDITION_TYPES)
            raise ExpressionError(f"unknown condition type {type_!r} (expected one of {expected})", type_, 0)
        return type_, _version(type_, None) if type_ in _VERSIONED else None
    if isinstance(type_, dict):
        name = type_.get("type")
        if name not in _VERSIONED:
            shown = json_spelling(name)
            message = f"an Expression Type Object in a criterion must name jsonpath or xpath, not {shown}"
            raise ExpressionError(message, shown, 0)
        return name, _version(name, type_.get("version"))
    shown = json_spelling(type_)
    raise ExpressionError(f"a condition type must be a string or an object, not {shown}", shown, 0)


def _version(type_: str, version: str | None) -> str:
    from ..query import resolve_version  # the selector engines: only for the types that have versions

    return resolve_version(type_, version)
