"""Fuzz criteria: `simple` conditions (random text and grammar-shaped text) and every criterion type with
random types, versions and contexts. Compiling gives a criterion or an ExpressionError; evaluating
always gives an `Outcome` (runtime problems fail the criterion, they never raise)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from arazzo_runner.criteria import CompiledCriterion, Outcome, compile_criterion
from arazzo_runner.query import compile_selector
from tests.fuzz.kit import fuzz, outcome
from tests.fuzz.strategies import any_text, contexts, expression_text, valid_expression

# Warm the selector libraries up (jsonpath-ng builds its parser tables on first use): the first
# example must not pay for it against the per-example deadline.
compile_selector("jsonpath", "draft-goessner-dispatch-jsonpath-00", "$.a")
compile_selector("xpath", None, "/a")

literal = st.sampled_from(["200", "-1.5", "1e3", "'text'", "'it''s'", '"dq"', "true", "false", "null", "'a'"])
good_operand = valid_expression | literal
good_operator = st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "&&", "||"])
# now and then garbage, so that the error paths are fuzzed too
any_operand = st.one_of(good_operand, good_operand, good_operand, expression_text)
any_operator = st.one_of(good_operator, good_operator, st.sampled_from(["=", "&", "|", "!", ""]))


comparison = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])


@st.composite
def conditions(draw: Any, depth: int = 0, valid: bool = False) -> str:
    """Text shaped like a simple condition: terms (`a`, `a == b`, `(...)`) joined by `&&`/`||`, with
    negations and accessors. With `valid`, the pieces are well formed and comparisons never chain."""
    operand, operator = (good_operand, good_operator) if valid else (any_operand, any_operator)

    def term() -> str:
        if depth < 3 and draw(st.integers(0, 3)) == 0:
            closer = ")" if valid else draw(st.sampled_from([")", ")", ")[0]", ").a", ""]))
            return "(" + draw(conditions(depth + 1, valid)) + closer
        text = draw(operand)
        if draw(st.booleans()):
            text += f" {draw(comparison if valid else operator)} {draw(operand)}"
        prefixes = ["", "", "!", "!!"] if valid else ["", "", "", "!", "{", "("]
        return draw(st.sampled_from(prefixes)) + text

    parts = [term()]
    for _ in range(draw(st.integers(0, 3))):
        parts += [draw(st.sampled_from(["&&", "||"]) if valid else operator), term()]
    return " ".join(parts)


VERSIONS = ["rfc9535", "draft-goessner-dispatch-jsonpath-00", "xpath-10", "xpath-20", "xpath-30", "xpath-31"]
VERSIONS += ["1.0", None]
TYPES = st.one_of(
    st.none(),
    st.sampled_from(["simple", "regex", "jsonpath", "xpath", "JSONPath", "sql", ""]),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["jsonpath", "xpath", "simple", 3]),
            "version": st.sampled_from(VERSIONS),
        }
    ),
    st.integers(),
    st.lists(st.none(), max_size=1),
)
CONTEXTS = st.none() | st.sampled_from(["$response.body", "$statusCode", "$inputs.a", "$response.header.A"])
CONTEXTS = CONTEXTS | expression_text
JSONPATH_TEXT = st.text(alphabet="$.[]?@()=!<>'\"0123456789 abk*,:-&|", max_size=25)
XPATH_TEXT = st.text(alphabet="/ab*@[]()=<>'\"0123456789 .:,|-+ndortcu$", max_size=25)
# Only short, quantifier-light patterns: a document's own catastrophic regex is its author's problem
# (and Python's `re` cannot be interrupted), not what this suite measures.
REGEX_TEXT = st.text(alphabet="ab.^$[]()|\\d?{}2-", max_size=10)


def _check(condition: Any, type_: Any, context: Any, ctx: Any) -> None:
    criterion = outcome("compile_criterion", compile_criterion, condition, type_, context)
    if isinstance(criterion, BaseException):
        assert 0 <= criterion.position <= max(len(str(criterion.text)), 0)
        return
    assert isinstance(criterion, CompiledCriterion)
    list(criterion.expressions())
    result = outcome("criterion.evaluate", criterion.evaluate, ctx)
    assert isinstance(result, Outcome)
    assert isinstance(result.passed, bool)
    assert result.passed or isinstance(result.message, str)


@fuzz(150)
@given(conditions(valid=True) | conditions() | any_text, contexts)
def test_simple_conditions(condition: str, ctx: Any) -> None:
    _check(condition, None, None, ctx)


@fuzz(150)
@given(
    st.one_of(conditions(), JSONPATH_TEXT, XPATH_TEXT, REGEX_TEXT, any_text, st.integers()),
    TYPES,
    CONTEXTS,
    contexts,
)
def test_every_criterion_type(condition: Any, type_: Any, context: Any, ctx: Any) -> None:
    is_regex = type_ == "regex" or (isinstance(type_, dict) and type_.get("type") == "regex")
    if is_regex and isinstance(condition, str) and len(condition) > 10:
        condition = condition[:10]
    _check(condition, type_, context, ctx)
