"""XPath replacements in XML payloads: set the text of the elements, or the value of the attributes, that
an XPath expression selects (the rules are in `query/xml_edit.py`).

The payload is checked here with defusedxml (no entity expansion, no external references: an unsafe or
malformed payload fails the step unsent); each replacement runs in the evaluation worker, as every
XPath does, within `limits.QUERY_TIMEOUT` or the run's deadline (`bounds/isolated.py`). Objects and
arrays are written as JSON text. Selecting nothing, or only atomic values (`count(//a)`), fails the
step unsent.
"""

from __future__ import annotations

from typing import Any

from ..bounds import limits
from ..bounds.budget import BudgetExceeded
from ..http.serialize import to_text
from ..query import QueryStopped


class XmlPayload:
    """An XML payload that replacements edit; `text()` is the payload as it now stands."""

    def __init__(self, text: str | bytes) -> None:
        import defusedxml.ElementTree as DefusedET
        from defusedxml import DefusedXmlException

        source = text.decode("utf-8") if isinstance(text, bytes) else text
        try:
            DefusedET.fromstring(source)
        except DefusedXmlException as exc:
            raise ValueError(f"refusing unsafe XML payload: {exc!r}") from None
        except SyntaxError as exc:  # ElementTree.ParseError
            raise ValueError(f"the XML payload is not well-formed: {exc}") from None
        self._text = source

    def replace(self, target: str, value: Any, version: str | None = None) -> None:
        from ..bounds.isolated import EvaluationError, run

        args = {"payload": self._text, "target": target, "text": to_text(value), "version": version}
        try:
            self._text = run("xml.replace", args, limits.QUERY_TIMEOUT)
        except BudgetExceeded as exc:
            raise ValueError(f"replacement target '{target}': {QueryStopped(exc.budget)}") from None
        except EvaluationError as exc:
            raise ValueError(str(exc)) from None

    def text(self) -> str:
        return self._text
