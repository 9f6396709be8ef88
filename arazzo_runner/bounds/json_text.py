"""The one rule by which JSON from outside is read: server bodies and event data, model answers (bodies,
stream events, streamed argument fragments, tool-call arguments), recordings given to `--replay`,
`--inputs-file` rows and MCP requests all go through `loads`.

Depth. CPython's parser recurses once per level: about a thousand nested `[` raise RecursionError, and
fewer do once the call stack is deep (a nested workflow), or later, in whatever walks the value (masking,
reports, selectors, `copy.deepcopy`). So a text nesting deeper than `MAX_BODY_DEPTH` (128) levels is not
parsed at all: that is a `TooDeep` error (a ValueError, like any text that is not JSON), which each
caller reports where it read the text (a step failure, a model error, a located usage error). Every
value the engine then holds nests at most that deep, so every walk of it stays far from the recursion
limit whatever the call stack.

Lone surrogates. JSON's grammar admits any `\\uXXXX` escape, so `"\\ud800"` is JSON, and Python reads
it into a string no UTF-8 can carry: printing it, sending it on or writing it to a report failed
wherever it went (UnicodeEncodeError, the result lost). Each lone surrogate (an escape not part of a
high+low pair) is read as U+FFFD, the replacement character, as a UTF-8 decoder reads bytes that
are no character; a pair reads as its one character. A surrogate encoded in the bytes themselves (ED A0
80, which is not UTF-8 but which `json.loads` decodes with `surrogatepass`) reads as U+FFFD too, one
per surrogate, as does a surrogate code unit alone in a UTF-16 or UTF-32 text (each string of such a text
is walked). So every string the engine holds is Unicode.

Big bodies. A text of `FAST_FROM` bytes or more (1 MiB: a big response body) is read by jiter where
it is installed (the `bigjson` extra): the objects it builds share their repeated strings, and it reads
the bytes without first decoding them into a str, so a 20 MB body costs ~3.1x its size in memory at
the peak where `json.loads` costs ~4.6x, in ~0.6x the CPU (bench/RESULTS.md, issue 43's 20 MB body). It
gives the very values `json.loads` gives (types, float bits, big ints, NaN and the infinities, duplicate
keys: the last value at the first key's place; tests/unit/http/test_json_fast.py compares them on
generated documents), its options named so that another default cannot change them; what it refuses
(a lone surrogate's escape, a BOM, UTF-16, any text that is not JSON) goes to `json.loads` as before,
so the engine refuses exactly what it refused, with the same messages, and reads what it read. A text
holding a surrogate escape never goes to jiter. jiter's string cache is emptied after each text (~0.3 ms):
it is the process's, and kept the strings of the last bodies read, secrets included, after their run.

The depth check costs two `bytes.count` calls for most bodies; only a text with more brackets than the
bound is scanned (strings skipped), with C-level loops, in time linear in the text whatever its shape: a
few tenths of the time `json.loads` then takes. The surrogate walk runs only for a text holding an
escape of one (a regex search).
"""

from __future__ import annotations

import json
import re
import sys
from itertools import accumulate
from typing import Any

from .limits import MAX_BODY_DEPTH

_STRING = re.compile(rb'"[^"]*"')
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# a surrogate encoded as if it were a character (CESU-8): not UTF-8, but json.loads decodes bytes with
# `surrogatepass`, so it read into a lone surrogate that no report could then write
_SURROGATE_BYTES = re.compile(rb"\xed[\xa0-\xbf]")
_SURROGATE_IN_BYTES = re.compile(_SURROGATE_ESCAPE.pattern + b"|" + _SURROGATE_BYTES.pattern)  # one search
_SURROGATE_IN_TEXT = re.compile("\\\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_LONE = re.compile("[\ud800-\udfff]")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_TO_PARENS = bytes.maketrans(b"[]{}", b"()()")
_RUNS = re.compile(rb"\(+|\)+")
_OPENER = ord("(")
_LEAF_PASSES = 8
FAST_FROM = 1 << 20  # bytes: a text this long is read by jiter where installed (module doc)
# the digits of the longest int jiter reads (it refuses a longer one, which json.loads then reads or refuses
# by the process's limit); below that limit (PYTHONINTMAXSTRDIGITS, sys.set_int_max_str_digits) it is
# json.loads that reads the text, so the limit refuses the body as it did
_JITER_DIGITS = 4300
_int_digits = getattr(sys, "get_int_max_str_digits", lambda: 0)


class TooDeep(ValueError):
    """JSON text nesting deeper than the bound: not parsed."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"nests deeper than {limit} levels")
        self.limit = limit


def loads(text: str | bytes, limit: int = MAX_BODY_DEPTH, *, parse_constant: Any = None) -> Any:
    """`json.loads(text)`, unless the text nests deeper than `limit` levels (TooDeep) or its brackets do
    not balance (a plain ValueError: it is not JSON, however deep its openers go); each lone surrogate
    read as U+FFFD (module doc). `parse_constant`: as `json.loads`'s (NaN and the infinities)."""
    # (a text of at most `limit` characters holds at most that many openers: `_shape` would say None)
    shape = None if len(text) <= limit else _shape(text, limit)
    if shape is not None:
        if shape.count(b"(") != shape.count(b")"):
            raise ValueError("its brackets do not balance")
        if _deeper(shape, limit):
            raise TooDeep(limit)
    if parse_constant is None and len(text) >= FAST_FROM and isinstance(text, bytes):
        value = _fast(text)
        if value is not _REFUSED:
            return value
    try:
        value = _read(text) if parse_constant is None else json.loads(text, parse_constant=parse_constant)
    except RecursionError:  # only with a call stack already near the limit
        raise TooDeep(limit) from None
    if type(text) is str:
        if _SURROGATE_IN_TEXT.search(text):
            return _paired(value)
    elif isinstance(text, bytes | bytearray):
        if _SURROGATE_IN_BYTES.search(text) or not _utf8(text):
            return _paired(value)
    elif _SURROGATE_IN_TEXT.search(text):
        return _paired(value)
    return value


def _read(text: str | bytes) -> Any:
    """`json.loads(text)`: a str, or bytes it reads as UTF-8 (`_ascii_start`), scanned by its decoder's
    C scanner directly, without `json.loads`'s and `JSONDecoder.decode`'s Python frames and the
    encoding's detection (~10 k instructions a text; three a row of `--inputs-file`: its check, its
    run, its response). A text the scan does not read whole goes to `json.loads`, which reads or
    refuses it with its own error (the same scanner: the same answer)."""
    if type(text) is str:
        whole = text
    elif type(text) is bytes and _ascii_start(text):
        whole = text.decode("utf-8", "surrogatepass")  # as json.loads decodes what it detects as UTF-8
    else:
        return json.loads(text)
    try:
        value, end = _SCAN(whole, _SPACE(whole, 0).end() if whole[:1] in " \t\n\r" else 0)
    except (StopIteration, ValueError):  # not JSON (or a BOM): json.loads says why
        pass
    else:
        if end == len(whole) or _SPACE(whole, end).end() == len(whole):
            return value
    return json.loads(text)


_DECODING: Any = json.decoder  # (the names below are not in its type stubs)
_SCAN = _DECODING.JSONDecoder().scan_once  # json.loads's own decoder's, with its defaults (C, where built)
_SPACE = _DECODING.WHITESPACE.match  # what `JSONDecoder.decode` skips around the value


_REFUSED: Any = object()


def _utf8(text: bytes | bytearray) -> bool:
    """Whether `json.loads` reads `text` as UTF-8: UTF-16 and UTF-32, which it detects from the first
    bytes, decode a surrogate code unit alone, and their escapes are not the bytes searched above."""
    return _ascii_start(text) or json.detect_encoding(text).startswith("utf-8")


def _ascii_start(text: bytes | bytearray) -> bool:
    """Whether `json.detect_encoding` says UTF-8 by the first two bytes alone: the first ASCII and not
    NUL (no BOM starts so), the second not NUL (no UTF-16 or UTF-32)."""
    return bool(text) and 0 < text[0] < 0x80 and (len(text) < 2 or text[1] != 0)


def _fast(text: bytes) -> Any:
    """`text` read by jiter, or _REFUSED: jiter not installed, a surrogate escape in the text (read by
    the rule above), or a text jiter refuses (`json.loads` then reads or refuses it, with its message)."""
    if _SURROGATE_ESCAPE.search(text):
        return _REFUSED
    if 0 < _int_digits() < _JITER_DIGITS:  # jiter reads an int json.loads refuses, str() of it fails later
        return _REFUSED
    try:
        from jiter import cache_clear, from_json
    except ImportError:
        return _REFUSED
    try:
        return from_json(
            text,
            allow_inf_nan=True,  # NaN, Infinity, -Infinity: json.loads reads them
            cache_mode="all",  # repeated strings shared: the memory it saves
            partial_mode=False,
            catch_duplicate_keys=False,  # the last value, as json.loads
            float_mode="float",
        )
    except ValueError:
        return _REFUSED
    finally:
        # the cache is the process's, kept between calls: without this, up to 16,384 strings of the last
        # bodies (a token, a password a server sent) stayed held after the run that read them had ended
        cache_clear()


def unpaired(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD (a str that went through no JSON: a stream's pieces)."""
    return text if text.isascii() else _LONE.sub("\ufffd", text)


def _paired(value: Any) -> Any:
    """`value` (just parsed, so owned here) with `unpaired` applied to every string, keys included:
    iterative, the value being at most `limit` deep anyway."""
    if isinstance(value, str):
        return unpaired(value)
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if any(unpaired(key) != key for key in node):
                items = list(node.items())
                node.clear()
                node.update((unpaired(key), item) for key, item in items)
            for key, item in node.items():
                if isinstance(item, str):
                    node[key] = unpaired(item)
                elif isinstance(item, dict | list):
                    pending.append(item)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, str):
                    node[index] = unpaired(item)
                elif isinstance(item, dict | list):
                    pending.append(item)
    return value


def nests_deeper(text: str | bytes, limit: int) -> bool:
    """Whether the brackets of JSON `text` (outside its strings) nest deeper than `limit`."""
    shape = _shape(text, limit)
    return shape is not None and _deeper(shape, limit)


def _shape(text: str | bytes, limit: int) -> bytes | None:
    """The brackets of `text` outside its strings, as `(` and `)`; None when it has too few openers to
    nest deeper than `limit` (most bodies: two `count` calls).

    Only brackets and quotes matter: the text is reduced to them (escaped quotes and backslashes dropped
    first), then the strings (now holding brackets at most) are removed."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if data.count(b"[") + data.count(b"{") <= limit:
        return None
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    shape = data.translate(_TO_PARENS, _NOT_STRUCTURE)
    if b'"' in shape:
        # `""` is an empty string, or the end of one and the start of the next with no bracket between:
        # dropping it keeps every bracket inside or outside strings where it was.
        shape = _STRING.sub(b"", shape.replace(b'""', b""))
    return shape


def _deeper(shape: bytes, limit: int) -> bool:
    """Whether `(`/`)` nest deeper than `limit`, in time linear in the text whatever its shape.

    Every `()` pair (an empty container: a leaf) is removed, one level per pass, each pass a C-level
    `replace`: a tree loses its subtrees of height 1 and its depth drops by exactly one. Passes go on while
    each removes at least a quarter of what is left (their cost adds up to a few passes over the text).
    What is left is measured over its runs of openers and of closers: the largest running sum of their
    lengths (+ and -) is how deep a parser would descend before the text ended or stopped being JSON. A
    run boundary is a leaf or the gap between two, so the runs number about twice the leaves: under a
    quarter of the bytes after the last pass. (One pass per level, as before, cost up to `limit` passes
    over a body of many 127-deep arrays: 4x `json.loads`.) A run of openers as long as the levels left to
    the bound answers at once (a hostile `[[[[...`)."""
    passes = 0
    while passes <= limit:
        if b"(" * (limit + 1 - passes) in shape:
            return True
        leaves_gone = shape.replace(b"()", b"")
        if len(leaves_gone) == len(shape):
            break
        shape, before, passes = leaves_gone, len(shape), passes + 1
        if len(shape) * 4 > before * 3:
            break
    runs = _RUNS.findall(shape.lstrip(b")"))  # a closer before any opener: a parser stops there
    if not runs:
        return passes > limit
    return passes + max(accumulate(len(run) if run[0] == _OPENER else -len(run) for run in runs)) > limit
