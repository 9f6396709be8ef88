"""compile_value: typed whole-value substitution, templates, containers, Selector Objects."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from arazzo_runner.errors import ExpressionError
from arazzo_runner.expressions import (
    Context,
    InputsRef,
    Missing,
    SimpleMessage,
    StepOutputRef,
    compile_value,
    iter_missing,
    parse_expression,
)


@pytest.fixture
def ctx() -> Context:
    return Context(
        inputs={"model": "gpt", "count": 3, "user": {"name": "Ann"}, "apiKey": "k", "tags": ["a"]},
        steps={"login": {"token": "t"}},
        response=SimpleMessage(body={"user": {"profile": {"email": "a@b.c"}}, "items": [1, 2, 3]}),
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("$inputs.count", 3),
        ("$inputs.user", {"name": "Ann"}),
        ("$inputs.tags", ["a"]),
        ("{$inputs.count}", "3"),
        ("n={$inputs.count}", "n=3"),
        ("Bearer $inputs.apiKey", "Bearer k"),
        ("{$inputs.user}", '{"name":"Ann"}'),
    ],
)
def test_strings(raw: str, expected: Any, ctx: Context) -> None:
    assert compile_value(raw).evaluate(ctx) == expected


@pytest.mark.parametrize("raw", ["plain", "$5.00", "$.a", "", 1, 2.5, True, None, {"a": 1}, [1, "x"]])
def test_constants_are_returned_as_is(raw: Any, ctx: Context) -> None:
    compiled = compile_value(raw)
    assert compiled.is_constant
    assert compiled.evaluate(ctx) is raw
    assert list(compiled.expressions()) == []


def test_payload_recurses_and_keeps_keys_literal(ctx: Context) -> None:
    raw = {
        "model": "$inputs.model",
        "$inputs.model": "key stays",
        "messages": [{"role": "user", "content": "Hi {$inputs.user#/name}"}, "$steps.login.outputs.token"],
        "n": 1,
    }
    compiled = compile_value(raw)
    assert not compiled.is_constant
    assert compiled.evaluate(ctx) == {
        "model": "gpt",
        "$inputs.model": "key stays",
        "messages": [{"role": "user", "content": "Hi Ann"}, "t"],
        "n": 1,
    }


def test_constant_members_are_shared_not_copied(ctx: Context) -> None:
    raw = {"fixed": {"deep": [1, 2]}, "live": "$inputs.count"}
    value = compile_value(raw).evaluate(ctx)
    assert value["fixed"] is raw["fixed"]
    assert value["live"] == 3


def test_expressions_lists_every_expression() -> None:
    compiled = compile_value({"a": "$inputs.x", "b": ["{$steps.s.outputs.y} and {$inputs.z}"], "c": 1})
    assert [e.text for e in compiled.expressions()] == ["$inputs.x", "$steps.s.outputs.y", "$inputs.z"]
    assert isinstance(next(compiled.expressions()), InputsRef)
    assert isinstance(list(compiled.expressions())[1], StepOutputRef)


def test_missing_members_stay_in_containers(ctx: Context) -> None:
    value = compile_value({"a": "$inputs.nope", "b": ["x", "{$inputs.gone}"]}).evaluate(ctx)
    assert isinstance(value["a"], Missing)
    found = list(iter_missing(value))
    assert [path for path, _ in found] == [("a",), ("b", 1)]
    assert found[1][1].reason == "input 'gone' was not provided"


def test_top_level_may_be_missing(ctx: Context) -> None:
    value = compile_value("$inputs.nope").evaluate(ctx)
    assert isinstance(value, Missing)
    assert list(iter_missing(value)) == [((), value)]


def test_selector_shape_is_plain_data_without_the_flag(ctx: Context) -> None:
    raw = {"context": "$response.body", "selector": "$.a", "type": "jsonpath"}
    compiled = compile_value(raw)
    assert compiled.evaluate(ctx) == {"context": ctx.response.body, "selector": "$.a", "type": "jsonpath"}


# -- Selector Objects, with a stand-in query module (the real one is tested below when present)


class _FakeQuery:
    def __init__(self, type_: str, version: str | None, expression: str) -> None:
        self.args = (type_, version, expression)

    def select(self, data: Any) -> list[Any]:
        # "items" selects every item, "first" the first one, anything else nothing
        if self.args[2] == "items":
            return list(data["items"])
        return data["items"][:1] if self.args[2] == "first" else []


@pytest.fixture
def fake_query(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("arazzo_runner.query")
    module.compile_selector = _FakeQuery  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "arazzo_runner.query", module)


@pytest.mark.usefixtures("fake_query")
@pytest.mark.parametrize(("selector", "expected"), [("first", 1), ("items", [1, 2, 3])])
def test_selector_results(selector: str, expected: Any, ctx: Context) -> None:
    raw = {"context": "$response.body", "selector": selector, "type": "jsonpath"}
    compiled = compile_value(raw, selectors=True)
    assert compiled.evaluate(ctx) == expected
    assert [e.text for e in compiled.expressions()] == ["$response.body"]


@pytest.mark.usefixtures("fake_query")
def test_selector_without_match_is_missing(ctx: Context) -> None:
    raw = {"context": "$response.body", "selector": "none", "type": "jsonpath"}
    value = compile_value(raw, selectors=True).evaluate(ctx)
    assert isinstance(value, Missing)
    assert value.reason == "selector 'none' matched nothing in $response.body"


@pytest.mark.usefixtures("fake_query")
def test_selector_with_missing_context(ctx: Context) -> None:
    raw = {"context": "$steps.x.outputs.y", "selector": "first", "type": "jsonpath"}
    value = compile_value(raw, selectors=True).evaluate(ctx)
    assert isinstance(value, Missing)
    assert "step 'x' has not run" in value.reason


@pytest.mark.usefixtures("fake_query")
def test_selector_type_object_and_nesting() -> None:
    raw = {
        "payload": {
            "id": {
                "context": "$inputs.doc",
                "selector": "/a",
                "type": {"type": "xpath", "version": "xpath-30"},
            }
        }
    }
    compiled = compile_value(raw, selectors=True)
    selector = compiled.items[0][1].items[0][1]  # type: ignore[attr-defined]
    assert selector.query.args == ("xpath", "xpath-30", "/a")


@pytest.mark.usefixtures("fake_query")
def test_selector_context_must_be_an_expression() -> None:
    with pytest.raises(ExpressionError):
        compile_value({"context": "body", "selector": "first", "type": "jsonpath"}, selectors=True)


def test_selector_with_the_real_query_package(ctx: Context) -> None:
    raw = {"context": "$response.body", "selector": "$.user.profile.email", "type": "jsonpath"}
    assert compile_value(raw, selectors=True).evaluate(ctx) == "a@b.c"
    raw = {"context": "$response.body", "selector": "/items/1", "type": "jsonpointer"}
    assert compile_value(raw, selectors=True).evaluate(ctx) == 2


def test_xpath_selector_with_the_real_query_package() -> None:
    ctx = Context(inputs={"xml": "<Invoice><Header><InvoiceNumber>42</InvoiceNumber></Header></Invoice>"})
    kind = {"type": "xpath", "version": "xpath-30"}
    raw = {"context": "$inputs.xml", "selector": "/Invoice/Header/InvoiceNumber", "type": kind}
    assert compile_value(raw, selectors=True).evaluate(ctx) == "42"


def test_compiled_whole_expression_matches_the_parser() -> None:
    compiled = compile_value("$inputs.model")
    assert list(compiled.expressions()) == [parse_expression("$inputs.model")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$respons.body#/count", ("$response", "$response.body#/count")),
        ("$Inputs.id", ("$inputs", "$inputs.id")),
        ("$statuscode", ("$statusCode", "$statusCode")),
        ("$requestBody", ("$request", None)),  # close to a root, but no expression even then
        ("$inputs.id", None),  # an expression: no near miss
        ("$steps.x", None),  # a known root: its own syntax error says what is wrong
        ("$USD", None),
        ("$5", None),
        ("$.store", None),
        ("total", None),
    ],
)
def test_near_misses_of_expressions(text: str, expected: object) -> None:
    from arazzo_runner.expressions.parser import near_miss

    assert near_miss(text) == expected


def test_why_a_literal_output_is_not_an_expression() -> None:
    from arazzo_runner.expressions.values import literal_output_problem, output_is_misspelt

    assert literal_output_problem("n", 2, False) == (
        "output 'n' is not a runtime expression: 2 would be returned as it is written "
        "(an output is an expression such as $response.body#/id)"
    )
    long = literal_output_problem("x", "x" * 100, True)
    assert f': "{"x" * 76}... would be returned as it is written' in long  # shortened to 80 characters
    # the value spelt as JSON, as any client reads the document's data (issue 37 item 5), and a run's
    # wording: it is returned
    assert ": null would be returned" in literal_output_problem("n", None, False)
    assert ': {"a": [1, null, false]} is returned as it is written' in literal_output_problem(
        "m", {"a": [1, None, False]}, False, returned=True
    )
    assert ': "Done" would be returned' in literal_output_problem("d", "Done", False)
    assert output_is_misspelt("$respons.body") and output_is_misspelt("$Inputs.id")
    assert not any(output_is_misspelt(v) for v in ("Done", "$5", "//Customer/Id", None, 3))
    assert long.endswith(
        "(an output is an expression such as $response.body#/id or a Selector Object "
        "{context, selector, type})"
    )
    assert literal_output_problem("c", "$respons.body", False).endswith("did you mean '$response.body'?")
