"""JSONPath selectors: RFC 9535 (`jsonpath_rfc9535`) and Goessner's draft (`jsonpath_ng.ext`).

The libraries are imported inside the compile functions so that loading the engine stays fast for
documents that never use JSONPath.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ExpressionError
from .base import CompiledQuery, QueryError

RFC9535 = "rfc9535"
GOESSNER = "draft-goessner-dispatch-jsonpath-00"

# `$[?...]` (blanks allowed between the tokens): the first segment is a filter on the root's children.
_ROOT_FILTER_TEXT = re.compile(r"\s*\$\s*\[\s*\?")
_LINE_SUFFIX = re.compile(r",? line \d+, column \d+$")
_NG_LINE_COL = re.compile(r"(?:line |at )(\d+)(?:, col |:)(\d+)")


class RFC9535Query(CompiledQuery):
    __slots__ = ("_query", "root_filter")

    def __init__(self, expression: str) -> None:
        super().__init__("jsonpath", RFC9535, expression)
        self._query = _compile_rfc9535(expression)
        self.root_filter = _starts_with_root_filter(self._query)

    def select(self, data: Any) -> list[Any]:
        try:
            return self._query.find(data).values()
        except Exception as exc:  # the library's runtime errors (e.g. recursion depth) become ours
            raise QueryError(f"JSONPath {self.expression!r} failed: {exc}") from exc


class GoessnerQuery(CompiledQuery):
    __slots__ = ("_query", "root_filter")

    def __init__(self, expression: str) -> None:
        super().__init__("jsonpath", GOESSNER, expression)
        self._query = _compile_goessner(expression)
        self.root_filter = _ROOT_FILTER_TEXT.match(expression) is not None

    def select(self, data: Any) -> list[Any]:
        try:
            return [match.value for match in self._query.find(data)]
        except Exception as exc:
            raise QueryError(f"JSONPath {self.expression!r} failed: {exc}") from exc


def _compile_rfc9535(expression: str) -> Any:
    import jsonpath_rfc9535

    try:
        return jsonpath_rfc9535.compile(expression)
    except jsonpath_rfc9535.JSONPathError as exc:
        token = getattr(exc, "token", None)
        position = token.index if token is not None else 0
        message = _LINE_SUFFIX.sub("", str(exc.args[0]) if exc.args else str(exc))
        raise ExpressionError(f"invalid JSONPath: {message}", expression, position) from None
    except RecursionError:  # the library's parser recurses per `!` and parenthesis
        raise ExpressionError("invalid JSONPath: nested too deeply to parse", expression, 0) from None


def _compile_goessner(expression: str) -> Any:
    from jsonpath_ng.exceptions import JSONPathError
    from jsonpath_ng.ext import parse

    try:
        return parse(expression)
    except (JSONPathError, ValueError, TypeError) as exc:
        message = str(exc).rstrip(" !")
        position = _ng_position(expression, message)
        raise ExpressionError(f"invalid JSONPath: {message}", expression, position) from None
    except Exception as exc:  # ply sometimes fails with other errors on odd input
        raise ExpressionError(f"invalid JSONPath: {exc}", expression, 0) from None


def _ng_position(expression: str, message: str) -> int:
    # jsonpath_ng reports "line L, col C" / "at L:C" (1-based line, 0-based column) or "end of string".
    found = _NG_LINE_COL.search(message)
    if found is None:
        return len(expression) if "end" in message or "EOF" in message else 0
    line, column = int(found.group(1)), int(found.group(2))
    lines = expression.split("\n")
    offset = sum(len(text) + 1 for text in lines[: max(line - 1, 0)])
    return min(offset + column, len(expression))


def _starts_with_root_filter(query: Any) -> bool:
    from jsonpath_rfc9535.segments import JSONPathChildSegment
    from jsonpath_rfc9535.selectors import FilterSelector

    segments = query.segments
    if not segments or not isinstance(segments[0], JSONPathChildSegment):
        return False
    selectors = segments[0].selectors
    return bool(selectors) and all(isinstance(s, FilterSelector) for s in selectors)
