"""Properties of the comparison rules and robustness of the parsers on arbitrary input."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arazzo_runner.criteria import compile_criterion
from arazzo_runner.criteria.compare import compare
from arazzo_runner.criteria.comparison_form import json_compare
from arazzo_runner.errors import ExpressionError
from arazzo_runner.expressions import Context, SimpleMessage

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
)
OPS = ["==", "!=", "<", "<=", ">", ">="]


@given(json_values, json_values)
def test_not_equal_is_the_negation_of_equal(left, right):
    assert compare("!=", left, right) is (not compare("==", left, right))
    assert json_compare("!=", left, right) is (not json_compare("==", left, right))


@given(json_values, json_values, st.sampled_from(OPS))
def test_comparisons_never_raise_and_are_booleans(left, right, op):
    assert isinstance(compare(op, left, right), bool)
    assert isinstance(json_compare(op, left, right), bool)


@given(json_values)
def test_equality_is_reflexive(value):
    assert compare("==", value, value)
    assert json_compare("==", value, value)


@given(json_values, st.sampled_from(["<", "<=", ">", ">="]))
def test_null_is_never_ordered(value, op):
    assert not compare(op, None, value)
    assert not compare(op, value, None)


@given(st.integers(-1000, 1000), st.integers(-1000, 1000), st.sampled_from(OPS))
def test_numeric_strings_order_like_numbers(a, b, op):
    expected = compare(op, a, b)
    assert compare(op, str(a), b) is expected
    assert compare(op, a, str(b)) is expected
    assert compare(op, str(a), str(b)) is expected or op in ("==", "!=")


@given(st.text(alphabet="abcXYZ", max_size=6), st.text(alphabet="abcXYZ", max_size=6), st.sampled_from(OPS))
def test_strings_compare_like_their_lower_case(a, b, op):
    assert compare(op, a, b) is compare(op, a.lower(), b.lower())


condition_text = st.text(alphabet="$ .()[]!=<>&|'\"0123456789-abetrufnlsCod#/{}", max_size=30)


@settings(max_examples=300)
@given(condition_text)
def test_simple_parser_only_raises_expression_errors(text):
    ctx = Context(status_code=200, response=SimpleMessage(body={"a": [1]}))
    try:
        criterion = compile_criterion(text)
    except ExpressionError as error:
        assert 0 <= error.position <= len(text)
        return
    assert isinstance(criterion.evaluate(ctx).passed, bool)


@settings(max_examples=200)
@given(st.text(alphabet="$.[]?@()=!<>'\"0123456789 abc*,:-", max_size=25))
def test_jsonpath_conditions_only_raise_expression_errors(text):
    try:
        criterion = compile_criterion(text, "jsonpath", "$response.body")
    except ExpressionError:
        return
    ctx = Context(response=SimpleMessage(body={"a": [1, {"b": "c"}]}))
    assert isinstance(criterion.evaluate(ctx).passed, bool)


@pytest.mark.parametrize("op", OPS)
def test_json_compare_le_ge_include_equality(op):
    assert json_compare(op, 2, 2) is (op in ("==", "<=", ">="))
    assert json_compare(op, "a", "a") is (op in ("==", "<=", ">="))
    assert json_compare(op, True, True) is (op in ("==", "<=", ">="))
