"""JSONPath selectors of RFC 9535 (`jsonpath_rfc9535`); Goessner's draft is `goessner.py`.

The library is imported inside the compile function so that loading the engine stays fast for documents
that never use JSONPath.

Every evaluation is bounded in time (`limits.QUERY_TIMEOUT`, or the run's deadline when it comes
first): a query's cost grows with the data, and faster than it with nested descendants, filters over
`$` or repeated selectors (`$..*..*..*`, `$[*,*][*,*]...`). RFC 9535 queries run in this process under
`budget.metered`, compiled to count their own work (`jsonpath_counted.py`: no profile hook, which
cost twice the query), with `match()` and `search()` through the engine's bounded matcher
(`patterns.bounded`: the library's own versions have no bound).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..bounds import budget, limits
from ..bounds.budget import BudgetExceeded
from ..bounds.patterns import UNROLL_LIMIT, unrolled_size
from ..errors import ExpressionError
from .base import CompiledQuery, QueryError, QueryStopped

RFC9535 = "rfc9535"

_LINE_SUFFIX = re.compile(r",? line \d+, column \d+$")


class RFC9535Query(CompiledQuery):
    __slots__ = ("_query", "root_filter")

    def __init__(self, expression: str) -> None:
        super().__init__("jsonpath", RFC9535, expression)
        self._query = _compile_rfc9535(expression)
        self.root_filter = _starts_with_root_filter(self._query)

    def select(self, data: Any) -> list[Any]:
        try:
            return budget.metered(_budget(), _values, self._query, data)
        except BudgetExceeded as exc:
            raise QueryStopped(exc.budget, exc.memory) from None
        except _PatternRefused as exc:
            raise QueryError(f"JSONPath {self.expression!r} failed: {exc}") from None
        except Exception as exc:  # the library's runtime errors (e.g. recursion depth) become ours
            raise QueryError(f"JSONPath {self.expression!r} failed: {exc}") from exc


def _budget() -> budget.Budget:
    """The budget of one RFC 9535 evaluation: its time, and how much the process may grow meanwhile."""
    return budget.budget(limits.QUERY_TIMEOUT, limits.QUERY_MEMORY)


def _values(query: Any, data: Any) -> list[Any]:
    return query.find(data).values()


def locations(expression: str, data: Any) -> list[tuple[str | int, ...]]:
    """Where the RFC 9535 query `expression` selects in `data` (the keys and indexes leading to each
    node), within `limits.QUERY_TIMEOUT` or the run's deadline; ExpressionError, QueryError."""
    query = _compile_rfc9535(expression)
    try:
        nodes = budget.metered(_budget(), query.find, data)
    except BudgetExceeded as exc:
        raise QueryStopped(exc.budget, exc.memory) from None
    except _PatternRefused as exc:
        raise QueryError(str(exc)) from None
    except Exception as exc:  # the library's runtime errors
        raise QueryError(str(exc)) from exc
    return [tuple(node.location) for node in nodes]


def _compile_rfc9535(expression: str) -> Any:
    import jsonpath_rfc9535

    from .jsonpath_counted import counted

    try:
        return counted(_environment().compile(expression))
    except jsonpath_rfc9535.JSONPathError as exc:
        token = getattr(exc, "token", None)
        position = token.index if token is not None else 0
        message = _LINE_SUFFIX.sub("", str(exc.args[0]) if exc.args else str(exc))
        raise ExpressionError(f"invalid JSONPath: {message}", expression, position) from None
    except RecursionError:  # the library's parser recurses per `!` and parenthesis
        raise ExpressionError("invalid JSONPath: nested too deeply to parse", expression, 0) from None


def _starts_with_root_filter(query: Any) -> bool:
    from jsonpath_rfc9535.segments import JSONPathChildSegment
    from jsonpath_rfc9535.selectors import FilterSelector

    from .jsonpath_counted import uncounted

    segments = query.segments
    if not segments or not isinstance(segments[0], JSONPathChildSegment):
        return False
    selectors = segments[0].selectors
    return bool(selectors) and all(isinstance(uncounted(s), FilterSelector) for s in selectors)


class _PatternRefused(BaseException):
    """A `match()`/`search()` pattern the `regex` module would unroll into too much (see patterns.py).
    A BaseException, to pass the library's handlers; `select` turns it into a QueryError."""


@lru_cache(maxsize=1)
def _environment() -> Any:
    """A JSONPath environment whose `match()` and `search()` stop at the end of the evaluation's budget."""
    from iregexp_check import check
    from jsonpath_rfc9535 import JSONPathEnvironment
    from jsonpath_rfc9535.function_extensions import Match, Search
    from jsonpath_rfc9535.function_extensions._pattern import map_re

    class BoundedMatch(Match):
        def __call__(self, string: str, pattern: object) -> bool:
            if not isinstance(pattern, str) or not check(pattern):
                return False
            return _matches(map_re(pattern), string, full=True)

    class BoundedSearch(Search):
        def __call__(self, string: str, pattern: object) -> bool:
            if not isinstance(pattern, str) or not check(pattern):
                return False
            return _matches(map_re(pattern), string, full=False)

    class BoundedEnvironment(JSONPathEnvironment):
        def setup_function_extensions(self) -> None:
            super().setup_function_extensions()
            self.function_extensions["match"] = BoundedMatch()
            self.function_extensions["search"] = BoundedSearch()

    return BoundedEnvironment()


def _matches(pattern: str, string: str, *, full: bool) -> bool:
    """The library's `match()` (fullmatch) or `search()` (VERSION1) through the engine's bounded matcher
    (`patterns.bounded`, as `regex` criteria match), within the evaluation's budget; BudgetExceeded
    when it runs out (outside `metered`: `limits.QUERY_TIMEOUT`)."""
    from ..bounds.patterns import bounded

    spent = budget.current() or budget.budget(limits.QUERY_TIMEOUT)
    if unrolled_size(pattern) > UNROLL_LIMIT:
        raise _PatternRefused(f"the pattern {pattern!r} repeats too much to compile (over {UNROLL_LIMIT})")
    if not isinstance(string, str):
        return False
    try:
        return bounded(pattern, string, spent, full=full, version1=not full)
    except ValueError:  # not a pattern the `regex` module takes: the library's answer for it
        return False
