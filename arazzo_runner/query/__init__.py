"""Selector engines (JSONPath, XPath, JSON Pointer): compile once, `select(data)` many times.

```python
query = compile_selector("jsonpath", None, "$.items[*].id")
query.select({"items": [{"id": 1}]})   # -> [1]
```
"""

from __future__ import annotations

from functools import lru_cache

from ..errors import ExpressionError
from ..spelling import json_spelling
from .base import CompiledQuery, QueryError, QueryStopped
from .goessner import GOESSNER, GoessnerQuery
from .jsonpath import RFC9535, RFC9535Query
from .jsonpointer import PointerQuery
from .xpath import XPATH_VERSIONS, XPathQuery

__all__ = [
    "DEFAULT_VERSIONS",
    "SELECTOR_VERSIONS",
    "CompiledQuery",
    "GoessnerQuery",
    "PointerQuery",
    "QueryError",
    "QueryStopped",
    "RFC9535Query",
    "XPathQuery",
    "compile_selector",
    "resolve_version",
]

SELECTOR_VERSIONS: dict[str, tuple[str, ...]] = {
    "jsonpath": (RFC9535, GOESSNER),
    "xpath": XPATH_VERSIONS,
    "jsonpointer": ("rfc6901",),
}
DEFAULT_VERSIONS: dict[str, str] = {"jsonpath": RFC9535, "xpath": "xpath-31", "jsonpointer": "rfc6901"}


def resolve_version(type_: str, version: str | None) -> str:
    """The version to use for `type_` (its default when `version` is None); ExpressionError if unknown."""
    if type_ not in SELECTOR_VERSIONS:
        known = ", ".join(SELECTOR_VERSIONS)
        raise ExpressionError(f"unknown selector type {type_!r} (expected one of {known})", str(type_), 0)
    if version is None:
        return DEFAULT_VERSIONS[type_]
    if version not in SELECTOR_VERSIONS[type_]:
        known = ", ".join(SELECTOR_VERSIONS[type_])
        message = f"unknown {type_} version {version!r} (expected one of {known})"
        raise ExpressionError(message, str(version), 0)
    return version


@lru_cache(maxsize=1024)
def compile_selector(type_: str, version: str | None, expression: str) -> CompiledQuery:
    """Parse `expression` as a `type_` selector; ExpressionError on bad syntax or unknown type/version.

    Results are cached by (type, version, expression); compiled queries are immutable and shareable.
    """
    version = resolve_version(type_, version)
    if not isinstance(expression, str):
        raise ExpressionError(f"a {type_} selector must be a string", json_spelling(expression), 0)
    if type_ == "jsonpath":
        return RFC9535Query(expression) if version == RFC9535 else GoessnerQuery(expression)
    if type_ == "xpath":
        return XPathQuery(version, expression)
    return PointerQuery(version, expression)
