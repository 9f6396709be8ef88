"""Templates: `{$..}` embedded expressions, literal braces, the bare form, rendering of values."""

from __future__ import annotations

from typing import Any

import pytest

from arazzo_runner.expressions import (
    Context,
    Embedded,
    InputsRef,
    Missing,
    parse_template,
    to_text,
)


def render(text: str, ctx: Context) -> str | Missing:
    return parse_template(text).render(ctx)


def test_spec_example_with_several_expressions() -> None:
    ctx = Context(inputs={"host": "api.example.com"}, steps={"create": {"id": 42}})
    text = "https://{$inputs.host}/api/{$steps.create.outputs.id}/status"
    assert render(text, ctx) == "https://api.example.com/api/42/status"


def test_parts_and_offsets() -> None:
    template = parse_template("a{$inputs.x}b")
    assert template.parts[0] == "a"
    assert template.parts[2] == "b"
    embedded = template.parts[1]
    assert isinstance(embedded, Embedded)
    assert (embedded.braced, embedded.start, embedded.end) == (True, 1, 12)
    assert embedded.expression == InputsRef("x", text="$inputs.x")
    assert list(template.expressions()) == [embedded.expression]
    assert not template.is_constant


def test_adjacent_expressions() -> None:
    ctx = Context(inputs={"a": 1, "b": 2})
    assert render("{$inputs.a}{$inputs.b}", ctx) == "12"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (10**20, "100000000000000000000"),
        (1.5, "1.5"),
        (2.0, "2.0"),
        ({"a": [1, "é"]}, '{"a":[1,"é"]}'),
        ([1, {"b": None}], '[1,{"b":null}]'),
        (b"<xml>caf\xc3\xa9</xml>", "<xml>café</xml>"),
        ("<xml/>", "<xml/>"),
    ],
)
def test_values_as_text(value: Any, text: str) -> None:
    assert to_text(value) == text
    assert render("[{$inputs.v}]", Context(inputs={"v": value})) == f"[{text}]"


def test_objects_embedded_in_json_text() -> None:
    ctx = Context(inputs={"x": {"k": "v"}})
    assert render('{"a": {$inputs.x}}', ctx) == '{"a": {"k":"v"}}'


def test_literal_braces_around_an_expression() -> None:
    ctx = Context(inputs={"x": "X"})
    assert render('{"a": "{$inputs.x}"}', ctx) == '{"a": "X"}'
    assert render("{{$inputs.x}}", ctx) == "{X}"


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": {"c": [1, 2]}}',
        "^\\d{3}$",
        "{$ not an expression}",
        "{$inputs.x",
        "price: $5",
        "$.items[0].id",
        "$[?count(@.pets) > 0]",
        "",
    ],
)
def test_text_without_expressions_is_constant(text: str) -> None:
    template = parse_template(text)
    assert template.is_constant
    assert template.render(Context()) == text


def test_failed_braced_expressions_are_reported_as_problems() -> None:
    template = parse_template("a {$inputs.} b {$inputs.x c")
    assert template.is_constant
    positions = [problem.position for problem in template.problems]
    assert positions == [11, 25]


def test_plain_braces_are_not_problems() -> None:
    assert parse_template('{"a": {"b": 1}}').problems == ()


def test_braced_expression_may_contain_spaces_in_names() -> None:
    ctx = Context(inputs={}, request=None)
    template = parse_template("{$request.query.my name}!")
    assert template.embedded[0].expression.name == "my name"
    assert isinstance(template.render(ctx), Missing)


# -- the bare form


def test_bare_expression_after_a_space() -> None:
    template = parse_template("Bearer $inputs.apiKey")
    (embedded,) = template.embedded
    assert not embedded.braced
    assert (embedded.start, embedded.end) == (7, 21)
    assert template.render(Context(inputs={"apiKey": "k"})) == "Bearer k"


def test_bare_expression_at_start_and_several() -> None:
    ctx = Context(inputs={"a": "A", "b": "B"}, status_code=201)
    assert render("$inputs.a and $inputs.b\t$statusCode", ctx) == "A and B\t201"


@pytest.mark.parametrize(
    "text",
    [
        "Bearer$inputs.apiKey",  # not after whitespace
        "Bearer $inputs.apiKey,",  # does not end at whitespace or the end
        "x=$inputs.a",
        "cost $5",
        "$inputs.",
    ],
)
def test_bare_form_needs_a_complete_expression_between_spaces(text: str) -> None:
    template = parse_template(text)
    assert template.is_constant
    assert template.problems == ()


def test_bare_form_can_be_disabled() -> None:
    assert parse_template("Bearer $inputs.apiKey", bare=False).is_constant


def test_mixed_braced_and_bare() -> None:
    template = parse_template("{$inputs.a} $inputs.b")
    assert [e.braced for e in template.embedded] == [True, False]


# -- missing values


def test_any_missing_expression_makes_the_render_missing() -> None:
    result = render("Bearer {$inputs.apiKey} for {$inputs.user}", Context(inputs={"user": "u"}))
    assert isinstance(result, Missing)
    assert result.reason == "input 'apiKey' was not provided"


def test_null_renders_as_null_text_not_missing() -> None:
    assert render("v={$inputs.v}", Context(inputs={"v": None})) == "v=null"


def test_templates_are_cached() -> None:
    assert parse_template("x {$inputs.y}") is parse_template("x {$inputs.y}")
