"""A big JSON body read as a stream (`bounds/json_stream.py`): on generated texts (duplicate keys, ints past
64 bits, -0, exponents, escapes, nested arrays), the values its pointers reach and the nodes its filters
select are those json.loads and the same JSONPath library give on the whole document, or the text is not
streamed (None: the caller parses it whole); never a text json.loads refuses."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arazzo_runner.bounds import json_stream, json_text, limits
from arazzo_runner.bounds.budget import BudgetExceeded
from arazzo_runner.loader.pointer import ABSENT, resolve_pointer
from arazzo_runner.query import compile_selector
from arazzo_runner.query.jsonpath_stream import stream_parts
from tests.json_values import canonical, json_texts
from tests.untested import not_installed

pytest.importorskip("ijson", reason=not_installed("ijson", "big bodies read as a stream (bigjson)"))

NUMBERS = st.sampled_from(
    [
        "-0", "-0.0", "0e0", "1E2", "1e-7", "0.1", "2.5e-324", "5e-324", "1.7976931348623157e308", "1e400",
        "-1e400", "18446744073709551615", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "123456789012345678901234567890", "1.0000000000000002", "9007199254740993",
        "NaN", "Infinity", "3.141592653589793238462643383279", "1E+2", "-1e-0", "1e-400", "0.5", "2",
    ]
)  # fmt: skip
NUMBERS = (
    NUMBERS
    | st.floats(allow_nan=False, allow_infinity=False).map(repr)
    | st.integers(-(2**70), 2**70).map(str)
)
CHARACTERS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)
STRINGS = (
    st.sampled_from(['"\\ud83d\\ude00"', '"\\ud800"', '"\\u0000"', '"\\n\\t\\"\\\\\\/"', '"\\u00e9"', '"x"'])
    | CHARACTERS.map(json.dumps)
    | CHARACTERS.map(lambda text: json.dumps(text, ensure_ascii=False))
)
SCALARS = NUMBERS | STRINGS | st.sampled_from(["true", "false", "null"])
KEYS = st.sampled_from(["a", "b", "items", "0", "1", "", "\\u0061", "é"])  # "\\u0061" is "a" again


TEXTS = json_texts(SCALARS, KEYS, max_items=5, max_leaves=40)
TOKENS = st.sampled_from(["a", "b", "items", "0", "1", "2", "01", "-", "", "é"])
POINTERS = st.lists(st.lists(TOKENS, min_size=1, max_size=4).map(tuple), max_size=4)
FILTERS = [
    "@ > 1", "@.a > 1", "@.b == 'x'", "@ == 1", "length(@) > 1", "count(@.a) == 1", "!@.a", "@.a && @.b",
    "@.a || @[0] == 2", "value(@.a) == 1", "match(@.b, 'x.*')", "search(@, 'a')", "@.a == @.b",
    "@.items[0] < 3", "@[-1] == null", "@.a != 0.1", "@ == -0", "length(@.b) == 0",
]  # fmt: skip
STEPS = st.lists(
    st.sampled_from(["['a']", "['items']", "['b']", "[0]", "[1]", "['0']"]), min_size=1, max_size=3
)
QUERIES = st.lists(
    st.tuples(STEPS, st.sampled_from(FILTERS)).map(lambda p: "$" + "".join(p[0]) + f"[?{p[1]}]"), max_size=3
)


@pytest.fixture(autouse=True)
def _every_size(monkeypatch):
    monkeypatch.setattr(json_stream, "STREAM_FROM", 0)  # generated texts are small


def uses(pointers: list[tuple[str, ...]], queries: list[str]) -> json_stream.Uses:
    filters = []
    for query in queries:
        parts = stream_parts(compile_selector("jsonpath", "rfc9535", query))
        assert parts is not None, query
        filters.append((query, *parts))
    return json_stream.Uses(tuple(pointers), tuple(filters))


def same_as_the_document(text: bytes, pointers: list[tuple[str, ...]], queries: list[str]) -> bool:
    """Whether the stream gave what the document gives (asserted); False when it did not stream."""
    streamed = json_stream.read(text, uses(pointers, queries))
    if streamed is None:
        return False
    document = json_text.loads(text)  # a text the stream read is JSON: json.loads reads it too
    for pointer in pointers:
        expected = resolve_pointer(document, pointer)
        found = streamed.at(pointer)
        if expected is ABSENT:
            assert found is json_stream.MISSING, (text, pointer)
        else:
            assert canonical(found) == canonical(expected), (text, pointer)
    for query in queries:
        expected = compile_selector("jsonpath", "rfc9535", query).select(document)
        assert canonical(streamed.selected(query)) == canonical(expected), (text, query)
    return True


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS, POINTERS, QUERIES)
def test_pointers_and_filters_read_what_the_document_gives(text, pointers, queries):
    same_as_the_document(text, pointers, queries)


def test_most_generated_texts_are_streamed():
    """The comparison above is not vacuous: most texts without a refused form stream."""
    rng = random.Random(5)
    streamed = 0
    for _ in range(300):
        text = json.dumps(_random_value(rng, 4)).encode()
        streamed += same_as_the_document(text, [("a",), ("items", "0")], ["$['items'][?@.a > 1]"])
    assert streamed == 300


def _random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(6 if depth else 3)
    if kind == 0:
        return rng.choice(
            [rng.randint(-(2**63), 2**63 - 1), -0.0, rng.random() * 10 ** rng.randint(-300, 300)]
        )
    if kind == 1:
        return rng.choice(["x", "é\n", "\u2028", "", 'a\\b"c'])
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return [_random_value(rng, depth - 1) for _ in range(rng.randrange(5))]
    return {
        rng.choice(["a", "b", "items", "0"]): _random_value(rng, depth - 1) for _ in range(rng.randrange(5))
    }


MUTATIONS = [b"\x0b", b"\x0c", b",", b"]", b"}", b'"', b"\\", b"0", b"-", b"e", b".", b" ", b"\xff",
             b"\xed\xa0\x80", b"\xc0\x80", b"\x00", b"\t", b"NaN", b"01"]  # fmt: skip


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS, st.integers(0, 10**6), st.sampled_from(MUTATIONS), st.booleans())
def test_a_text_json_loads_refuses_is_never_streamed(text, where, mutation, replace):
    """A text broken anywhere: streamed only if json.loads reads it, and then to the same values."""
    at = where % (len(text) + 1)
    broken = text[:at] + mutation + text[at + (1 if replace else 0) :]
    for prefix in (b"", b"\xef\xbb\xbf", b" \n"):
        same_as_the_document(prefix + broken, [("a",), ("items",)], ["$['items'][?@ > 1]"])


def test_numbers_read_to_the_same_bits_or_are_not_streamed():
    rng = random.Random(43)
    numbers = []
    for _ in range(30_000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25))).lstrip("0") or "0"
        mantissa = f"{digits[:1]}.{digits[1:]}" if len(digits) > 1 and rng.random() < 0.7 else digits
        exponent = f"e{rng.randint(-330, 310)}" if rng.random() < 0.6 else ""
        numbers.append(("-" if rng.random() < 0.3 else "") + mantissa + exponent)
    kept = [n for n in numbers if not math.isinf(float(n)) and ("e" in n or "." in n or abs(int(n)) < 2**63)]
    text = ('{"n":[' + ",".join(kept) + "]}").encode()
    assert same_as_the_document(text, [("n",)], ["$['n'][?@ > 1e300]"])
    assert json_stream.read(b'{"n":[1e400]}', uses([("n",)], [])) is None  # json.loads: inf


@pytest.mark.parametrize(
    "text",
    [
        b'{"n": 123456789012345678901234567890}', b'{"n": NaN}', b'{"n": -Infinity}', b'\xef\xbb\xbf{"n": 1}',
        b'{"n": "\\ud800"}', b'{"n": "\\ud83d\\ude00"}', b'{"n": "\xed\xa0\x80"}', b'\x0b{"n": 1}',
        b'{"n": 1}\x0c', b'{"n": 1} 2', b'{"n": 1,}', '{"n": 1}'.encode("utf-16"), b'{"n": 1} "open',
        b'{"n": [' + b"[" * 200 + b"]" * 200 + b"]}",
    ],
)  # fmt: skip
def test_what_the_stream_would_not_read_as_json_loads_is_not_streamed(text):
    assert json_stream.read(text, uses([("n",)], [])) is None


def test_the_depth_bound_is_json_texts():
    def nested(levels: int) -> bytes:
        return b'{"n":' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"

    for use in ([("n",)], [("x",)], [("n", "0", "0")]):
        assert json_stream.read(nested(limits.MAX_BODY_DEPTH), uses(use, [])) is not None
        assert json_stream.read(nested(limits.MAX_BODY_DEPTH + 1), uses(use, [])) is None
    with pytest.raises(json_text.TooDeep):
        json_text.loads(nested(limits.MAX_BODY_DEPTH + 1))


def test_the_last_of_duplicate_keys_wins_at_every_level():
    text = b'{"meta":{"total":1},"items":[{"p":1000}],"meta":{"page":2},"items":[{"p":5},{"p":2000}]}'
    streamed = json_stream.read(text, uses([("meta", "total"), ("meta", "page"), ("items", "0", "p")],
                                           ["$.items[?@.p > 999.5]"]))  # fmt: skip
    assert streamed is not None
    assert streamed.at(("meta", "total")) is json_stream.MISSING  # only the first `meta` has it
    assert streamed.at(("meta", "page")) == 2
    assert streamed.at(("items", "0", "p")) == 5
    assert streamed.selected("$.items[?@.p > 999.5]") == [{"p": 2000}]


def test_a_filter_over_an_object_tests_its_members_with_the_last_value_at_the_first_place():
    text = b'{"o":{"a":{"p":1},"b":{"p":2},"a":{"p":3}}}'
    assert same_as_the_document(text, [], ["$.o[?@.p > 0]"])
    assert json_stream.read(text, uses([], ["$.o[?@.p > 0]"])).selected("$.o[?@.p > 0]") == [
        {"p": 3},
        {"p": 2},
    ]


def test_a_filter_out_of_its_budget_is_stopped_and_the_others_answered(monkeypatch):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.0)
    text = b'{"items":[' + b",".join(b'{"p":%d}' % i for i in range(1000)) + b'],"meta":{"total":1000}}'
    streamed = json_stream.read(text, uses([("meta", "total")], ["$.items[?@.p > 10]"]))
    assert streamed is not None and streamed.at(("meta", "total")) == 1000
    with pytest.raises(BudgetExceeded) as stopped:
        streamed.selected("$.items[?@.p > 10]")
    assert str(stopped.value) == "stopped after 0 s"


@pytest.mark.parametrize(
    "query",
    ["$[?@.a]", "$.items[?$.a]", "$..items[?@.a]", "$.items[*][?@.a]", "$.items[-1][?@.a]", "$.items[?@..a]",
     "$.items", "$['a','b'][?@.a]", "$.items[?count(@.*) > 1]", "$.items[0:2][?@.a]",
     "$.items[?@.a == $.b]", "$.items[?@.a && $.b]", "$.items[?$.b == @.a]"],
)  # fmt: skip
def test_queries_outside_the_streamed_form_are_not_streamed(query):
    assert stream_parts(compile_selector("jsonpath", "rfc9535", query)) is None


def test_long_arrays_filtered_in_chunks_with_a_later_duplicate_read_as_the_document():
    """Arrays longer than a chunk, a duplicate `items` after the first was tested (its nodes dropped),
    pointers into elements of both, a filter over an array inside each element."""
    rng = random.Random(7)

    def items(count: int) -> str:
        return (
            "["
            + ",".join(json.dumps({"p": rng.randint(0, 9), "t": [rng.randint(0, 3)]}) for _ in range(count))
            + "]"
        )

    for first, second in ((1000, 300), (json_stream.CHUNK, json_stream.CHUNK + 1), (5, 0)):
        text = f'{{"items":{items(first)},"meta":{{"n":1}},"items":{items(second)}}}'.encode()
        pointers = [("items", "0"), ("items", str(second - 1)), ("items", str(first - 1)), ("meta", "n")]
        queries = ["$.items[?@.p > 6]", "$.items[?@.p == 3 || @.t[0] == 1]", "$.items[1].t[?@ > 1]"]
        assert same_as_the_document(text, pointers, queries)


class _Clock:
    """json_stream's clock, each look 0.6 s after the last: each chunk a filter tests costs 0.6 s of it
    (the budget's own clock is the real one, so a budget given is not spent before its filter runs)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.6
        return self.now


def test_a_filters_chunks_share_the_querys_time_and_its_message_is_the_querys_limit(monkeypatch):
    """Three chunks at 0.6 s each against a 1 s limit: the first two run (1.2 s spent), the third has
    none left and stops the filter, which says it stopped after the query's limit (1 s), not what was
    left to its last chunk (0 s)."""
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 1.0)
    monkeypatch.setattr(json_stream, "time", _Clock())
    elements = b",".join(b'{"p":%d}' % i for i in range(2 * json_stream.CHUNK + 1))
    streamed = json_stream.read(b'{"items":[' + elements + b"]}", uses([], ["$.items[?@.p > 10]"]))
    assert streamed is not None
    with pytest.raises(BudgetExceeded) as stopped:
        streamed.selected("$.items[?@.p > 10]")
    assert str(stopped.value) == "stopped after 1 s"
    two_chunks = b",".join(b'{"p":%d}' % i for i in range(2 * json_stream.CHUNK))
    streamed = json_stream.read(b'{"items":[' + two_chunks + b"]}", uses([], ["$.items[?@.p > 250]"]))
    assert streamed.selected("$.items[?@.p > 250]") == [
        {"p": 251},
        {"p": 252},
        {"p": 253},
        {"p": 254},
        {"p": 255},
    ]


def test_a_token_that_is_not_an_index_reaches_no_element_of_an_array():
    """RFC 6901: `01` (a leading zero), `-` and `a` name no element, whether the array is walked by the
    pass or is inside a value built whole for another use (`o`, which `("o",)` reaches)."""
    text = b'{"items":[10,20,30],"o":{"items":[10,20,30]}}'
    tokens = ("01", "-", "a", "1", "2")
    pointers = [("items", token) for token in tokens] + [("o",)] + [("o", "items", token) for token in tokens]
    assert same_as_the_document(text, pointers, [])
    streamed = json_stream.read(text, uses(pointers, []))
    found = [streamed.at(pointer) for pointer in pointers]
    missing = json_stream.MISSING
    assert found == [
        missing,
        missing,
        missing,
        20,
        30,
        {"items": [10, 20, 30]},
        missing,
        missing,
        missing,
        20,
        30,
    ]
