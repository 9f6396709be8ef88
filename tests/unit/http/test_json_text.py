"""JSON from outside parsed by one rule (`bounds/json_text.py`): a bound on its nesting, measured outside
strings, exactly, in time linear in the text (deeper text is never handed to the recursive parser);
each lone surrogate read as U+FFFD, so every string held encodes as UTF-8."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arazzo_runner.bounds.json_text import TooDeep, loads, nests_deeper
from tests.cputime import cpu_bound


def reference_depth(text: str) -> int:
    """The nesting of JSON text, one character at a time (strings and escapes skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


PIECES = st.sampled_from(["[", "]", "{", "}", '"', "\\", '\\"[', "[\\\\", "x", ""])
values = st.recursive(
    st.none() | st.integers() | st.lists(PIECES, max_size=4).map("".join),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text('[{k\\"', max_size=3), inner, max_size=3)
    ),
    max_leaves=40,
)


@given(values, st.integers(0, 8))
def test_the_depth_is_exact_for_any_json(value: Any, limit: int) -> None:
    text = json.dumps(value)
    assert nests_deeper(text, limit) is (reference_depth(text) > limit)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('["]]]]]]]]]]",' + "[" * 5 + "]" * 5 + "]", 6),  # closers inside a string do not hide depth
        ('["\\\\",' + "[" * 5 + "]" * 5 + "]", 6),  # an escaped backslash ends before the quote
        ('["\\"[[[[[[",' + ",".join(["[]"] * 20) + "]", 2),  # an escaped quote does not end the string
        ("[" + "[[]," * 5 + "1" + "]" * 5 + "]", 7),  # every level has a leaf beside it
        ('{"a":' * 7 + "1" + "}" * 7, 7),
    ],
)
def test_strings_and_escapes(text: str, depth: int) -> None:
    json.loads(text)
    assert reference_depth(text) == depth
    assert not nests_deeper(text, depth)
    assert nests_deeper(text, depth - 1)


def test_loads_parses_up_to_the_bound_and_refuses_beyond() -> None:
    assert loads("[" * 128 + "]" * 128) is not None
    with pytest.raises(TooDeep, match=r"^nests deeper than 128 levels$"):
        loads("[" * 129 + "]" * 129)
    with pytest.raises(TooDeep):
        loads(b'{"a":' * 5000 + b"1" + b"}" * 5000)


@pytest.mark.parametrize("kind", [str, bytes])
def test_each_lone_surrogate_reads_as_u_fffd_and_a_pair_as_its_character(kind) -> None:
    text = (
        '{"a\\ud800": ["x\\udfffy", "\\ud83d\\ude00", "\\ude00\\ud83d", "\\\\ud800", {"k": "\\uDBFF"}], '
        '"b": "\\ud800"}'
    )
    value = loads(text.encode() if kind is bytes else text)
    assert value == {
        "a\ufffd": ["x\ufffdy", "\U0001f600", "\ufffd\ufffd", "\\ud800", {"k": "\ufffd"}],
        "b": "\ufffd",
    }
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # every string encodes
    assert loads('"\\ud800"') == "\ufffd"  # a lone string, not in a container
    assert loads('["\ud800"]') == ["\ufffd"]  # a str that holds the surrogate itself
    assert loads(b'["\\udc00", "\\uDFFF"]') == ["\ufffd", "\ufffd"]  # low ones alone, in bytes
    assert loads(b'["\xed\xa0\x80", "\xed\x9f\xbf"]') == ["\ufffd", "\ud7ff"]  # encoded: not UTF-8


def test_parse_constant_is_passed_on() -> None:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    assert loads("[NaN]")[0] != loads("[NaN]")[0]
    with pytest.raises(ValueError, match="NaN is not JSON"):
        loads("[NaN]", parse_constant=refuse)


def test_unbalanced_brackets_are_not_json_rather_than_too_deep() -> None:
    """Text of many openers is not JSON at all (an SSE event of plain text stays text)."""
    with pytest.raises(ValueError, match=r"^its brackets do not balance$") as info:
        loads("[" * 5000)
    assert not isinstance(info.value, TooDeep)


@pytest.mark.parametrize(
    "hostile",
    [
        b"[" * 2**24,
        b"[" * 2**23 + b"]" * 2**23,
        b"[" + b"[[]," * 2**21 + b"1" + b"]" * 2**21 + b"]",
        b"[" * 100 + b"[1]," * 2**22 + b"1" + b"]" * 100,
        b'["' + b"[" * 2**24 + b'"]',
    ],
    ids=["openers", "balanced", "leaf beside each level", "wide at the bound", "one string"],
)
def test_sixteen_mib_of_hostile_brackets_are_measured_in_linear_time(hostile: bytes) -> None:
    with cpu_bound(2, "measuring 16 MiB of brackets"):
        nests_deeper(hostile, 128)


def test_an_ordinary_large_body_costs_a_fraction_of_its_parse() -> None:
    body = json.dumps([{"id": i, "tags": ["a", "b[", "c\\"], "n": {"x": [1, 2]}} for i in range(100_000)])
    with cpu_bound(5, "measuring and parsing 6 MiB of JSON") as spent:
        assert not nests_deeper(body, 128)
    with cpu_bound(5, "parsing it") as parsing:
        json.loads(body)
    assert spent.seconds < 2 * parsing.seconds + 0.05


def test_a_valid_body_of_many_deep_arrays_costs_less_to_measure_than_to_parse() -> None:
    """1 MiB of 127-deep arrays (valid, at the bound): one leaf pass per level made the depth check 3x
    `json.loads` (each pass over the whole text); now a few passes and the runs of what is left."""
    import time

    unit = b"[" * 127 + b"]" * 127
    text = b"[" + b",".join([unit] * (2**20 // len(unit))) + b"]"
    assert not nests_deeper(text, 128) and nests_deeper(text, 127)
    started = time.process_time()
    for _ in range(3):
        nests_deeper(text, 128)
    measuring = time.process_time() - started
    started = time.process_time()
    for _ in range(3):
        json.loads(text)
    parsing = time.process_time() - started
    assert measuring < parsing, (measuring, parsing)


_PIECES = ["{", "}", "[", "]", '"', ":", ",", " ", "\n", "\r", "1", "-", ".5", "e3", "true", "null", "NaN",
           '"a"', '"\\ud800"', '"\\ud83d\\ude00"', "\ufeff", "\x00", "é", "x", "\\"]  # fmt: skip


def _outcome(read: Any, text: Any) -> tuple[str, str]:
    try:
        return "value", repr(read(text))
    except ValueError as exc:
        return type(exc).__name__, str(exc)


@given(
    st.lists(st.sampled_from(_PIECES), max_size=8),
    st.sampled_from(["str", "utf-8", "utf-16", "utf-32", "sig"]),
)
def test_any_text_reads_as_json_loads_reads_it(pieces: list[str], form: str) -> None:
    """The C scanner called directly (`_read`) reads what `json.loads` reads, refuses what it refuses
    with its words: the text as str, or as bytes in each encoding it detects."""
    text: str | bytes = "".join(pieces)
    if form != "str":
        text = text.encode(form if form != "sig" else "utf-8-sig", "surrogatepass")
    wanted = _outcome(json.loads, text)
    got = _outcome(loads, text)
    if wanted[0] == "value":  # each lone surrogate as U+FFFD: the one thing loads adds
        assert got[0] == "value" and (got == wanted or "\\ud8" in repr(text) or "\\xed" in repr(text))
    else:
        assert got == wanted


def test_an_ordinary_text_does_not_go_through_json_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A str, or UTF-8 bytes, read whole by the scanner: json.loads's wrappers (~10 k instructions a
    text, three a row of `--inputs-file`) only for what the scanner does not read whole."""

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("json.loads called")

    monkeypatch.setattr(json, "loads", refused)
    assert loads('{"start": 1}') == {"start": 1}
    assert loads(b' {"id": 4, "next": 5, "ok": true}\r\n') == {"id": 4, "next": 5, "ok": True}
    assert loads(b'"\\ud800"') == "\ufffd"
    with pytest.raises(AssertionError):  # not JSON: json.loads says why
        loads(b"{} x")


@pytest.mark.parametrize("encoding", ["utf-16-be", "utf-16-le", "utf-32-be", "utf-32-le", "utf-16", "utf-32"])
def test_a_lone_surrogate_in_utf_16_or_32_reads_as_u_fffd(encoding: str) -> None:
    """UTF-16 and UTF-32, which json.loads detects by their first bytes (a NUL first or second), read
    each lone surrogate, escaped or a code unit alone, as U+FFFD as UTF-8 does: their escapes are not
    the bytes searched for, so such a text is never taken for UTF-8 (`_ascii_start`)."""
    text = '["\\ud800", "x\\udfffy", "\\ud83d\\ude00", "\ud800"]'
    value = loads(text.encode(encoding, "surrogatepass"))
    assert value == ["\ufffd", "x\ufffdy", "\U0001f600", "\ufffd"]
    assert loads('"\\udc00"'.encode(encoding)) == "\ufffd"  # a lone string, not in a container
