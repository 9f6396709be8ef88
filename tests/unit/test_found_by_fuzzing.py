"""Regressions: inputs the fuzz and scaling suites (tests/fuzz/) found that ended in an exception other
than an ArazzoError, in a RecursionError, or in quadratic time. Each must now end in a result or a
clear error, fast."""

from __future__ import annotations

import time
from typing import Any

import pytest

from arazzo_runner.criteria import compile_criterion
from arazzo_runner.criteria.compare import compare
from arazzo_runner.errors import ArazzoError, DocumentError, ExpressionError
from arazzo_runner.executor.actions import parse_retry_after
from arazzo_runner.expressions import Context, compile_value, parse_expression, parse_template, resolve
from arazzo_runner.loader import load_text
from arazzo_runner.query import compile_selector
from arazzo_runner.workspace import Workspace
from tests.cputime import cpu_bound


def fails_clearly(call: Any, *args: Any, match: str = "") -> ArazzoError:
    """`call(*args)` raises an ArazzoError whose text contains `match`, within a second of CPU time."""
    with cpu_bound(1.0), pytest.raises(ArazzoError) as info:
        call(*args)
    assert match in str(info.value)
    return info.value


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("(" * 200 + "1" + ")" * 200, "nests '(' and '!' deeper than 64 levels"),  # was RecursionError
        ("!" * 2000 + "true", "nests '(' and '!' deeper than 64 levels"),
        ("$statusCode == " + "1" * 5000, "number too long"),  # was ValueError (int digits limit)
        ("$url²", "unexpected '²'"),  # '²'.isdigit() is true: was an AssertionError in the lexer
    ],
    ids=["parentheses", "negations", "long-number", "superscript-digit"],
)
def test_simple_conditions(condition: str, message: str) -> None:
    fails_clearly(compile_criterion, condition, match=message)


def test_long_and_or_chains_evaluate_without_recursion() -> None:
    ctx = Context(status_code=200)
    assert compile_criterion(" && ".join(["$statusCode == 200"] * 5000)).evaluate(ctx).passed
    assert not compile_criterion(" || ".join(["false"] * 5000)).evaluate(ctx).passed
    assert len(list(compile_criterion(" && ".join(["$statusCode"] * 5000)).expressions())) == 5000


@pytest.mark.parametrize(
    ("condition", "type_", "message"),
    [
        ("(" * 2000 + ")" * 2000, "regex", "nested too deeply"),  # RecursionError in re
        ("a{99999999999}", "regex", "the repetition number is too large"),  # OverflowError in re
        ("$[?" + "!" * 3000 + "@.a]", "jsonpath", "nested too deeply"),  # RecursionError in the library
        ("(" * 3000 + "1" + ")" * 3000, "xpath", "nested too deeply"),  # RecursionError in elementpath
    ],
)
def test_criteria_of_other_types(condition: str, type_: str, message: str) -> None:
    fails_clearly(compile_criterion, condition, type_, "$response.body", match=message)
    if type_ != "regex":
        fails_clearly(compile_selector, type_, None, condition, match=message)


def test_numeric_strings_beyond_the_int_digit_limit_still_compare() -> None:
    assert compare(">", "1" * 5000, 2) is True  # was ValueError
    assert compare("==", "1" * 5000, 200) is False


def test_expressions() -> None:
    fails_clearly(parse_expression, "$inputs.a[" + "1" * 5000 + "]", match="index too long")
    ctx = Context(inputs={"a": {"a": 1}})
    # Both were quadratic (1 s at 16k accessors; kept tracebacks for each problem). Four times the size
    # costs about four times the CPU when linear, sixteen when quadratic: two sizes compared, which a
    # busy machine moves together (an absolute bound failed at 1.3x under load), under a bound for hangs.
    with cpu_bound(10.0):
        small = _cpu(lambda i: resolve(parse_expression("$inputs" + ".a" * 12_500 + f".z{i}"), ctx))
        large = _cpu(lambda i: resolve(parse_expression("$inputs" + ".a" * 50_000 + f".z{i}"), ctx))
        assert large / small < 8, (small, large)
        small = _cpu(lambda i: parse_template("{$" * 5_000 + f"x{i}"))
        large = _cpu(lambda i: parse_template("{$" * 20_000 + f"x{i}"))
        assert large / small < 8, (small, large)
    assert not resolve(parse_expression("$inputs" + ".a" * 50_000), ctx)
    assert len(parse_template("{$" * 20_001).problems) == 20_001


def _cpu(call: Any) -> float:
    """The CPU time of the median of three calls, each on its own input (`call(i)`: parsed afresh, no
    cache answers it)."""
    times = []
    for i in range(3):
        start = time.process_time()
        call(i)
        times.append(time.process_time() - start)
    return sorted(times)[1]


def test_values_nested_deeper_than_the_stack() -> None:
    value: Any = "$inputs.x"
    for _ in range(490):  # the loader allows 500 levels
        value = [value]
    error = fails_clearly(compile_value, value, match="nested more than 100 levels deep")
    assert isinstance(error, ExpressionError) and len(error.path) == 100  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "file", "message"),
    [
        ("a: 0x" + "f" * 3600, "a.yaml", "more than 4300 decimal digits"),  # str() of it raised later
        ('{"a": "\\ud800"}', "a.json", "half of a UTF-16 surrogate pair"),  # crashed `arazzo list`
    ],
)
def test_loader(text: str, file: str, message: str) -> None:
    fails_clearly(load_text, text, file, match=message)


def test_a_base_60_looking_scalar_is_a_string() -> None:
    """YAML 1.1 read `1:59:59...` as a base-60 integer, with quadratic arithmetic; the core schema has no
    base 60 (see test_loader_yaml_scalars.py)."""
    text = "1" + ":59" * 3000
    with cpu_bound(1.0):
        assert load_text("a: " + text, "a.yaml").data == {"a": text}


def test_flow_yaml_is_not_read_with_python_json_extensions() -> None:
    assert load_text("[Infinity]\n", "a.yaml").data == ["Infinity"]  # was the float inf


def test_a_yaml_scalar_means_the_same_in_every_shape() -> None:
    """`value=['0E0'], form='yaml-flow'`: the flow sequence `[0E0]` is JSON text and was read as the float
    0.0, while `- 0E0` and `a: 0E0` were the string '0E0' (YAML 1.1). Now one rule, the core schema."""
    assert load_text("[0E0]\n", "a.yaml").data == load_text("- 0E0\n", "a.yaml").data == [0.0]
    assert load_text("[1e5, x]", "a.yaml").data == [100000.0, "x"]
    assert load_text("a: 1e5", "a.yaml").data == load_text("{a: 1e5}", "a.yaml").data == {"a": 100000.0}


def test_a_component_parameter_that_is_itself_a_reference() -> None:
    text = """
arazzo: 1.0.1
info: {title: t, version: '1'}
workflows:
  - workflowId: w
    steps: [{stepId: s, operationId: op, parameters: [{reference: $components.parameters.p}]}]
components:
  parameters: {p: {reference: $components.parameters.p}}
"""
    workspace = Workspace.from_text(text, "flow.yaml")
    error = fails_clearly(workspace.compiled, workspace.document.workflows[0])  # was AttributeError
    assert isinstance(error, DocumentError)
    assert "components.parameters.p must be a parameter, not a reference" in error.message


def test_a_retry_after_header_with_non_ascii_digits_is_ignored() -> None:
    assert parse_retry_after("²") is None  # was ValueError, raised out of the run
    assert parse_retry_after("2") == 2.0
