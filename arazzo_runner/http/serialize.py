"""OpenAPI parameter serialization: `style`/`explode` per location, RFC 3986 percent-encoding.

Every row of the OpenAPI 3.1 style table is implemented. With `color` = "" / "blue" / [blue, black] /
{R: 100, G: 200}, without explode | with explode:

  matrix   ;color  ;color=blue  ;color=blue,black  ;color=R,100,G,200 | ;color=blue;color=black  ;R=100;G=200
  label    .       .blue        .blue,black        .R,100,G,200       | .blue.black              .R=100.G=200
  simple   ""      blue         blue,black         R,100,G,200        | blue,black               R=100,G=200
  form     color=  color=blue   color=blue,black   color=R,100,G,200  | color=blue&color=black   R=100&G=200
  spaceDelimited  color=blue%20black  color=R%20100%20G%20200
  pipeDelimited   color=blue%7Cblack  color=R%7C100%7CG%7C200
  deepObject      color%5BR%5D=100&color%5BG%5D=200

An empty array or object (or null) serializes like the empty value. spaceDelimited/pipeDelimited with
`explode: true` (undefined by OpenAPI) behave like form with explode; deepObject nests objects
(`a[b][c]=1`) and repeats the key for arrays (`a[b]=1&a[b]=2`).

Path and query results come back already percent-encoded (so `a b/c` in a path becomes `a%20b%2Fc`);
header values come back as plain text; cookie values as text with only the characters a cookie value cannot
hold (RFC 6265: controls, space, `"`, `,`, `;`, `\\`, non-ASCII) percent-encoded, so `a b;c` cannot set a
second cookie while tokens, base64 and already-encoded values pass unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ..masking.encodings import cookie_encode, encode, form_encode

_DELIMITER = {"spaceDelimited": "%20", "pipeDelimited": "%7C"}

Encoder = Callable[[str], str]


def to_text(value: Any) -> str:
    """The text form of a primitive: JSON spelling for booleans and numbers (integral ones without a
    fraction), "" for null."""
    kind = type(value)
    if kind is str:
        return value
    if kind is int:  # the common case first: ids and counts
        return str(value)
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


def is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or (isinstance(value, dict) and not _pairs(value))


def _pairs(value: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(str(k), to_text(v)) for k, v in value.items() if v is not None]


def _flat(value: Any, enc: Encoder, *, pair: str, sep: str) -> str:
    """Array items, or object members as `k{pair}v`, joined with `sep` (each piece encoded)."""
    if isinstance(value, list):
        return sep.join(enc(to_text(v)) for v in value)
    if isinstance(value, dict):
        return sep.join(f"{enc(k)}{pair}{enc(v)}" for k, v in _pairs(value))
    return enc(to_text(value))


# -- path --------------------------------------------------------------------------------------------


def serialize_path(name: str, value: Any, style: str = "simple", explode: bool = False) -> str:
    """Serialize a path parameter (simple, label, matrix); the result is percent-encoded."""
    if style == "label":
        return "." + _simple(value, explode, encode, sep="." if explode else ",")
    if style == "matrix":
        return _matrix(name, value, explode, encode)
    return _simple(value, explode, encode, sep=",")


def no_dot_segments(path: str) -> str:
    """A path segment `.` or `..` would be removed from the URL as a dot-segment (RFC 3986 5.2.4; `..`
    climbing to another resource), so it is sent as `%2E` / `%2E%2E`, which servers decode back."""
    segments = path.split("/")
    return "/".join(s.replace(".", "%2E") if s in (".", "..") else s for s in segments)


def _simple(value: Any, explode: bool, enc: Encoder, *, sep: str) -> str:
    if is_empty(value):
        return ""
    if isinstance(value, dict) and not explode:
        return _flat(value, enc, pair=",", sep=",")
    return _flat(value, enc, pair="=", sep=sep)


def _matrix(name: str, value: Any, explode: bool, enc: Encoder) -> str:
    key = enc(name)
    if is_empty(value):
        return f";{key}"
    if isinstance(value, list) and explode:
        return "".join(f";{key}={enc(to_text(v))}" for v in value)
    if isinstance(value, dict) and explode:
        return ";" + _flat(value, enc, pair="=", sep=";")
    return f";{key}=" + _flat(value, enc, pair=",", sep=",")


# -- query -------------------------------------------------------------------------------------------


def serialize_query(
    name: str,
    value: Any,
    style: str = "form",
    explode: bool = True,
    *,
    allow_reserved: bool = False,
    plus: bool = False,
) -> list[str]:
    """Serialize a query parameter into encoded `k=v` pieces (joined with '&' by the caller).

    `plus` encodes for an application/x-www-form-urlencoded body (a space becomes `+`)."""
    coder = form_encode if plus else encode

    def enc(text: str) -> str:
        return coder(text, allow_reserved=allow_reserved)

    key = coder(name)
    if style == "deepObject" and isinstance(value, dict):
        return _deep(name, value, enc, coder)
    if is_empty(value):
        return [f"{key}="]
    if style in _DELIMITER and not explode and isinstance(value, (list, dict)):
        return [f"{key}=" + _flat(value, enc, pair=_DELIMITER[style], sep=_DELIMITER[style])]
    if isinstance(value, list):
        if explode:
            return [f"{key}={enc(to_text(v))}" for v in value]
        return [f"{key}=" + _flat(value, enc, pair=",", sep=",")]
    if isinstance(value, dict):
        if explode:
            return [f"{coder(k)}={enc(v)}" for k, v in _pairs(value)]
        return [f"{key}=" + _flat(value, enc, pair=",", sep=",")]
    return [f"{key}={enc(to_text(value))}"]


def _deep(prefix: str, value: dict[str, Any], enc: Encoder, coder: Callable[..., str]) -> list[str]:
    pieces: list[str] = []
    for member, item in value.items():
        if item is None:
            continue
        path = f"{prefix}[{member}]"
        if isinstance(item, dict):
            pieces.extend(_deep(path, item, enc, coder))
        elif isinstance(item, list):
            pieces.extend(f"{coder(path)}={enc(to_text(v))}" for v in item)
        else:
            pieces.append(f"{coder(path)}={enc(to_text(item))}")
    return pieces


# -- header and cookie -------------------------------------------------------------------------------


def serialize_header(value: Any, explode: bool = False) -> str:
    """Serialize a header value (style simple; never percent-encoded)."""
    return _simple(value, explode, lambda t: t, sep=",")


def serialize_cookie(name: str, value: Any, explode: bool = True) -> list[tuple[str, str]]:
    """Serialize a cookie parameter (style form) into (name, value) pairs; see the module docstring.
    Non-exploded arrays and objects join their encoded members with a literal `,` (`color=blue,black`);
    exploded ones become one cookie per item (`color=blue; color=black`) or per member (`R=100; G=200`)."""

    def enc(v: Any) -> str:
        return cookie_encode(to_text(v))

    if is_empty(value):
        return [(name, "")]
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


# -- content-encoded parameters ----------------------------------------------------------------------


def content_text(value: Any, media_type: str) -> str:
    """The text of a parameter described by `content` (one media type) instead of `schema`/`style`:
    JSON media types give the JSON text (a string becomes `"quoted"`), form media types the form
    encoding of an object, anything else the plain text. The caller percent-encodes it for its location."""
    base = media_type.split(";", 1)[0].strip().lower()
    if base == "application/json" or base.endswith("+json"):
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if base == "application/x-www-form-urlencoded" and isinstance(value, dict):
        return "&".join(p for k, v in value.items() for p in serialize_query(k, v, plus=True))
    return to_text(value)
