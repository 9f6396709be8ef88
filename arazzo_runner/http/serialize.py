"""OpenAPI parameter serialization: `style`/`explode` per location, RFC 3986 percent-encoding.

Path and query results come back already percent-encoded (so `a b/c` in a path becomes `a%20b%2Fc`);
header values come back as plain text; cookie values as text with only the characters a cookie value cannot
hold (RFC 6265: controls, space, `"`, `,`, `;`, `\\`, non-ASCII) percent-encoded, so `a b;c` cannot set a
second cookie while tokens, base64 and already-encoded values pass unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

# RFC 3986 unreserved characters are never encoded; `allowReserved` also keeps the reserved set.
_RESERVED = ":/?#[]@!$&'()*+,;="
# RFC 6265 cookie-octet, less the alphanumerics and "_.-~" that `quote` never encodes.
_COOKIE_SAFE = "!#$%&'()*+/:<=>?@[]^`{|}"


def to_text(value: Any) -> str:
    """The text form of a primitive: JSON spelling for booleans and numbers (integral ones without a
    fraction), "" for null."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))  # JSON has one number type: 3.0 is the integer 3, never sent as "3.0"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def encode(text: str, *, allow_reserved: bool = False) -> str:
    return quote(text, safe=_RESERVED if allow_reserved else "")


def _pairs(value: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(str(k), to_text(v)) for k, v in value.items() if v is not None]


def serialize_path(name: str, value: Any, style: str = "simple", explode: bool = False) -> str:
    """Serialize a path parameter (simple, label, matrix); the result is percent-encoded."""
    enc = encode
    if style == "label":
        return "." + _joined(value, explode, sep="." if explode else ",", enc=enc)
    if style == "matrix":
        return _matrix(name, value, explode, enc)
    return _joined(value, explode, sep=",", enc=enc)


def _joined(value: Any, explode: bool, *, sep: str, enc: Any) -> str:
    if isinstance(value, list):
        return sep.join(enc(to_text(v)) for v in value)
    if isinstance(value, dict):
        pairs = _pairs(value)
        if explode:
            return sep.join(f"{enc(k)}={enc(v)}" for k, v in pairs)
        return ",".join(f"{enc(k)},{enc(v)}" for k, v in pairs)
    return enc(to_text(value))


def _matrix(name: str, value: Any, explode: bool, enc: Any) -> str:
    if isinstance(value, list):
        if explode:
            return "".join(f";{enc(name)}={enc(to_text(v))}" for v in value)
        return f";{enc(name)}=" + ",".join(enc(to_text(v)) for v in value)
    if isinstance(value, dict):
        pairs = _pairs(value)
        if explode:
            return "".join(f";{enc(k)}={enc(v)}" for k, v in pairs)
        return f";{enc(name)}=" + ",".join(f"{enc(k)},{enc(v)}" for k, v in pairs)
    if value is None or value == "":
        return f";{enc(name)}"
    return f";{enc(name)}={enc(to_text(value))}"


def serialize_query(
    name: str,
    value: Any,
    style: str = "form",
    explode: bool = True,
    *,
    allow_reserved: bool = False,
) -> list[str]:
    """Serialize a query parameter into encoded `k=v` pieces (joined with '&' by the caller)."""

    def enc(text: str) -> str:
        return encode(text, allow_reserved=allow_reserved)

    key = encode(name)
    if style == "deepObject" and isinstance(value, dict):
        return [f"{key}%5B{encode(k)}%5D={enc(v)}" for k, v in _pairs(value)]
    if isinstance(value, list):
        items = [enc(to_text(v)) for v in value]
        if style == "spaceDelimited":
            return [f"{key}=" + "%20".join(items)]
        if style == "pipeDelimited":
            return [f"{key}=" + "%7C".join(items)]
        return [f"{key}={v}" for v in items] if explode else [f"{key}=" + ",".join(items)]
    if isinstance(value, dict):
        pairs = _pairs(value)
        if explode:
            return [f"{encode(k)}={enc(v)}" for k, v in pairs]
        return [f"{key}=" + ",".join(f"{enc(k)},{enc(v)}" for k, v in pairs)]
    return [f"{key}={enc(to_text(value))}"]


def serialize_header(value: Any, explode: bool = False) -> str:
    """Serialize a header value (style simple; never percent-encoded)."""
    return _joined(value, explode, sep=",", enc=lambda t: t)


def serialize_cookie(name: str, value: Any, explode: bool = True) -> list[tuple[str, str]]:
    """Serialize a cookie parameter (style form) into (name, value) pairs; see the module docstring.
    Non-exploded arrays and objects join their encoded members with a literal `,` (`color=blue,black`)."""

    def enc(v: Any) -> str:
        return quote(to_text(v), safe=_COOKIE_SAFE)

    if isinstance(value, list):
        if explode:
            return [(name, enc(v)) for v in value]
        return [(name, ",".join(enc(v) for v in value))]
    if isinstance(value, dict):
        pairs = _pairs(value)
        if explode:
            return [(k, enc(v)) for k, v in pairs]
        return [(name, ",".join(f"{enc(k)},{enc(v)}" for k, v in pairs))]
    return [(name, enc(value))]
