"""YAML scalar resolution and construction by the YAML 1.2 core schema (YAML 1.2.2, section 10.3).

One rule for every plain scalar of a YAML document, whatever its shape (block, flow, or text that is
also JSON): `true`/`True`/`TRUE`, `null`/`~`/empty, decimal, `0o` octal and `0x` hexadecimal integers,
floats such as `1e5` or `.5`, `.inf` and `.nan`; anything else is a string (`yes`, `1_000`, `0755` as
decimal 755, `1:30`, `2024-01-01`). JSON is a subset of this schema, so a document that is JSON text
means the same read by the JSON parser (the fast path) or by PyYAML. Why not PyYAML's YAML 1.1 rules:
under them `1e5` is a string when written in YAML but a number in the same JSON text, and `yes`/`on`
turn into booleans; OpenAPI recommends YAML 1.2 and the JSON-schema tags, which this schema resolves.

PyYAML only tokenizes here (the builder consumes its events): its 1.1 resolver is never consulted.
Explicit standard tags (`!!str`, `!!int`, ...) must fit the same forms; `!!timestamp` keeps its text;
tags outside the JSON data model (binary, sets, local tags, ...) raise `UnsupportedTag`.
"""

from __future__ import annotations

import math
import re
from typing import Any

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

# The core schema's table, word forms first (section 10.3.2).
_NULLS = frozenset(("null", "Null", "NULL", "~", ""))
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INFINITY = frozenset(f"{sign}{word}" for sign in ("", "+", "-") for word in (".inf", ".Inf", ".INF"))
_NAN = frozenset((".nan", ".NaN", ".NAN"))
_WORDS = {
    **dict.fromkeys(_NULLS, NULL),
    **dict.fromkeys(_BOOLS, BOOL),
    **dict.fromkeys(_INFINITY | _NAN, FLOAT),
}
_DECIMAL = re.compile(r"[-+]?[0-9]+")
_OCTAL = re.compile(r"0o[0-7]+")
_HEXADECIMAL = re.compile(r"0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_NUMERIC_START = frozenset("0123456789+-.")


def resolve_plain(text: str) -> str:
    """The tag a plain (unquoted, untagged) scalar resolves to."""
    tag = _WORDS.get(text)
    if tag is not None:
        return tag
    if text[:1] not in _NUMERIC_START:
        return STR
    if _DECIMAL.fullmatch(text) or _OCTAL.fullmatch(text) or _HEXADECIMAL.fullmatch(text):
        return INT
    if _NUMBER.fullmatch(text):
        return FLOAT
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
    if text not in _NULLS:
        raise ValueError(text)
    return None


def _bool(text: str) -> bool:
    value = _BOOLS.get(text)
    if value is None:
        raise ValueError(text)
    return value


# Python's default int <-> str conversion limit: a larger integer could not even be printed. Checked on
# the text first, so that a huge hexadecimal scalar is refused before costly arithmetic.
_MAX_DIGITS = 4300
_TOO_LARGE = 10**_MAX_DIGITS


def _int(text: str) -> int:
    if len(text) > _MAX_DIGITS:
        raise ValueError(f"an integer of more than {_MAX_DIGITS} digits")
    if _DECIMAL.fullmatch(text):
        value = int(text)
    elif _OCTAL.fullmatch(text):
        value = int(text[2:], 8)
    elif _HEXADECIMAL.fullmatch(text):
        value = int(text[2:], 16)
    else:
        raise ValueError(text)
    if abs(value) >= _TOO_LARGE:
        raise ValueError(f"an integer of more than {_MAX_DIGITS} decimal digits")
    return value


def _float(text: str) -> float:
    if text in _INFINITY:
        return -math.inf if text.startswith("-") else math.inf
    if text in _NAN:
        return math.nan
    if not _NUMBER.fullmatch(text):
        raise ValueError(text)
    return float(text)  # beyond the double range: an infinity, as JSON's parser gives


def _text(text: str) -> str:
    return text


_BUILDERS = {
    STR: _text,
    TIMESTAMP: _text,  # a YAML 1.1 type: an explicit `!!timestamp` keeps the text it was written as
    MERGE: _text,  # "<<" outside a key position is just text
    NULL: _null,
    BOOL: _bool,
    INT: _int,
    FLOAT: _float,
}
