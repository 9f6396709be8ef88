"""JSONPath selectors of Goessner's draft (`jsonpath_ng.ext`), the dialect most tools read before RFC 9535.

Its queries run in the evaluation worker (`isolated.py`): their `=~` and `sub()` match with `re`, which
nothing in the engine's process can stop, and the library swallows exceptions in places; the worker is
killed at the end of the query's time (`limits.QUERY_TIMEOUT`, or the run's deadline when it comes first).
This module is also what the worker compiles with (`worker_ops.py`), so it never imports the engine's
bounded matcher, which calls the worker: a query compiled here is evaluated there.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from ..bounds import limits
from ..bounds.budget import BudgetExceeded
from ..errors import ExpressionError
from .base import CompiledQuery, QueryError, QueryStopped

GOESSNER = "draft-goessner-dispatch-jsonpath-00"

# `$[?...]` (blanks allowed between the tokens): the first segment is a filter on the root's children.
_ROOT_FILTER_TEXT = re.compile(r"\s*\$\s*\[\s*\?")
_NG_LINE_COL = re.compile(r"(?:line |at )(\d+)(?:, col |:)(\d+)")


class GoessnerQuery(CompiledQuery):
    __slots__ = ("_query", "root_filter")

    def __init__(self, expression: str) -> None:
        super().__init__("jsonpath", GOESSNER, expression)
        self._query = compile_goessner(expression)
        self.root_filter = _ROOT_FILTER_TEXT.match(expression) is not None

    def select(self, data: Any) -> list[Any]:
        from ..bounds.isolated import EvaluationError, run

        args = {"expression": self.expression, "data": data}
        try:
            return list(run("jsonpath.goessner", args, limits.QUERY_TIMEOUT))
        except BudgetExceeded as exc:
            raise QueryStopped(exc.budget, exc.memory) from None
        except EvaluationError as exc:
            raise QueryError(f"JSONPath {self.expression!r}: {exc}") from None
        except (TypeError, ValueError) as exc:  # data that is not JSON (bytes, ...) cannot be sent
            raise QueryError(f"JSONPath {self.expression!r} cannot read this value: {exc}") from None


def compile_goessner(expression: str) -> Any:
    """`jsonpath_ng.ext.parse(expression)` with one parser per process: `parse` makes a new parser each
    call, and ply builds its LALR tables again for each (~10 ms); a parser keeps its parse state on
    itself, so it parses one expression at a time."""
    from jsonpath_ng.exceptions import JSONPathError

    parser, lock = _goessner_parser()
    try:
        with lock:
            return parser.parse(expression)
    except (JSONPathError, ValueError, TypeError) as exc:
        message = str(exc).rstrip(" !")
        position = _ng_position(expression, message)
        raise ExpressionError(f"invalid JSONPath: {message}", expression, position) from None
    except Exception as exc:  # ply sometimes fails with other errors on odd input
        raise ExpressionError(f"invalid JSONPath: {exc}", expression, 0) from None


@lru_cache(maxsize=1)
def _goessner_parser() -> tuple[Any, threading.Lock]:
    from jsonpath_ng.ext.parser import ExtendedJsonPathParser

    return ExtendedJsonPathParser(), threading.Lock()


def _ng_position(expression: str, message: str) -> int:
    # jsonpath_ng reports "line L, col C" / "at L:C" (1-based line, 0-based column) or "end of string".
    found = _NG_LINE_COL.search(message)
    if found is None:
        return len(expression) if "end" in message or "EOF" in message else 0
    line, column = int(found.group(1)), int(found.group(2))
    lines = expression.split("\n")
    offset = sum(len(text) + 1 for text in lines[: max(line - 1, 0)])
    return min(offset + column, len(expression))
