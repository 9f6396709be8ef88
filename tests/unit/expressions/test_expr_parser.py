"""Parsing runtime expressions into AST nodes: every ABNF form, the spec examples, accessors and errors."""

from __future__ import annotations

import pytest

from arazzo_runner.errors import ExpressionError
from arazzo_runner.expressions import (
    ComponentRef,
    Expression,
    InputsRef,
    MessageRef,
    MethodRef,
    OutputsRef,
    RequestRef,
    ResponseRef,
    SelfRef,
    SourceRef,
    StatusCodeRef,
    StepOutputRef,
    UrlRef,
    WorkflowRef,
    WorkflowStepOutputRef,
    parse_expression,
    parse_expression_prefix,
)
from arazzo_runner.records import replace

CONDITION_STOP = " \t\r\n)=!<>&|,]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$url", UrlRef()),
        ("$method", MethodRef()),
        ("$statusCode", StatusCodeRef()),
        ("$self", SelfRef()),
        ("$request.header.accept", RequestRef("header", "accept")),
        ("$request.query.limit", RequestRef("query", "limit")),
        ("$request.path.id", RequestRef("path", "id")),
        ("$request.body", RequestRef("body")),
        ("$request.body#/user/uuid", RequestRef("body", pointer=("user", "uuid"))),
        ("$request.payload#/a", RequestRef("payload", pointer=("a",))),
        ("$response.body#/status", ResponseRef("body", pointer=("status",))),
        ("$response.body#/items/0/id", ResponseRef("body", pointer=("items", "0", "id"))),
        ("$response.header.Server", ResponseRef("header", "Server")),
        ("$message.header.Server", MessageRef("header", "Server")),
        ("$message.payload#/status", MessageRef("payload", pointer=("status",))),
        ("$message.payload", MessageRef("payload")),
        ("$inputs.username", InputsRef("username")),
        ("$inputs.user#/name", InputsRef("user", ("name",))),
        ("$outputs.bar", OutputsRef("bar")),
        ("$steps.someStepId.outputs.pets", StepOutputRef("someStepId", "pets")),
        ("$steps.someStepId.outputs.pets#/0/id", StepOutputRef("someStepId", "pets", ("0", "id"))),
        ("$steps.get-pet_2.outputs.a.b-c_d", StepOutputRef("get-pet_2", "a.b-c_d")),
        ("$workflows.foo.inputs.username", WorkflowRef("foo", "inputs", "username")),
        ("$workflows.foo.outputs.bar", WorkflowRef("foo", "outputs", "bar")),
        (
            "$workflows.foo.outputs.mappedResponse#/name",
            WorkflowRef("foo", "outputs", "mappedResponse", ("name",)),
        ),
        (
            "$workflows.foo.steps.login.outputs.token",
            WorkflowStepOutputRef("foo", "login", "token"),
        ),
        (
            "$workflows.foo.steps.login.outputs.user#/id",
            WorkflowStepOutputRef("foo", "login", "user", ("id",)),
        ),
        ("$sourceDescriptions.petstore.getPetById", SourceRef("petstore", "getPetById")),
        ("$sourceDescriptions.petstore.url", SourceRef("petstore", "url")),
        ("$sourceDescriptions.cafe-api.search-menu-items", SourceRef("cafe-api", "search-menu-items")),
        ("$components.parameters.foo", ComponentRef("parameters", "foo")),
        ("$components.successActions.bar", ComponentRef("successActions", "bar")),
        ("$components.failureActions.baz", ComponentRef("failureActions", "baz")),
        ("$components.inputs.pagination", ComponentRef("inputs", "pagination")),
    ],
)
def test_every_form_parses_to_its_node(text: str, expected: Expression) -> None:
    node = parse_expression(text)
    assert type(node) is type(expected)
    assert node == _with_text(expected, text)
    assert node.text == text == str(node)


def _with_text(node: Expression, text: str) -> Expression:
    from arazzo_runner.records import replace

    return replace(node, text=text)


def test_pointer_tokens_are_unescaped() -> None:
    assert parse_expression("$response.body#/a~1b/m~0n").pointer == ("a/b", "m~n")


def test_empty_pointer_means_the_whole_value() -> None:
    assert parse_expression("$response.body#").pointer == ()
    assert parse_expression("$inputs.user#").pointer == ()


def test_pointer_with_empty_token_and_array_index() -> None:
    assert parse_expression("$response.body#/").pointer == ("",)
    assert parse_expression("$response.body#/items/10").pointer == ("items", "10")


def test_whole_value_pointer_runs_to_the_end_including_spaces() -> None:
    assert parse_expression("$response.body#/a b/c").pointer == ("a b", "c")


def test_query_and_path_names_are_free_form() -> None:
    assert parse_expression("$request.query.filter[status]").name == "filter[status]"
    assert parse_expression("$request.query.my name").name == "my name"


def test_header_token_allows_tchar_symbols() -> None:
    assert parse_expression("$response.header.X-Rate_Limit!#").name == "X-Rate_Limit!#"


def test_source_reference_takes_any_characters() -> None:
    node = parse_expression("$sourceDescriptions.petstore.get pet/by~id")
    assert node == SourceRef("petstore", "get pet/by~id", text=node.text)


def test_dotted_identifier_is_one_name() -> None:
    node = parse_expression("$inputs.env.AUTH_TOKEN")
    assert node.name == "env.AUTH_TOKEN"
    assert node.accessors == ()


@pytest.mark.parametrize(
    ("text", "accessors"),
    [
        ("$response.body.count", ("count",)),
        ("$response.body.args.label", ("args", "label")),
        ("$outputs.data[0].id", (0, "id")),
        ("$steps.x.outputs.items[0].id", (0, "id")),
        ("$inputs.list[-1]", (-1,)),
        ("$inputs.map['a key'][\"b\"]", ("a key", "b")),
        ("$inputs.map['it\\'s']", ("it's",)),
        ("$statusCode.x", ("x",)),
    ],
)
def test_accessor_chain(text: str, accessors: tuple[str | int, ...]) -> None:
    node = parse_expression(text)
    assert node.accessors == accessors
    assert node.text == text


def test_accessors_keep_the_name_before_the_first_bracket() -> None:
    node = parse_expression("$steps.list.outputs.app_requests[0].team.id")
    assert (node.name, node.accessors) == ("app_requests", (0, "team", "id"))


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("", 0, "must start with '$'"),
        ("inputs.x", 0, "must start with '$'"),
        ("$", 0, "expected an expression name"),
        ("$foo", 0, "unknown runtime expression '$foo'"),
        ("$Inputs.x", 0, "unknown runtime expression"),
        ("$statusCodeX", 0, "unknown runtime expression '$statusCodeX'"),
        ("$inputs.", 8, "expected an input name"),
        ("$inputs.#/a", 8, "expected an input name"),
        ("$outputs.", 9, "expected an output name"),
        ("$steps..outputs.x", 7, "expected a step id"),
        ("$steps.login.ouputs.x", 13, "expected 'outputs'"),
        ("$steps.login.outputs.", 21, "expected an output name"),
        ("$workflows.foo.stepz.x", 15, "expected 'inputs', 'outputs' or 'steps'"),
        ("$workflows.foo.steps.x", 22, "expected '.' after '$workflows.foo.steps.x'"),
        ("$workflows.foo.steps.x.token", 23, "expected 'outputs'"),
        ("$workflows.foo.steps.x.outputs.", 31, "expected an output name"),
        ("$sourceDescriptions.petstore", 28, "expected '.'"),
        ("$sourceDescriptions.petstore.", 29, "expected an operationId"),
        ("$components.schemas.x", 12, "expected 'parameters'"),
        ("$components.parameters.", 23, "expected a component name"),
        ("$request", 8, "expected '.'"),
        ("$request.cookie.x", 9, "unknown source 'cookie'"),
        ("$response.bodyx", 10, "unknown source 'bodyx'"),
        ("$request.header.", 16, "expected a header name"),
        ("$request.header.(x)", 16, "expected a header name"),
        ("$request.query.", 15, "expected a query parameter name"),
        ("$request.path.", 14, "expected a path parameter name"),
        ("$response.body#/a~2", 17, "'~' must be followed by '0' or '1'"),
        ("$response.body#/a/~", 18, "'~' must be followed by '0' or '1'"),
        ("$response.body#abc", 15, "must be empty or start with '/'"),
        ("$inputs.x}", 9, "unexpected '}'"),
        ("$inputs.x y", 9, "unexpected ' '"),
        ("$inputs.x[abc]", 9, "expected an integer index"),
        ("$inputs.x[0", 9, "expected ']'"),
        ("$inputs.x['a", 10, "unterminated quoted key"),
        ("$response.body#/a{b}", 17, "unexpected '{'"),
    ],
)
def test_syntax_errors_have_positions(text: str, position: int, fragment: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse_expression(text)
    assert fragment in caught.value.message
    assert caught.value.position == position
    assert caught.value.text == text


def test_identifiers_may_end_with_a_dot_as_the_abnf_allows() -> None:
    assert parse_expression("$inputs.x.").name == "x."


def test_trailing_dot_after_a_dotless_expression_is_an_error() -> None:
    with pytest.raises(ExpressionError) as caught:
        parse_expression("$response.body.")
    assert caught.value.position == 14


def test_parse_results_are_cached() -> None:
    assert parse_expression("$inputs.cached") is parse_expression("$inputs.cached")


# -- prefix parsing, as used by the condition parser and templates


def test_prefix_stops_before_an_operator() -> None:
    node, end = parse_expression_prefix("$statusCode == 200", 0)
    assert isinstance(node, StatusCodeRef)
    assert end == 11


def test_prefix_pointer_ends_at_whitespace() -> None:
    text = "$response.body#/a == 'x'"
    node, end = parse_expression_prefix(text, 0, stop=CONDITION_STOP)
    assert node.pointer == ("a",)
    assert text[end:] == " == 'x'"


def test_prefix_inside_parentheses() -> None:
    text = "($inputs.x)"
    node, end = parse_expression_prefix(text, 1, stop=CONDITION_STOP)
    assert node == InputsRef("x", text="$inputs.x")
    assert end == 10


@pytest.mark.parametrize(
    ("text", "consumed"),
    [
        ("$response.body#/a/b!=1", "$response.body#/a/b"),
        ("$response.header.X-Token&&x", "$response.header.X-Token"),
        ("$request.query.limit>5", "$request.query.limit"),
        ("$sourceDescriptions.s.op,x", "$sourceDescriptions.s.op"),
        ("$response.body.items[0]]", "$response.body.items[0]"),
        ("$response.body.count>$inputs.threshold", "$response.body.count"),
        ("$inputs.a||b", "$inputs.a"),
    ],
)
def test_prefix_honours_condition_stop_characters(text: str, consumed: str) -> None:
    node, end = parse_expression_prefix(text, 0, stop=CONDITION_STOP)
    assert text[:end] == consumed == node.text


def test_prefix_at_an_offset_reports_absolute_positions() -> None:
    text = "x == $inputs."
    with pytest.raises(ExpressionError) as caught:
        parse_expression_prefix(text, 5)
    assert caught.value.position == len(text)
    assert caught.value.text == text


def test_prefix_requires_a_dollar_at_pos() -> None:
    with pytest.raises(ExpressionError):
        parse_expression_prefix("a $url", 0)


def test_prefix_default_stop_is_whitespace_and_braces() -> None:
    text = "{$request.query.a b}"
    node, end = parse_expression_prefix(text, 1)
    assert node.name == "a"
    node, end = parse_expression_prefix(text, 1, stop="")
    assert (node.name, text[end]) == ("a b", "}")


def test_a_lone_dot_ends_the_accessor_chain_in_prefix_mode() -> None:
    node, end = parse_expression_prefix("$response.body. next", 0)
    assert node.accessors == ()
    assert end == len("$response.body")


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("$input.x", "did you mean '$inputs'?"),
        ("$statuscode", "did you mean '$statusCode'?"),
        ("$response.headerz.Location", "did you mean 'header'?"),
        ("$steps.a.output.x", "did you mean 'outputs'?"),
        ("$steps.login.outputz.token", "did you mean 'outputs'?"),
        ("$workflows.w.input.x", "did you mean 'inputs'?"),
        ("$workflows.w.step.s.outputs.x", "did you mean 'steps'?"),
        ("$workflows.w.steps.s.token", "a step output is written '$workflows.w.steps.s.outputs.<name>'"),
    ],
)
def test_common_mistakes_get_a_hint(text: str, hint: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse_expression(text)
    assert hint in caught.value.message


def test_whole_collections_are_an_extension() -> None:
    # Selector Object contexts in real 1.1 documents use `$inputs` and `$steps.<id>.outputs` whole.
    from arazzo_runner.expressions import Context, resolve

    ctx = Context(inputs={"a": 1}, steps={"s": {"x": [1, 2]}})
    assert resolve(parse_expression("$inputs"), ctx) == {"a": 1}
    assert resolve(parse_expression("$steps.s.outputs"), ctx) == {"x": [1, 2]}
    assert resolve(parse_expression("$steps.s.outputs#/x/1"), ctx) == 2
    assert parse_expression("$inputs").name == ""


@pytest.mark.parametrize(
    ("text", "standard", "form"),
    [
        ("$response.headers.Location", "$response.header.Location", "header-plural"),
        ("$request.headers.X-Id", "$request.header.X-Id", "header-plural"),
        ("$steps.login.token", "$steps.login.outputs.token", "step-output-shorthand"),
        ("$steps.login.body#/a/0", "$steps.login.outputs.body#/a/0", "step-output-shorthand"),
        ("$steps.login.a.b", "$steps.login.outputs.a.b", "step-output-shorthand"),
    ],
)
def test_dialect_forms_parse_as_their_standard_form(text: str, standard: str, form: str) -> None:
    node = parse_expression(text)
    assert node.text == text
    assert [r.form for r in node.rewrites] == [form]
    assert node.standard_text == standard
    plain = parse_expression(standard)
    assert not plain.rewrites
    assert replace(node, text=standard, rewrites=()) == plain  # the same meaning, field by field


@pytest.mark.parametrize("text", ["$steps.x.output.y", "$steps.x.Outputs.y", "$steps.x.outputz"])
def test_a_misspelt_outputs_is_not_read_as_a_shorthand(text: str) -> None:
    with pytest.raises(ExpressionError, match="did you mean 'outputs'"):
        parse_expression(text)
