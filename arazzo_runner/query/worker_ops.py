"""What the evaluation worker (`worker.py`) can be asked to do: a fixed table of operations on data.

Imported only inside the worker. Every argument and result is plain JSON data; an operation's own
errors travel back as `{"kind", "message", "position", "text"}` and become the same exceptions in the
engine's process (`isolated.py`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..errors import ExpressionError
from . import xml_edit, xpath_engine
from .base import QueryError


def re_search(pattern: str, text: str) -> bool:
    """Python's `re` search, for the rare pattern the `regex` module does not take (its FutureWarnings,
    "possible nested set", go to the worker's stderr, which is discarded)."""
    return re.search(pattern, text) is not None


def regex_match(pattern: str, text: str, full: bool, version1: bool, timeout: float) -> bool:
    """The `regex` module's search (fullmatch with `full`), for a match that took longer than the
    engine's process gives one (`patterns.SLICE`): here the parent stops it by the clock; `timeout`,
    the request's time, is the module's own bound (in CPU time) besides."""
    import regex

    compiled = regex.compile(pattern, regex.VERSION1 if version1 else 0)
    if full:
        return compiled.fullmatch(text, timeout=timeout) is not None
    return compiled.search(text, timeout=timeout) is not None


def goessner_select(expression: str, data: Any) -> list[Any]:
    """The values a JSONPath query of Goessner's dialect selects (its `=~` and `sub()` use `re`)."""
    try:
        return [match.value for match in _goessner(expression).find(data)]
    except RecursionError:
        raise QueryError(f"JSONPath {expression!r} failed: nested too deeply") from None
    except MemoryError:
        raise
    except Exception as exc:  # the library's own runtime errors
        raise QueryError(f"JSONPath {expression!r} failed: {exc}") from None


@lru_cache(maxsize=64)
def _goessner(expression: str) -> Any:
    from .goessner import compile_goessner

    return compile_goessner(expression)


def _prepare_regex() -> None:
    import regex  # noqa: F401


def _prepare_goessner() -> None:
    from jsonpath_ng.ext import parse  # noqa: F401


OPERATIONS = {
    "xpath.check": xpath_engine.check,
    "xpath.evaluate": xpath_engine.evaluate,
    "xml.replace": xml_edit.replace,
    "jsonpath.goessner": goessner_select,
    "re.search": re_search,
    "regex.match": regex_match,
}
_PREPARE = {
    "xpath": xpath_engine.prepare,
    "goessner": _prepare_goessner,
    "re": lambda: None,
    "regex": _prepare_regex,
}


def prepare(engine: str) -> None:
    """Import what an engine needs before its first request, outside that request's time."""
    _PREPARE[engine]()


def describe_error(exc: Exception) -> dict[str, Any]:
    """The reply for an operation's exception."""
    if isinstance(exc, ExpressionError):
        return {"kind": "expression", "message": exc.message, "text": exc.text, "position": exc.position}
    if isinstance(exc, QueryError):
        return {"kind": "query", "message": str(exc)}
    if isinstance(exc, RecursionError):
        return {"kind": "query", "message": "nested too deeply"}
    if isinstance(exc, TimeoutError):  # the `regex` module's own timeout
        return {"kind": "timeout"}
    return {"kind": "internal", "message": f"{type(exc).__name__}: {exc}"}
