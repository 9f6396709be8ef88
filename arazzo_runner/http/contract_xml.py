"""An XML response body for the contract checks (`contract.py`): well-formed, and read into the value its
schema describes, so the one JSON Schema check (`contract_schema.py`) applies to it.

OpenAPI describes an XML body with the media type's (JSON) schema and the `xml` object of its parts
(`name`, `attribute`, `wrapped`); the body is read as that mapping says, guided by the schema:

- an object is an element: each property is the child element named by the property's `xml.name` (else
  its own name), or the attribute so named when `xml.attribute: true`; a child element no property names
  is kept under its own name (so `additionalProperties: false` sees it), an unnamed attribute is not;
- an array is the repeated elements named by its `items`' `xml.name` (else the property's name); with
  `xml.wrapped: true` they sit inside one element named by the array's own `xml.name` (else the
  property's name); a root array is its root element's children;
- a scalar is the element's text (or the attribute's value), read as the schema's `type` says: an
  integer, a number, a boolean (`true`/`false`, `1`/`0`); text that is not one stays a string, which the
  check then names; `xsi:nil="true"` is null;
- the root element's name is checked only when the root schema gives `xml.name` (a component's name is
  no rule: servers name their root freely).

Names are compared without their namespace (`xml.namespace` and `prefix` are not checked). `$ref`s are
followed within the description (`#/...`); a schema reached through another document guides nothing (its
elements read as text and objects) but is still checked. The text is parsed with defusedxml (no entity
expansion, no external reference: one is a violation); the value nests at most `MAX_BODY_DEPTH` levels.
"""

from __future__ import annotations

from typing import Any

from ..bounds.limits import MAX_BODY_DEPTH

_XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"
WELL_FORMED = "well-formed XML"


class NotXml(ValueError):
    """The body is not XML the check can read: said as one violation of the whole body."""


def parse(text: Any) -> Any:
    """The root element of `text`; NotXml with the parser's words when it is not well-formed or unsafe."""
    import defusedxml.ElementTree as DefusedET
    from defusedxml import DefusedXmlException

    if isinstance(text, bytes | bytearray):
        source: Any = bytes(text)
    elif isinstance(text, str):
        source = text
    else:
        raise NotXml("a body that is not text")
    if not source.strip():
        raise NotXml("an empty body")
    try:
        return DefusedET.fromstring(source)
    except DefusedXmlException as exc:
        raise NotXml(f"XML with {type(exc).__name__} (refused: {exc})") from None
    except (SyntaxError, ValueError) as exc:  # ParseError is a SyntaxError
        raise NotXml(f"text that is not well-formed ({exc})") from None


def root_name_problem(root: Any, schema: Any, data: dict[str, Any]) -> tuple[str, str] | None:
    """(wanted, got) when the root schema's `xml.name` names another element than the body's root."""
    named = _xml(_follow(schema, data)).get("name")
    if isinstance(named, str) and named and _local(named) != _local(root.tag):
        return f"the root element <{_local(named)}>", f"<{_local(root.tag)}>"
    return None


def to_value(root: Any, schema: Any, data: dict[str, Any]) -> Any:
    """The value the body's root element stands for under `schema` (`data`: the description, for refs)."""
    return _Reader(data).element(root, schema, 0)


class _Reader:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def element(self, element: Any, schema: Any, depth: int) -> Any:
        if depth > MAX_BODY_DEPTH:
            raise NotXml(f"XML nesting deeper than {MAX_BODY_DEPTH} levels (not checked)")
        if element.get(_XSI_NIL) in ("true", "1"):
            return None
        kinds = _kinds(schema, self.data)
        if "object" in kinds:
            return self.object(element, schema, depth)
        if "array" in kinds:
            items = _guide(schema, self.data).get("items")
            return [self.element(child, items, depth + 1) for child in element]
        if not kinds and (len(element) or element.attrib):
            return self.object(element, schema, depth)  # no guide: the shape of the element
        return scalar(element.text or "", kinds)

    def object(self, element: Any, schema: Any, depth: int) -> dict[str, Any]:
        properties = _guide(schema, self.data).get("properties") or {}
        out: dict[str, Any] = {}
        claimed: set[str] = set()
        children: dict[str, Any] = {}  # the first child of each name
        for child in element:
            children.setdefault(_local(child.tag), child)
        for name, sub in properties.items():
            sub = _follow(sub, self.data)
            xml = _xml(sub)
            tag = _local(xml.get("name") or name)
            if xml.get("attribute") is True:
                value = _attribute(element, tag)
                if value is not None:
                    out[name] = scalar(value, _kinds(sub, self.data))
                continue
            if "array" in _kinds(sub, self.data):
                found = self.array(element, name, sub, depth, claimed)
                if found is not None:
                    out[name] = found
                continue
            child = children.get(tag)
            if child is not None:
                claimed.add(tag)
                out[name] = self.element(child, sub, depth + 1)
        for child in element:  # elements no property names: kept, so additionalProperties sees them
            tag = _local(child.tag)
            if tag not in claimed and tag not in out:
                out[tag] = self.element(child, None, depth + 1)
        return out

    def array(self, element: Any, name: str, schema: Any, depth: int, claimed: set[str]) -> list[Any] | None:
        xml = _xml(schema)
        items = _guide(schema, self.data).get("items")
        item_name = _xml(_follow(items, self.data)).get("name")
        if xml.get("wrapped") is True:
            wrapper_tag = _local(xml.get("name") or name)
            wrapper = _child(element, wrapper_tag)
            if wrapper is None:
                return None
            claimed.add(wrapper_tag)
            members = [c for c in wrapper if not item_name or _local(c.tag) == _local(item_name)]
        else:
            tag = _local(item_name or name)
            members = [c for c in element if _local(c.tag) == tag]
            if not members:
                return None
            claimed.add(tag)
        return [self.element(member, items, depth + 1) for member in members]


def scalar(text: str, kinds: set[str]) -> Any:
    """XML text as the scalar its schema's types name; as text when it is none of them."""
    value = text.strip()
    if "integer" in kinds or "number" in kinds:
        try:
            return int(value)
        except ValueError:
            pass
        if "number" in kinds:
            try:
                number = float(value)
            except ValueError:
                number = None
            if number is not None and number == number and abs(number) != float("inf"):
                return number
    if "boolean" in kinds and value in ("true", "false", "1", "0"):
        return value in ("true", "1")
    return text


def _follow(schema: Any, data: dict[str, Any]) -> Any:
    """`schema` with its local `$ref`s followed (a few hops; a ref elsewhere guides nothing)."""
    for _ in range(32):
        if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
            return schema
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return None
        node: Any = data
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, dict) else None
        schema = node
    return None


def _guide(schema: Any, data: dict[str, Any], seen: frozenset[int] = frozenset()) -> dict[str, Any]:
    """What guides reading an element: the schema's `properties` (its `allOf`/`oneOf`/`anyOf` members'
    joined, so a discriminated body reads its branch's members) and `items`."""
    schema = _follow(schema, data)
    if not isinstance(schema, dict) or id(schema) in seen:  # (a schema whose members refer back to it)
        return {}
    seen = seen | {id(schema)}
    properties: dict[str, Any] = {}
    items = schema.get("items")
    for keyword in ("allOf", "oneOf", "anyOf"):
        for member in schema.get(keyword) or ():
            found = _guide(member, data, seen)
            for key, value in (found.get("properties") or {}).items():
                properties.setdefault(key, value)
            items = items if items is not None else found.get("items")
    own = schema.get("properties")
    if isinstance(own, dict):
        properties.update(own)
    return {"properties": properties, "items": items}


def _kinds(schema: Any, data: dict[str, Any], seen: frozenset[int] = frozenset()) -> set[str]:
    """The types `schema` names (its members' too), or its shape when it names none."""
    schema = _follow(schema, data)
    if not isinstance(schema, dict) or id(schema) in seen:
        return set()
    seen = seen | {id(schema)}
    kind = schema.get("type")
    kinds = {k for k in (kind if isinstance(kind, list) else [kind]) if isinstance(k, str)}
    for keyword in ("allOf", "oneOf", "anyOf"):
        for member in schema.get(keyword) or ():
            kinds |= _kinds(member, data, seen)
    if not kinds and isinstance(schema.get("properties"), dict):
        kinds.add("object")
    if not kinds and "items" in schema:
        kinds.add("array")
    return kinds - {"null"}


def _xml(schema: Any) -> dict[str, Any]:
    found = schema.get("xml") if isinstance(schema, dict) else None
    return found if isinstance(found, dict) else {}


def _local(tag: Any) -> str:
    """A name without its namespace (`{uri}name` or `prefix:name`)."""
    text = str(tag)
    return text.rsplit("}", 1)[-1].rsplit(":", 1)[-1]


def _child(element: Any, tag: str) -> Any:
    for child in element:
        if _local(child.tag) == tag:
            return child
    return None


def _attribute(element: Any, tag: str) -> str | None:
    for key, value in element.attrib.items():
        if _local(key) == tag:
            return value
    return None
