"""Fuzz JSON pointers and the selector compiler: parse/format round trips, resolving never raises, and
`compile_selector(...).select(data)` gives a list or a clear error for any type, version and text."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from arazzo_runner.errors import ExpressionError
from arazzo_runner.loader.pointer import ABSENT, describe_miss, format_pointer, parse_pointer, resolve_pointer
from arazzo_runner.query import CompiledQuery, compile_selector
from tests.fuzz.kit import fuzz, outcome
from tests.fuzz.strategies import any_text, json_values

compile_selector("jsonpath", "draft-goessner-dispatch-jsonpath-00", "$.a")  # warm up (see criteria)

DIGIT_ONE_ARABIC = "\u0661"  # str.isdigit() but not an RFC 6901 index
token = st.sampled_from(["a", "0", "1", "01", "-", "~", "/", "~0", "~1", "", DIGIT_ONE_ARABIC, "1e2", " "])
token = token | st.text(max_size=4)
pointer_text = st.lists(token, max_size=5).map(format_pointer) | st.lists(
    st.sampled_from(["/", "~", "~0", "~1", "~2", "#", "a", "0", "%25"]), max_size=8
).map("".join)


@fuzz(120)
@given(pointer_text, json_values)
def test_parse_and_resolve_pointer(text: str, document: Any) -> None:
    tokens = outcome("parse_pointer", parse_pointer, text)
    if isinstance(tokens, ExpressionError):
        assert 0 <= tokens.position <= len(text)
        return
    assert isinstance(tokens, tuple)
    if text.startswith("/"):
        assert format_pointer(tokens) == text  # escaping is exact: what was parsed formats back
    found = outcome("resolve_pointer", resolve_pointer, document, tokens)
    explanation = outcome("describe_miss", describe_miss, document, tokens)
    assert (explanation == "found") is (found is not ABSENT)


@fuzz(100)
@given(st.lists(token, max_size=6))
def test_format_then_parse_round_trips(tokens: list[str]) -> None:
    assert outcome("parse_pointer", parse_pointer, format_pointer(tokens)) == tuple(tokens)


JSONPATH_PARTS = [".a", "[0]", "[*]", "..a", "[-1]", "['k']", "[0:2]", "[?@.a > 1]", "[?length(@) > 0]", ".*"]
JSONPATH = st.lists(st.sampled_from(JSONPATH_PARTS), max_size=4).map(lambda parts: "$" + "".join(parts))
JSONPATH = JSONPATH | st.text(alphabet="$.[]?@()=!<>'\"0123456789 abk*,:-&|", max_size=25)
XPATH = st.text(alphabet="/ab*@[]()=<>'\"0123456789 .:,|-+ndortcu$", max_size=25)
XPATH = st.sampled_from(["/a", "/a/b", "//b", "count(//b)", "/a/b[1]/text()", "string(/a)", "/a/@x"]) | XPATH
XML = ["<a><b>1</b><b>x</b></a>", "<a x='1'/>", "<", "", "<!DOCTYPE a [<!ENTITY e 'x'>]><a/>"]
JSONPATH_VERSIONS = st.sampled_from([None, "rfc9535", "draft-goessner-dispatch-jsonpath-00", "2.0"])
XPATH_VERSIONS = st.sampled_from([None, "xpath-10", "xpath-20", "xpath-30", "xpath-31", "rfc9535"])
SELECTORS = st.one_of(
    st.tuples(st.just("jsonpath"), JSONPATH_VERSIONS, JSONPATH, json_values),
    st.tuples(st.just("xpath"), XPATH_VERSIONS, XPATH, st.sampled_from(XML) | json_values),
    st.tuples(st.just("jsonpointer"), st.sampled_from([None, "rfc6901", "x"]), pointer_text, json_values),
    st.tuples(st.sampled_from(["JSONPath", "", "jsonpointer"]), st.none(), any_text, json_values),
)


@fuzz(150)
@given(SELECTORS)
def test_compile_selector_and_select(selector: tuple[str, str | None, str, Any]) -> None:
    type_, version, expression, data = selector
    query = outcome("compile_selector", compile_selector, type_, version, expression)
    if isinstance(query, BaseException):
        return
    assert isinstance(query, CompiledQuery)
    nodes = outcome("CompiledQuery.select", query.select, data)
    assert isinstance(nodes, (list, BaseException))
