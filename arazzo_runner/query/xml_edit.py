"""XPath replacements in XML payloads, as the evaluation worker runs them (`worker_ops.py`): set the text
of the elements, or the value of the attributes, that an XPath expression selects.

Run in the worker, not in the engine's process: the expression is the document's and elementpath
cannot be stopped (see `xpath_engine.py`). The payload is parsed with defusedxml (no entity expansion,
no external references). Namespace prefixes declared in the payload can be used in the expression. A
selected element's content is replaced by the value's text (its child elements are dropped); a
selected attribute gets the value; a selected text node sets its element's text. Selecting nothing, or
only atomic values (`count(//a)`), is an error. The XML declaration is kept; comments and processing
instructions inside the document are dropped by the round trip, as is a DOCTYPE.
"""

from __future__ import annotations

import io
import re
from typing import Any

from .base import QueryError

_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def replace(payload: str, target: str, text: str, version: str | None) -> str:
    """`payload` with what `target` selects set to `text`; QueryError (its message for the step)."""
    import defusedxml.ElementTree as DefusedET
    from defusedxml import DefusedXmlException

    try:
        namespaces = _namespaces(payload)
        root = DefusedET.fromstring(payload)
    except DefusedXmlException as exc:
        raise QueryError(f"refusing unsafe XML payload: {exc!r}") from None
    except SyntaxError as exc:  # ElementTree.ParseError
        raise QueryError(f"the XML payload is not well-formed: {exc}") from None
    changed = sum(_assign(node, text) for node in _select(root, namespaces, target, version))
    if not changed:
        raise QueryError(f"replacement target '{target}' selects no element or attribute in the payload")
    declaration = _DECLARATION.match(payload)
    return _serialize(root, namespaces, declaration.group(0).strip() if declaration else None)


def _select(root: Any, namespaces: dict[str, str], target: str, version: str | None) -> list[Any]:
    from elementpath import ElementPathError, XPathContext

    from .xpath_engine import _parser_class

    try:
        parser = _parser_class(version or "xpath-31")(namespaces={k: v for k, v in namespaces.items() if k})
        result = list(parser.parse(target).select(XPathContext(root)))
    except ElementPathError as exc:
        message = getattr(exc, "message", None) or str(exc)
        raise QueryError(f"replacement target '{target}' is not usable XPath: {message}") from None
    except RecursionError:
        raise QueryError(f"replacement target '{target}' is not usable XPath: nested too deeply") from None
    if not result:
        raise QueryError(f"replacement target '{target}' matches nothing in the payload")
    return result


def _assign(node: Any, text: str) -> int:
    from elementpath import AttributeNode, ElementNode, TextNode

    if isinstance(node, ElementNode):
        element = node.obj
        for child in list(element):
            element.remove(child)
        element.text = text
        return 1
    if isinstance(node, AttributeNode) and node.parent is not None:
        node.parent.obj.set(node.name, text)
        return 1
    if isinstance(node, TextNode) and node.parent is not None:
        node.parent.obj.text = text
        return 1
    return 0


def _serialize(root: Any, namespaces: dict[str, str], declaration: str | None) -> str:
    from xml.etree import ElementTree as ET

    for prefix, uri in namespaces.items():
        if prefix and not re.fullmatch(r"ns\d+", prefix):
            ET.register_namespace(prefix, uri)  # keep the payload's own prefixes (this process only)
    body = ET.tostring(root, encoding="unicode")
    return f"{declaration}{body}" if declaration else body


def _namespaces(source: str) -> dict[str, str]:
    """Prefixes declared anywhere in the document (the first declaration of a prefix wins)."""
    import defusedxml.ElementTree as DefusedET

    found: dict[str, str] = {}
    for _, (prefix, uri) in DefusedET.iterparse(io.StringIO(source), events=("start-ns",)):
        found.setdefault(prefix, uri)
    return found
