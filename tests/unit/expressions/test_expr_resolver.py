"""Resolving expressions against a Context: values, pointers, accessors, missing values and their reasons."""

from __future__ import annotations

from typing import Any

import pytest

from arazzo_runner.expressions import Context, Missing, SimpleMessage, parse_expression, resolve


def value_of(text: str, ctx: Context) -> Any:
    return resolve(parse_expression(text), ctx)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$url", "https://api.example.com/pets/7"),
        ("$method", "GET"),
        ("$statusCode", 200),
        ("$self", "https://example.com/doc.arazzo.yaml"),
        ("$request.header.accept", "application/json"),
        ("$request.path.id", "7"),
        ("$request.query.limit", "10"),
        ("$request.query.my name", "spaced"),
        ("$request.body#/user/uuid", "u-1"),
        ("$request.payload#/user/uuid", "u-1"),
        ("$response.body#/status", "ok"),
        ("$response.body#/items/0/id", 1),
        ("$response.header.Server", "nginx"),
        ("$message.header.Server", "broker"),
        ("$message.payload#/status", "queued"),
        ("$inputs.username", "ann"),
        ("$workflows.foo.inputs.username", "bob"),
        ("$steps.someStepId.outputs.pets#/0/id", 7),
        ("$outputs.bar", "out"),
        ("$workflows.foo.outputs.bar", 1),
        ("$workflows.foo.outputs.mappedResponse#/name", "m"),
        ("$workflows.foo.steps.login.outputs.token", "wf-abc"),
        ("$workflows.foo.steps.login.outputs.user#/id", 5),
        ("$components.parameters.foo", {"name": "foo", "in": "query", "value": 1}),
    ],
)
def test_spec_examples_resolve(text: str, expected: Any, ctx: Context) -> None:
    assert value_of(text, ctx) == expected


def test_values_keep_their_type_and_identity(ctx: Context) -> None:
    assert value_of("$inputs.count", ctx) == 3
    assert value_of("$inputs.flag", ctx) is False
    assert value_of("$inputs.user", ctx) is ctx.inputs["user"]
    assert value_of("$steps.someStepId.outputs.pets", ctx) is ctx.steps["someStepId"]["pets"]


def test_null_is_a_value_not_missing(ctx: Context) -> None:
    assert value_of("$inputs.nothing", ctx) is None


@pytest.mark.parametrize("name", ["content-type", "CONTENT-TYPE", "Content-Type", "cOnTeNt-TyPe"])
def test_header_names_are_case_insensitive(name: str, ctx: Context) -> None:
    assert value_of(f"$response.header.{name}", ctx) == "application/json"


def test_query_names_are_case_sensitive(ctx: Context) -> None:
    assert isinstance(value_of("$request.query.LIMIT", ctx), Missing)


def test_pointer_escapes(ctx: Context) -> None:
    assert value_of("$response.body#/a~1b/m~0n", ctx) == "escaped"


def test_empty_pointer_is_the_whole_body(ctx: Context) -> None:
    assert value_of("$response.body#", ctx) is ctx.response.body
    assert value_of("$response.body", ctx) is ctx.response.body


def test_pointer_to_the_empty_key(ctx: Context) -> None:
    assert value_of("$response.body#/", ctx) == "empty key"


def test_pointer_into_arrays(ctx: Context) -> None:
    assert value_of("$response.body#/items/1/id", ctx) == 2
    assert value_of("$steps.someStepId.outputs.pets#/1", ctx) == {"id": 8}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("$inputs.apiToken", "input 'apiToken' was not provided"),
        ("$outputs.nope", "workflow output 'nope' has not been set"),
        ("$steps.login.outputs.session", "step 'login' has no output 'session'"),
        ("$steps.other.outputs.x", "step 'other' has not run (no outputs recorded)"),
        ("$workflows.bar.outputs.x", "workflow 'bar' has not run"),
        ("$workflows.foo.inputs.password", "workflow 'foo' has no input 'password'"),
        ("$workflows.foo.outputs.baz", "workflow 'foo' has no output 'baz'"),
        ("$workflows.bar.steps.login.outputs.token", "workflow 'bar' has not run"),
        (
            "$workflows.foo.steps.other.outputs.x",
            "step 'other' of workflow 'foo' has not run (no outputs recorded)",
        ),
        ("$workflows.foo.steps.login.outputs.nope", "step 'login' of workflow 'foo' has no output 'nope'"),
        ("$components.parameters.bar", "no component parameters.bar is defined"),
        ("$components.failureActions.x", "no component failureActions.x is defined"),
        ("$sourceDescriptions.nope.x", "there is no source description named 'nope'"),
        (
            "$sourceDescriptions.plain.getPet",
            "source description 'plain' has no operation, workflow or field 'getPet'",
        ),
        ("$response.header.X-Missing", "the response has no header 'X-Missing'"),
        ("$request.query.offset", "the request has no query parameter 'offset'"),
        ("$request.path.petId", "the request has no path parameter 'petId'"),
        (
            "$response.body#/items/3",
            "$response.body#/items/3: index 3 is out of range at /items (length 2)",
        ),
        ("$response.body#/nope/x", "$response.body#/nope/x: no member 'nope' at the root"),
        ("$response.body#/status/x", "$response.body#/status/x: cannot descend into a str at /status"),
        ("$inputs.user#/age", "$inputs.user#/age: no member 'age' at the root"),
    ],
)
def test_missing_values_explain_why(text: str, reason: str, ctx: Context) -> None:
    value = value_of(text, ctx)
    assert isinstance(value, Missing)
    assert not value
    assert value.reason == reason
    assert value.expression == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("$url", "the request URL is not known yet"),
        ("$method", "the request method is not known yet"),
        ("$statusCode", "no response has been received yet"),
        ("$self", "the document declares no $self URI"),
        ("$request.body", "no request has been made yet"),
        ("$response.header.Server", "no response has been received yet"),
        ("$message.payload", "no message is available"),
    ],
)
def test_empty_context_gives_missing(text: str, reason: str) -> None:
    value = value_of(text, Context())
    assert isinstance(value, Missing)
    assert value.reason == reason


# -- the longest declared name wins


def test_declared_dotted_name_wins_over_members(ctx: Context) -> None:
    assert value_of("$inputs.dotted.name", ctx) == "declared"


def test_undeclared_dotted_name_falls_back_to_members(ctx: Context) -> None:
    assert value_of("$inputs.env.AUTH_TOKEN", ctx) == "tok"
    assert value_of("$inputs.user.tags.1", ctx) == "b"


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"a.b.c": 1, "a.b": {"c": 2}, "a": {"b": {"c": 3}}}, 1),
        ({"a.b": {"c": 2}, "a": {"b": {"c": 3}}}, 2),
        ({"a": {"b": {"c": 3}}}, 3),
    ],
)
def test_longest_prefix_is_chosen(values: dict[str, Any], expected: int) -> None:
    ctx = Context(
        inputs=values,
        outputs=values,
        steps={"s": values},
        workflows={"w": {"inputs": values, "outputs": values}},
    )
    for text in (
        "$inputs.a.b.c",
        "$outputs.a.b.c",
        "$steps.s.outputs.a.b.c",
        "$workflows.w.inputs.a.b.c",
        "$workflows.w.outputs.a.b.c",
    ):
        assert value_of(text, ctx) == expected, text


def test_member_fallback_then_pointer(ctx: Context) -> None:
    assert value_of("$inputs.user.tags#/0", ctx) == "a"


def test_member_fallback_miss_names_the_member(ctx: Context) -> None:
    value = value_of("$inputs.env.OTHER", ctx)
    assert isinstance(value, Missing)
    assert value.reason == "$inputs.env.OTHER: no member 'OTHER'"


def test_workflow_entries_may_be_objects() -> None:
    class Run:
        inputs = {"a": 1}
        outputs = {"b": 2}

    ctx = Context(workflows={"w": Run()})
    assert value_of("$workflows.w.inputs.a", ctx) == 1
    assert value_of("$workflows.w.outputs.b", ctx) == 2


# -- accessors


def test_accessors_after_body(ctx: Context) -> None:
    assert value_of("$response.body.count", ctx) == 2
    assert value_of("$response.body.items[1].id", ctx) == 2
    assert value_of("$response.body.items[-1]", ctx) == {"id": 2}
    assert value_of("$response.body['a/b']['m~n']", ctx) == "escaped"


def test_accessors_after_names(ctx: Context) -> None:
    assert value_of("$outputs.data[0].id", ctx) == "d1"
    assert value_of("$steps.someStepId.outputs.pets[0].name", ctx) == "Rex"


def test_accessors_after_a_pointer() -> None:
    ctx = Context(response=SimpleMessage(body={"a b": [10, 20]}))
    node = parse_expression("$response.body#/a b")
    from arazzo_runner.records import replace

    assert resolve(replace(node, accessors=(1,)), ctx) == 20


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("$response.body.total", "$response.body.total: no member 'total'"),
        ("$response.body.items[5]", "$response.body.items[5]: index 5 is out of range (length 2) at .items"),
        ("$response.body.items.first", "$response.body.items.first: 'first' is not an array index at .items"),
        ("$response.body.status.x", "$response.body.status.x: cannot take 'x' of a str at .status"),
        ("$inputs.nothing.x", "$inputs.nothing.x: cannot take 'x' of a null"),
    ],
)
def test_accessor_misses(text: str, reason: str, ctx: Context) -> None:
    value = value_of(text, ctx)
    assert isinstance(value, Missing)
    assert value.reason == reason


def test_integer_accessor_on_an_object_uses_the_string_key() -> None:
    ctx = Context(inputs={"codes": {"200": "ok"}})
    assert value_of("$inputs.codes[200]", ctx) == "ok"


def test_header_accessor() -> None:
    ctx = Context(response=SimpleMessage(headers={"X-List": ["a", "b"]}))
    assert value_of("$response.header.x-list[1]", ctx) == "b"


# -- source descriptions and components


def test_source_description_priority(ctx: Context) -> None:
    assert value_of("$sourceDescriptions.petstore.getPetById", ctx) == {"operationId": "getPetById"}
    # an operationId named like a field takes precedence over the field
    assert value_of("$sourceDescriptions.petstore.url", ctx) == {"operationId": "url"}
    assert value_of("$sourceDescriptions.petstore.type", ctx) == "openapi"
    assert value_of("$sourceDescriptions.plain.url", ctx) == "https://x/plain.yaml"


def test_components_inputs_kind() -> None:
    ctx = Context(components={"inputs": {"paging": {"type": "object"}}})
    assert value_of("$components.inputs.paging", ctx) == {"type": "object"}


def test_body_may_be_text() -> None:
    ctx = Context(response=SimpleMessage(body=b"<xml/>"))
    assert value_of("$response.body", ctx) == b"<xml/>"
    assert isinstance(value_of("$response.body#/a", ctx), Missing)


def test_missing_repr_and_str() -> None:
    missing = Missing("input 'x' was not provided", "$inputs.x")
    assert str(missing) == "input 'x' was not provided"
    assert "input 'x'" in repr(missing)
