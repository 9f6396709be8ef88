"""XPath 1.0 - 3.1 with `elementpath`, as the evaluation worker runs it (`worker_ops.py`).

Nothing here runs in the engine's own process: elementpath evaluates in pure Python with no limit,
folds constant parts while parsing (`count(1 to 100000000)` builds a 4.7 GB sequence before any data
is seen) and matches `matches()` patterns with `re`; the worker bounds it all (`worker.py`). XML text
is parsed with `defusedxml` (no entity expansion, no external references); the last few parsed
documents and expressions are kept, since several criteria and outputs usually query one body.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..errors import ExpressionError
from .base import QueryError

SEEN_ITEMS = 20  # items of a failing result sent back to be shown
SEEN_CHARS = 500  # characters of each


def prepare() -> None:
    """Import the parsers now, before any request's timer runs (about 0.5 s)."""
    import defusedxml.ElementTree  # noqa: F401
    import elementpath  # noqa: F401
    from elementpath.xpath31 import XPath31Parser  # noqa: F401


def check(version: str, expression: str) -> None:
    """Parse `expression` (its constant parts are evaluated too); ExpressionError when it is invalid."""
    _token(version, expression)


def evaluate(version: str, expression: str, document: str, raw: bool, mode: str) -> Any:
    """`mode` "select": the node values of the result; "test": {"passed": its effective boolean value,
    "seen": what it was when false}. `raw`: `document` holds bytes (decoded as latin-1, one char a byte)."""
    from elementpath import ElementPathError, XPathContext

    token = _token(version, expression)
    root = _parse_xml(document.encode("latin-1") if raw else document)
    try:
        result = token.evaluate(XPathContext(root))
        if mode == "select":
            return [node_value(item) for item in (result if isinstance(result, list) else [result])]
        passed = bool(token.boolean_value(result))
    except ElementPathError as exc:
        raise QueryError(f"XPath {expression!r} failed: {_message(exc)}") from None
    except RecursionError:
        raise QueryError(f"XPath {expression!r} failed: nested too deeply") from None
    except MemoryError:
        raise
    except Exception as exc:  # the library's other runtime errors
        raise QueryError(f"XPath {expression!r} failed: {exc}") from None
    return {"passed": passed, "seen": None if passed else _seen(result)}


def node_value(item: Any) -> Any:
    """A plain (JSON) value for one XPath item: nodes give their string value (text content)."""
    from decimal import Decimal

    from elementpath import XPathNode

    if isinstance(item, XPathNode):
        return item.string_value
    if item is None or type(item) in (bool, int, float, str):
        return item
    if isinstance(item, (int, float)):  # elementpath's derived numeric types (xs:long, ...)
        return item + 0
    if isinstance(item, Decimal):
        return int(item) if item == item.to_integral_value() else float(item)
    if isinstance(item, list):  # XPath 3.1 arrays
        return [node_value(member) for member in item]
    return str(item)  # dates, durations, QNames, untyped atomics, maps...


def _seen(result: Any) -> dict[str, Any]:
    items = result if isinstance(result, list) else [result]
    values = [_cut(node_value(item)) for item in items[:SEEN_ITEMS]]
    return {"sequence": isinstance(result, list), "values": values, "more": max(0, len(items) - SEEN_ITEMS)}


def _cut(value: Any) -> Any:
    return value[:SEEN_CHARS] + "…" if isinstance(value, str) and len(value) > SEEN_CHARS else value


@lru_cache(maxsize=256)
def _token(version: str, expression: str) -> Any:
    from elementpath import ElementPathError

    try:
        return _parser_class(version)().parse(expression)
    except ElementPathError as exc:
        span = getattr(getattr(exc, "token", None), "span", None)
        position = span[0] if span else 0
        raise ExpressionError(f"invalid XPath: {_message(exc)}", expression, position) from None
    except RecursionError:  # elementpath's parser recurses per operator and step
        raise ExpressionError("invalid XPath: nested too deeply to parse", expression, 0) from None


def _parser_class(version: str) -> type:
    if version == "xpath-10":
        from elementpath import XPath1Parser

        return XPath1Parser
    if version == "xpath-20":
        from elementpath import XPath2Parser

        return XPath2Parser
    if version == "xpath-30":
        from elementpath.xpath30 import XPath30Parser

        return XPath30Parser
    from elementpath.xpath31 import XPath31Parser

    return XPath31Parser


def _message(exc: Exception) -> str:
    return str(getattr(exc, "message", None) or exc)


@lru_cache(maxsize=8)
def _parse_xml(text: str | bytes) -> Any:
    import defusedxml.ElementTree as DefusedET
    from defusedxml import DefusedXmlException
    from elementpath import get_node_tree

    try:
        root = DefusedET.fromstring(text)
    except DefusedXmlException as exc:
        raise QueryError(f"refusing unsafe XML: {exc!r}") from None
    except (SyntaxError, ValueError) as exc:  # ParseError is a SyntaxError
        raise QueryError(f"the context is not well-formed XML: {exc}") from None
    return get_node_tree(root)
