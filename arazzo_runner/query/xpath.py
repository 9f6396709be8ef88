"""XPath 1.0 / 2.0 / 3.0 / 3.1 selectors over XML, with `elementpath`.

XML text is always parsed with `defusedxml` (entity expansion and external references are refused),
and the last few parsed documents are cached: several criteria and outputs usually query one body.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..errors import ExpressionError
from .base import CompiledQuery, QueryError

XPATH_VERSIONS = ("xpath-10", "xpath-20", "xpath-30", "xpath-31")


class XPathQuery(CompiledQuery):
    """A parsed XPath expression. `select` gives node values, `evaluate` the raw result, `boolean` the EBV."""

    __slots__ = ("_token",)

    def __init__(self, version: str, expression: str) -> None:
        super().__init__("xpath", version, expression)
        self._token = _parse(version, expression)

    def evaluate(self, data: Any) -> Any:
        """The raw XPath result: a list of `elementpath` nodes / atomic values, or one atomic value."""
        from elementpath import ElementPathError, XPathContext

        context = XPathContext(_document(data))
        try:
            return self._token.evaluate(context)
        except ElementPathError as exc:
            raise QueryError(f"XPath {self.expression!r} failed: {_message(exc)}") from exc
        except Exception as exc:  # the library's other runtime errors (e.g. recursion depth) become ours
            raise QueryError(f"XPath {self.expression!r} failed: {exc}") from exc

    def boolean(self, data: Any) -> bool:
        """The effective boolean value of the result on `data`."""
        return self.ebv(self.evaluate(data))

    def ebv(self, result: Any) -> bool:
        """The effective boolean value of a raw `evaluate` result, with the rules of this XPath version."""
        from elementpath import ElementPathError

        try:
            return bool(self._token.boolean_value(result))
        except ElementPathError as exc:
            raise QueryError(f"XPath {self.expression!r}: {_message(exc)}") from exc

    def select(self, data: Any) -> list[Any]:
        result = self.evaluate(data)
        items = result if isinstance(result, list) else [result]
        return [node_value(item) for item in items]


def node_value(item: Any) -> Any:
    """A plain Python value for one XPath item: nodes give their string value (text content)."""
    from decimal import Decimal  # elementpath imports it anyway; the run path need not

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
    return str(item)  # dates, durations, QNames, untyped atomics...


def _parse(version: str, expression: str) -> Any:
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


def _document(data: Any) -> Any:
    if isinstance(data, (str, bytes, bytearray)):
        return _parse_xml(bytes(data) if isinstance(data, bytearray) else data)
    if hasattr(data, "tag") or hasattr(data, "getroot"):
        return data  # an already parsed element or element tree
    kind = "null" if data is None else type(data).__name__
    raise QueryError(f"XPath needs an XML document, got a {kind}")


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
