"""Payload replacements: set values inside a request body by JSON Pointer or JSONPath (JSON, form and
multipart bodies) or by XPath (XML bodies, see `xml_payload.py`)."""

from __future__ import annotations

import copy
from typing import Any

from ..bounds import json_text
from ..errors import ExpressionError
from ..expressions import Context, Missing
from ..http.body import is_form, is_json, is_xml
from ..loader.limits import DEFAULT_LIMITS
from ..loader.pointer import parse_pointer
from .values import strip_missing


def apply_replacements(
    payload: Any, replacements: list, ctx: Context, content_type: str | None, warnings: list[str]
) -> Any:
    if not replacements:
        return payload
    if is_xml(content_type) and isinstance(payload, (str, bytes)):
        return _replace_xml(payload, replacements, ctx, warnings)
    if isinstance(payload, (str, bytes)) and is_json(content_type):
        try:
            payload = json_text.loads(payload, DEFAULT_LIMITS.max_depth)
        except ValueError as exc:
            raise ValueError(f"cannot apply replacements: the JSON payload does not parse ({exc})") from None
    elif isinstance(payload, (str, bytes)) and is_form(content_type):
        from ..http.form import parse_form  # form payloads only

        payload = parse_form(payload)  # `a=1&b=2` -> {"a": "1", "b": "2"}, so pointers can target it
    else:
        payload = copy.deepcopy(payload)  # never mutate a compiled constant
    for replacement in replacements:
        value = _value(replacement, ctx, warnings)
        if not isinstance(value, Missing):
            payload = _replace(payload, replacement, value)
    return payload


def _value(replacement: Any, ctx: Context, warnings: list[str]) -> Any:
    value, problems = strip_missing(replacement.value.evaluate(ctx), f"replacement '{replacement.target}'")
    warnings.extend(problems)
    return value


def _replace_xml(payload: str | bytes, replacements: list, ctx: Context, warnings: list[str]) -> str:
    from .xml_payload import XmlPayload

    document = XmlPayload(payload)
    for replacement in replacements:
        kind = _selector_type(replacement.target_type)
        if kind not in (None, "xpath"):
            raise ValueError(f"replacement target type '{kind}' cannot be applied to an XML payload")
        value = _value(replacement, ctx, warnings)
        if not isinstance(value, Missing):
            document.replace(replacement.target, value, _selector_version(replacement.target_type))
    return document.text()


def _replace(payload: Any, replacement: Any, value: Any) -> Any:
    kind = _selector_type(replacement.target_type)
    if kind == "jsonpath":
        return _replace_jsonpath(payload, replacement.target, value)
    if kind not in (None, "jsonpointer"):
        raise ValueError(f"replacement target type '{kind}' cannot be applied to this payload")
    try:
        tokens = parse_pointer(replacement.target)
    except ExpressionError as exc:
        raise ValueError(
            f"replacement target '{replacement.target}' is not a JSON pointer: {exc.message}"
        ) from None
    return set_pointer(payload, tokens, value, replacement.target)


def _selector_type(target_type: Any) -> str | None:
    if isinstance(target_type, dict):
        return target_type.get("type")
    return target_type


def _selector_version(target_type: Any) -> str | None:
    return target_type.get("version") if isinstance(target_type, dict) else None


def set_pointer(document: Any, tokens: tuple[str, ...], value: Any, text: str) -> Any:
    if not tokens:
        return value
    parent = document
    for token in tokens[:-1]:
        parent = _child(parent, token, text)
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            parent.append(value)
        elif last.isdigit() and int(last) <= len(parent):
            index = int(last)
            if index == len(parent):
                parent.append(value)
            else:
                parent[index] = value
        else:
            raise ValueError(f"replacement target '{text}': '{last}' is not a valid index")
    else:
        raise ValueError(f"replacement target '{text}' does not lead into an object or array")
    return document


def _child(node: Any, token: str, text: str) -> Any:
    if isinstance(node, dict) and token in node:
        return node[token]
    if isinstance(node, list) and token.isdigit() and int(token) < len(node):
        return node[int(token)]
    raise ValueError(f"replacement target '{text}' does not exist in the payload (at '{token}')")


def _replace_jsonpath(payload: Any, target: str, value: Any) -> Any:
    from ..query import QueryError  # JSONPath targets only: the query engines stay off a message run
    from ..query.jsonpath import locations

    try:
        found = locations(target, payload)  # bounded as every JSONPath evaluation is
    except ExpressionError as exc:
        raise ValueError(f"replacement target '{target}' is not valid JSONPath: {exc.message}") from None
    except QueryError as exc:
        raise ValueError(f"replacement target '{target}': {exc}") from None
    if not found:
        raise ValueError(f"replacement target '{target}' matches nothing in the payload")
    for location in found:
        payload = set_pointer(payload, tuple(str(t) for t in location), value, target)
    return payload
