"""XPath replacements in XML payloads: set the text of the elements, or the value of the attributes, that
an XPath expression selects.

The payload is parsed with defusedxml (no entity expansion, no external references). Namespace prefixes
declared in the payload can be used in the expression. A selected element's content is replaced by the
value's text (its child elements are dropped); a selected attribute gets the value; a selected text node
sets its element's text. Objects and arrays are written as JSON text. Selecting nothing, or only atomic
values (`count(//a)`), fails the step unsent. The XML declaration is kept; comments and processing
instructions inside the document are dropped by the round trip, as is a DOCTYPE.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ..http.serialize import to_text

_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_VERSIONS = {"xpath-10": "XPath1Parser", "xpath-20": "XPath2Parser"}


class XmlPayload:
    """A parsed XML payload that replacements edit in place; `text()` serializes it back."""

    def __init__(self, text: str | bytes) -> None:
        import defusedxml.ElementTree as DefusedET
        from defusedxml import DefusedXmlException

        source = text.decode("utf-8") if isinstance(text, bytes) else text
        try:
            self.namespaces = _namespaces(source)
            self.root = DefusedET.fromstring(source)
        except DefusedXmlException as exc:
            raise ValueError(f"refusing unsafe XML payload: {exc!r}") from None
        except SyntaxError as exc:  # ElementTree.ParseError
            raise ValueError(f"the XML payload is not well-formed: {exc}") from None
        declaration = _DECLARATION.match(source)
        self.declaration = declaration.group(0).strip() if declaration else None

    def replace(self, target: str, value: Any, version: str | None = None) -> None:
        nodes = self._select(target, version)
        text = to_text(value)
        changed = 0
        for node in nodes:
            changed += _assign(node, text)
        if not changed:
            raise ValueError(f"replacement target '{target}' selects no element or attribute in the payload")

    def text(self) -> str:
        from xml.etree import ElementTree as ET

        for prefix, uri in self.namespaces.items():
            if prefix and not re.fullmatch(r"ns\d+", prefix):
                ET.register_namespace(prefix, uri)  # keep the payload's own prefixes when writing
        body = ET.tostring(self.root, encoding="unicode")
        return f"{self.declaration}{body}" if self.declaration else body

    def _select(self, target: str, version: str | None) -> list[Any]:
        from elementpath import ElementPathError, XPathContext

        try:
            parser = _parser_class(version)(namespaces={k: v for k, v in self.namespaces.items() if k})
            token = parser.parse(target)
            result = list(token.select(XPathContext(self.root)))
        except ElementPathError as exc:
            message = getattr(exc, "message", None) or str(exc)
            raise ValueError(f"replacement target '{target}' is not usable XPath: {message}") from None
        if not result:
            raise ValueError(f"replacement target '{target}' matches nothing in the payload")
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


def _namespaces(source: str) -> dict[str, str]:
    """Prefixes declared anywhere in the document (the first declaration of a prefix wins)."""
    import defusedxml.ElementTree as DefusedET

    found: dict[str, str] = {}
    for _, (prefix, uri) in DefusedET.iterparse(io.StringIO(source), events=("start-ns",)):
        found.setdefault(prefix, uri)
    return found


def _parser_class(version: str | None) -> Any:
    import elementpath

    name = _VERSIONS.get(version or "")
    if name:
        return getattr(elementpath, name)
    if version == "xpath-30":
        from elementpath.xpath30 import XPath30Parser

        return XPath30Parser
    from elementpath.xpath31 import XPath31Parser

    return XPath31Parser
