"""The percent-encodings a value takes in a request: in a path, query or header (`encode`, with or
without OpenAPI's `allowReserved`), a form body (`form_encode`) and a cookie (`cookie_encode`). The
request serializer (`http/serialize.py`) encodes with them, and the masker (`secrets.py`) masks a secret
in each of these forms: one definition, so what is sent and what is masked never drift apart.
"""

from __future__ import annotations

from urllib.parse import quote, quote_plus

# RFC 3986 unreserved characters are never encoded; `allowReserved` also keeps the reserved set.
_RESERVED = ":/?#[]@!$&'()*+,;="
# RFC 6265 cookie-octet, less the alphanumerics and "_.-~" that `quote` never encodes.
_COOKIE_SAFE = "!#$%&'()*+/:<=>?@[]^`{|}"
# In a form body `&`, `=` and `+` keep their form meaning, so allowReserved never keeps them.
_FORM_RESERVED = ":/?#[]@!$'()*,;"


def encode(text: str, *, allow_reserved: bool = False) -> str:
    if not allow_reserved and text.isalnum() and text.isascii():
        return text  # nothing to escape (most ids): skip quote()'s machinery
    return quote(text, safe=_RESERVED if allow_reserved else "")


def form_encode(text: str, *, allow_reserved: bool = False) -> str:
    """application/x-www-form-urlencoded: like `encode`, but a space becomes `+`."""
    return quote_plus(text, safe=_FORM_RESERVED if allow_reserved else "")


def cookie_encode(text: str) -> str:
    return quote(text, safe=_COOKIE_SAFE)
