"""YAML scalar resolution and construction with PyYAML's YAML 1.1 rules, minus the non-JSON types.

Plain scalars are resolved with PyYAML's own implicit-resolver table, so `yes`, `0x1F` or `1_000` mean
what they mean to `yaml.safe_load`. Differences, so that the result stays JSON-compatible: timestamps
stay the strings they were written as; `=` (the YAML "value" type) and `<<` used as a value are strings.
"""

from __future__ import annotations

import math
import re
from typing import Any

from yaml.resolver import Resolver

TAG = "tag:yaml.org,2002:"
STR = TAG + "str"
NULL = TAG + "null"
BOOL = TAG + "bool"
INT = TAG + "int"
FLOAT = TAG + "float"
TIMESTAMP = TAG + "timestamp"
MERGE = TAG + "merge"
MAP = TAG + "map"
SEQ = TAG + "seq"

_RESOLVERS: dict[str | None, list[tuple[str, re.Pattern[str]]]] = Resolver.yaml_implicit_resolvers
_TRUE = frozenset(("yes", "true", "on"))
_FALSE = frozenset(("no", "false", "off"))
_SPECIAL_FLOATS = {".inf": math.inf, ".nan": math.nan}


def resolve_plain(text: str) -> str:
    """The tag a plain (unquoted, untagged) scalar resolves to."""
    for tag, pattern in _RESOLVERS.get(text[:1], ()):
        if pattern.match(text):
            return tag
    return STR


def construct(tag: str, text: str) -> Any:
    """The value of a scalar with a resolved or explicit tag; ValueError when `text` does not fit the tag.

    Tags outside the JSON data model (binary, unknown local tags, ...) raise `UnsupportedTag`.
    """
    builder = _BUILDERS.get(tag)
    if builder is None:
        raise UnsupportedTag(tag)
    return builder(text)


class UnsupportedTag(ValueError):
    def __init__(self, tag: str) -> None:
        super().__init__(tag)
        self.tag = tag


def short_tag(tag: str) -> str:
    return "!!" + tag[len(TAG) :] if tag.startswith(TAG) else tag


def _null(text: str) -> None:
    return None


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(text)


# Python's default int <-> str conversion limit: a larger integer could not even be printed. Checked on
# the text first, so that a huge base-60 or hexadecimal scalar is refused before costly arithmetic.
_MAX_DIGITS = 4300
_TOO_LARGE = 10**_MAX_DIGITS


def _int(text: str) -> int:
    if len(text) > _MAX_DIGITS:
        raise ValueError(f"an integer of more than {_MAX_DIGITS} digits")
    value = _int_value(text)
    if abs(value) >= _TOO_LARGE:
        raise ValueError(f"an integer of more than {_MAX_DIGITS} decimal digits")
    return value


def _int_value(text: str) -> int:
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    if digits.startswith("0b"):
        return sign * int(digits[2:], 2)
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    if ":" in digits:  # YAML 1.1 base 60: "1:30" is 90
        whole = 0
        for part in digits.split(":"):
            whole = whole * 60 + int(part)
        return sign * whole
    if digits.startswith("0") and len(digits) > 1:
        return sign * int(digits, 8)  # YAML 1.1: a leading zero means octal
    return sign * int(digits)


def _float(text: str) -> float:
    digits = text.replace("_", "").lower()
    sign = -1.0 if digits.startswith("-") else 1.0
    digits = digits.lstrip("+-")
    if digits in _SPECIAL_FLOATS:
        return sign * _SPECIAL_FLOATS[digits]
    if ":" in digits:
        value = 0.0
        for part in digits.split(":"):
            value = value * 60 + float(part)
        return sign * value
    return sign * float(digits)


def _text(text: str) -> str:
    return text


_BUILDERS = {
    STR: _text,
    TIMESTAMP: _text,
    TAG + "value": _text,
    MERGE: _text,  # "<<" outside a key position is just text
    TAG + "yaml": _text,
    NULL: _null,
    BOOL: _bool,
    INT: _int,
    FLOAT: _float,
}
