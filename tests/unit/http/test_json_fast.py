"""A big JSON text (1 MiB or more) is read by jiter where installed (`bounds/json_text.py`, "Big bodies"):
the very values `json.loads` gives, what jiter refuses read or refused by `json.loads` as before, and
less memory at the peak (two sizes compared in a child process, never the wall clock)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arazzo_runner.bounds import json_text
from tests.json_values import canonical, json_texts
from tests.untested import not_installed

pytest.importorskip("jiter", reason=not_installed("jiter", "big texts read by jiter (bigjson)"))

# Texts written here, not dumped: duplicate keys, numbers json.dumps never writes, escapes.
NUMBERS = st.sampled_from(
    [
        "-0", "-0.0", "0e0", "1E2", "1e-7", "0.1", "2.5e-324", "5e-324", "1.7976931348623157e308", "1e400",
        "-1e400", "18446744073709551615", "18446744073709551616", "-9223372036854775809",
        "123456789012345678901234567890", "1.0000000000000002", "9007199254740993", "NaN", "Infinity",
        "-Infinity", "3.141592653589793238462643383279", "1E+2", "-1e-0",
    ]
) | st.floats(allow_nan=False, allow_infinity=False).map(repr) | st.integers().map(str)  # fmt: skip
STRINGS = (
    st.sampled_from(['"\\ud83d\\ude00"', '"\\u0000"', '"\\n\\t\\"\\\\\\/"', '"\\u00e9"', '""', '"\\b\\f\\r"'])
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=8).map(json.dumps)
    | st.text(max_size=6).map(lambda text: json.dumps(text, ensure_ascii=False))
)
SCALARS = NUMBERS | STRINGS | st.sampled_from(["true", "false", "null"])
KEYS = st.sampled_from(["a", "b", "c", "", "\\u0061", "é"])  # "\\u0061" is "a" again: a duplicate


TEXTS = json_texts(SCALARS, KEYS, max_items=4, max_leaves=30)


def eager(text: bytes) -> Any:
    """What the engine read before: json.loads behind the same rule (the fast path below its threshold)."""
    try:
        return canonical(json.loads(text))
    except ValueError as exc:
        return ("refused", type(exc).__name__, str(exc))


@settings(max_examples=500, deadline=None)
@given(TEXTS)
def test_jiter_reads_every_generated_text_to_the_values_json_loads_gives(text: bytes) -> None:
    fast = json_text._fast(text)
    if fast is json_text._REFUSED:  # left to json.loads: a surrogate's escape, or what it refuses too
        assert json_text._SURROGATE_ESCAPE.search(text) or eager(text)[0] == "refused", text
    else:
        assert canonical(fast) == eager(text), text


@pytest.mark.parametrize(
    ("text", "read_by_jiter"),
    [
        (b'{"a":1,"b":2,"a":{"c":3}}', True),  # the last value, at the first key's place
        (b"[18446744073709551616,-9223372036854775809,1e400,-0,-0.0,NaN]", True),
        (b'"\\ud800"', False),  # a lone surrogate's escape: the rule's U+FFFD, from json.loads
        (b'"\\ud83d\\ude00"', False),  # a pair: json.loads reads it (no surrogate escape goes to jiter)
        (b'\xef\xbb\xbf{"a":1}', False),  # a BOM: json.loads reads it
        ('{"a":1}'.encode("utf-16-le"), False),  # UTF-16: json.loads reads it
        (b'"\xed\xa0\x80"', False),  # a surrogate encoded in bytes: not UTF-8, json.loads's reading
        (b'{"a":1,}', False),  # not JSON: json.loads's message
        (b"[1,2]x", False),
        (b'{"a":"\x01"}', False),
    ],
)
def test_a_big_text_reads_as_json_loads_reads_it_or_fails_with_its_message(text, read_by_jiter):
    space = " ".encode("utf-16-le" if text[1:2] == b"\x00" else "ascii")
    big = text + space * json_text.FAST_FROM  # trailing whitespace: the same JSON, over the threshold
    assert (json_text._fast(big) is not json_text._REFUSED) is read_by_jiter
    try:
        expected = ("read", canonical(json_text.loads(text)))  # small: json.loads, the rule before
    except ValueError as exc:
        expected = ("refused", type(exc).__name__, str(exc))
    try:
        got = ("read", canonical(json_text.loads(big)))
    except ValueError as exc:
        got = ("refused", type(exc).__name__, str(exc))
    assert got == expected


PEAK = """
import json, sys
from arazzo_runner.bounds import json_text
items, reader = int(sys.argv[1]), sys.argv[2]
row = '{"id":%d,"name":"item-%d","price":%d.25,"tags":["red","green"],"owner":{"email":"u%d@example.com"}}'
data = ('{"items":[' + ",".join(row % (i, i, i % 1000, i % 977) for i in range(items)) + "]}").encode()
def status(name):
    with open("/proc/self/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith(name))) * 1024
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) starts again from here: building `data` is not measured
before = status("VmRSS:")
doc = json_text.loads(data) if reader == "engine" else json.loads(data)
print(len(data), status("VmHWM:") - before)
"""


def _peak_per_byte(reader: str) -> float:
    """The peak memory a byte of a big body costs `reader`: two sizes, each in a child process."""
    measured = []
    for items in (20_000, 80_000):
        command = [sys.executable, "-c", PEAK, str(items), reader]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        measured.append(tuple(map(int, out.split())))
    (small_size, small_peak), (big_size, big_peak) = measured
    return (big_peak - small_peak) / (big_size - small_size)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_big_body_costs_the_engine_less_memory_at_the_peak_than_json_loads():
    engine, plain = _peak_per_byte("engine"), _peak_per_byte("json.loads")
    assert engine < 0.85 * plain, f"{engine:.2f} bytes of peak memory per byte, json.loads {plain:.2f}"


def test_no_string_of_a_big_body_is_held_once_its_value_is_dropped():
    """jiter's string cache is the process's: a token a big body held stayed referenced from it after the
    run that read it had ended (up to 16,384 strings of up to 64 bytes, whatever their content)."""
    token = "tok-" + os.urandom(12).hex()  # a string jiter caches (64 bytes at most)
    text = json.dumps({"token": token, "pad": ["x"] * (json_text.FAST_FROM // 4)}).encode()
    assert json_text._fast(text) is not json_text._REFUSED  # read by jiter
    value = json_text.loads(text)
    held = value["token"]
    assert held == token and held is not token
    del value
    assert sys.getrefcount(held) == 2, (
        "the string is still referenced from outside the value"
    )  # `held`, the call


def test_a_big_text_keeps_the_callers_refusal_of_nan():
    """A caller refusing NaN and the infinities (`parse_constant`: MCP requests) is never given jiter's
    reading, which takes them: a big text holding NaN is refused as a small one is."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not allowed")

    big = b"[" + b"1," * json_text.FAST_FROM + b"NaN]"
    with pytest.raises(ValueError, match="NaN is not allowed"):
        json_text.loads(big, parse_constant=refuse)


def test_a_big_str_reads_as_json_loads_reads_it():
    """jiter reads bytes only: a big str (a text already decoded) is read by `json.loads`, not refused."""
    text = '{"a": [' + ", ".join(["1.5"] * (json_text.FAST_FROM // 4)) + '], "b": "é"}'
    assert json_text.loads(text) == json.loads(text)
