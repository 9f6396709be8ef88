"""Fuzz the runtime-expression parser, templates and compiled values: a result or an ExpressionError,
and evaluation never raises (problems become `Missing`)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from arazzo_runner.errors import ArazzoError
from arazzo_runner.expressions import (
    DEFAULT_STOP,
    CompiledValue,
    Embedded,
    Expression,
    Missing,
    Template,
    compile_value,
    iter_missing,
    parse_expression,
    parse_expression_prefix,
    parse_template,
    resolve,
)
from tests.fuzz.kit import fuzz, outcome
from tests.fuzz.strategies import any_text, contexts, document_values, expression_text, template_text

SELECTOR_TYPES = ["jsonpath", "xpath", "jsonpointer", "?"]


def _is_value(value: Any) -> bool:
    return not isinstance(value, BaseException)


@fuzz(200)
@given(any_text, contexts)
def test_parse_expression(text: str, ctx: Any) -> None:
    expression = outcome("parse_expression", parse_expression, text)
    if not _is_value(expression):
        assert 0 <= expression.position <= len(text)
        return
    assert isinstance(expression, Expression)
    assert expression.text == text  # the whole text, and nothing else
    outcome("resolve", resolve, expression, ctx)  # may be Missing, never raises


@fuzz(200)
@given(any_text, st.integers(0, 40), st.sampled_from([DEFAULT_STOP, "", " )=!<>&|,]", "}"]))
def test_parse_expression_prefix(text: str, offset: int, stop: str) -> None:
    text = text[:offset] + "$" + text[offset:]
    pos = min(offset, len(text) - 1)
    found = outcome("parse_expression_prefix", parse_expression_prefix, text, pos, stop=stop)
    if _is_value(found):
        expression, end = found
        assert pos < end <= len(text)
        assert expression.text == text[pos:end]


@fuzz(150)
@given(template_text | any_text, st.booleans(), contexts)
def test_parse_template(text: str, bare: bool, ctx: Any) -> None:
    template = outcome("parse_template", parse_template, text, bare=bare)
    assert isinstance(template, Template)  # templates never fail: text that is no expression is literal
    rebuilt = "".join(p if isinstance(p, str) else text[p.start : p.end] for p in template.parts)
    assert rebuilt == text
    assert all(isinstance(p, Embedded) and p.start < p.end for p in template.embedded)
    rendered = outcome("template.render", template.render, ctx)
    assert isinstance(rendered, (str, Missing))


@fuzz(150)
@given(document_values, st.booleans(), st.booleans(), contexts)
def test_compile_value(raw: Any, selectors: bool, strict: bool, ctx: Any) -> None:
    compiled = outcome("compile_value", compile_value, raw, selectors=selectors, strict=strict)
    if not _is_value(compiled):
        return
    assert isinstance(compiled, CompiledValue)
    list(compiled.expressions())
    value = outcome("CompiledValue.evaluate", compiled.evaluate, ctx)
    assert not isinstance(value, ArazzoError)  # evaluation reports problems as Missing values
    for _, missing in iter_missing(value):
        assert missing.reason


@fuzz(100)
@given(
    st.fixed_dictionaries(
        {"context": expression_text, "selector": any_text, "type": st.sampled_from(SELECTOR_TYPES)}
    ),
    contexts,
)
def test_selector_objects(raw: dict, ctx: Any) -> None:
    compiled = outcome("compile_value", compile_value, raw, selectors=True)
    if _is_value(compiled):
        assert not isinstance(outcome("CompiledValue.evaluate", compiled.evaluate, ctx), ArazzoError)
