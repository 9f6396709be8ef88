"""application/x-www-form-urlencoded bodies, honouring the OpenAPI Encoding Object.

Without an Encoding Object entry a property is sent as OpenAPI's defaults say: an array repeats its key
(form, explode), an object is JSON text (its default `contentType` is application/json), a primitive is
its text. An entry with `style`/`explode`/`allowReserved` serializes the property like a query
parameter of that style; an entry with only `contentType` chooses JSON or plain text.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl

from .serialize import form_encode, serialize_query, to_text

_STYLE_KEYS = ("style", "explode", "allowReserved")


def encode_form(payload: Any, encoding: dict[str, Any] | None = None) -> bytes:
    """The form-urlencoded bytes of an object (or of a string sent as written)."""
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if not isinstance(payload, dict):
        raise ValueError("a form-urlencoded payload must be an object or a string")
    encoding = encoding if isinstance(encoding, dict) else {}
    pieces: list[str] = []
    for key, value in payload.items():
        pieces.extend(_property(str(key), value, encoding.get(key)))
    return "&".join(pieces).encode("ascii")


def _property(name: str, value: Any, rule: Any) -> list[str]:
    rule = rule if isinstance(rule, dict) else {}
    if any(key in rule for key in _STYLE_KEYS):
        style = rule.get("style") if isinstance(rule.get("style"), str) else "form"
        explode = rule.get("explode", style == "form") is True
        reserved = rule.get("allowReserved") is True
        return serialize_query(name, value, style, explode, allow_reserved=reserved, plus=True)
    json_type = _is_json(rule.get("contentType"))
    items = value if isinstance(value, list) and not json_type else [value]
    return [f"{form_encode(name)}={form_encode(_text(item, json_type))}" for item in items]


def _text(value: Any, json_type: bool) -> str:
    if json_type and not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return to_text(value)


def _is_json(content_type: Any) -> bool:
    if not isinstance(content_type, str):
        return False
    base = content_type.split(";", 1)[0].strip().lower()
    return base == "application/json" or base.endswith("+json")


def parse_form(text: str | bytes) -> dict[str, Any]:
    """A form string as an object (a repeated key becomes an array), so replacements can target it."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    data: dict[str, Any] = {}
    for key, value in parse_qsl(text, keep_blank_values=True):
        if key not in data:
            data[key] = value
        elif isinstance(data[key], list):
            data[key].append(value)
        else:
            data[key] = [data[key], value]
    return data
