"""Lexing and parsing of `simple` conditions: literals, precedence, errors with positions."""

import pytest

from arazzo_runner.criteria import SimpleCriterion, compile_criterion
from arazzo_runner.criteria import lexer as lx
from arazzo_runner.criteria.nodes import And, Compare, Literal, Not, Operand, Or
from arazzo_runner.errors import ExpressionError
from arazzo_runner.expressions import Context, StatusCodeRef


def passes(condition: str, ctx: Context | None = None) -> bool:
    return compile_criterion(condition).evaluate(ctx or Context(status_code=200)).passed


def tokens(text: str) -> list[tuple[str, object]]:
    return [(t.kind, t.value) for t in lx.Lexer(text).tokens()[:-1]]


# -- lexer


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("200", 200),
        ("-7", -7),
        ("3.25", 3.25),
        ("-0.5", -0.5),
        ("1e3", 1000.0),
        ("2.5E-2", 0.025),
        ("-1e+2", -100.0),
    ],
)
def test_number_literals(text, value):
    [(kind, found)] = tokens(text)
    assert kind == lx.NUMBER
    assert found == value
    assert type(found) is type(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("'ok'", "ok"),
        ("''", ""),
        ("'it''s'", "it's"),
        ("''''", "'"),
        ("'a b  c'", "a b  c"),
        ("'$statusCode == 200'", "$statusCode == 200"),
        ("'back\\slash'", "back\\slash"),  # no backslash escapes in Arazzo strings
        ("'ünïcödé'", "ünïcödé"),
    ],
)
def test_single_quoted_strings(text, value):
    assert tokens(text) == [(lx.STRING, value)]


def test_double_quoted_strings_are_accepted_with_a_note():
    lexer = lx.Lexer('"say \\"hi\\"" == \'x\'')
    found = lexer.tokens()
    assert found[0].value == 'say "hi"'
    assert len(lexer.notes) == 1
    assert "double-quoted" in lexer.notes[0]


def test_keywords_and_operators():
    assert tokens("true false null == != < <= > >= ! && || ( )") == [
        (lx.TRUE, "true"),
        (lx.FALSE, "false"),
        (lx.NULL, "null"),
        *[(lx.COMPARE, op) for op in ("==", "!=", "<", "<=", ">", ">=")],
        (lx.NOT, "!"),
        (lx.AND, "&&"),
        (lx.OR, "||"),
        (lx.LPAREN, "("),
        (lx.RPAREN, ")"),
    ]


def test_runtime_expressions_stop_at_operators_without_spaces():
    found = lx.Lexer("$statusCode==200&&$response.body#/a/b!=null").tokens()
    kinds = [t.kind for t in found]
    assert kinds == [lx.EXPR, lx.COMPARE, lx.NUMBER, lx.AND, lx.EXPR, lx.COMPARE, lx.NULL, lx.END]
    assert str(found[4].value) == "$response.body#/a/b"
    assert isinstance(found[0].value, StatusCodeRef)


def test_token_offsets():
    found = lx.Lexer("  $statusCode  >=  'a'").tokens()
    assert [(t.start, t.end) for t in found] == [(2, 13), (15, 17), (19, 22), (22, 22)]


# -- parser: precedence and structure


def root(condition: str):
    return SimpleCriterion(condition).root


def test_or_binds_looser_than_and():
    node = root("true || false && false")
    assert isinstance(node, Or)
    assert isinstance(node.right, And)
    assert passes("true || false && false")
    assert not passes("(true || false) && false")


def test_not_binds_looser_than_comparison():
    node = root("!$statusCode == 200")
    assert isinstance(node, Not)
    assert isinstance(node.operand, Compare)
    assert not passes("!$statusCode == 200")
    assert passes("!$statusCode == 404")
    assert passes("!1 == 2")  # !(1 == 2), not (!1) == 2


def test_not_binds_tighter_than_and():
    node = root("!false && false")
    assert isinstance(node, And)
    assert not passes("!false && false")
    assert passes("!!true")
    assert passes("! ! ! false")


def test_and_or_are_left_associative():
    node = root("true && true && false")
    assert isinstance(node, And)
    assert isinstance(node.left, And)


def test_comparison_operands():
    node = root("$statusCode >= 200")
    assert isinstance(node, Compare)
    assert node.op == ">="
    assert isinstance(node.left, Operand)
    assert isinstance(node.right, Literal)


def test_parentheses_widen_the_source_span():
    condition = "!($statusCode == 200) && true"
    node = root(condition)
    assert node.left.source(condition) == "!($statusCode == 200)"
    assert node.left.operand.source(condition) == "($statusCode == 200)"


def test_expressions_are_listed():
    criterion = compile_criterion("$statusCode == 200 && $response.body#/a != $inputs.b")
    assert [str(e) for e in criterion.expressions()] == ["$statusCode", "$response.body#/a", "$inputs.b"]


# -- syntax errors


@pytest.mark.parametrize(
    ("condition", "position", "fragment"),
    [
        ("", 0, "empty"),
        ("   ", 3, "empty"),
        ("$statusCode = 200", 12, "'=='"),
        ("$statusCode == ", 15, "end of the condition"),
        ("== 200", 0, "expected a runtime expression"),
        ("$statusCode == 200 &&", 21, "end"),
        ("$statusCode == 200 & true", 19, "'&&'"),
        ("true | false", 5, "'||'"),
        ("1 < 2 < 3", 6, "chained"),
        ("(true", 5, "')'"),
        ("true)", 4, "after a complete condition"),
        ("'open", 0, "unterminated"),
        ('"open', 0, "unterminated"),
        ("$statusCode == ok", 15, "unknown word 'ok'"),
        ("$a == 1", 0, "unknown runtime expression"),
        ("True", 0, "use 'true'"),
        ("$x and $y", 0, ""),
        ("true and false", 5, "use '&&'"),
        ("200abc == 1", 0, "malformed number"),
        ("1.2.3 == 1", 0, "malformed number"),
        ("$statusCode == 200 200", 19, "after a complete condition"),
        ("$statusCode # 200", 12, "unexpected '#'"),
        ("-", 0, "unexpected '-'"),
    ],
)
def test_syntax_errors_have_positions(condition, position, fragment):
    with pytest.raises(ExpressionError) as info:
        compile_criterion(condition)
    assert info.value.text == condition
    assert info.value.position == position
    assert fragment in info.value.message


def test_accessors_after_a_group():
    condition = "($response.body).items[0]['na-me'] == 'x'"
    node = root(condition)
    assert node.left.keys == ("items", 0, "na-me")
    assert node.left.source(condition) == "($response.body).items[0]['na-me']"


@pytest.mark.parametrize("condition", ["(true)[1.5]", "(true).", "(true)[0", "(true)[$statusCode]"])
def test_bad_accessors(condition):
    with pytest.raises(ExpressionError):
        compile_criterion(condition)


def test_braced_expressions_are_tolerated_with_a_note():
    criterion = compile_criterion("{$statusCode} == 200 && { $statusCode } < 300")
    assert criterion.evaluate(Context(status_code=200)).passed
    assert len(criterion.notes) == 2


def test_unclosed_braced_expression():
    with pytest.raises(ExpressionError, match="'}'"):
        compile_criterion("{$statusCode == 200")


def test_standard_conditions_have_no_notes():
    assert compile_criterion("$statusCode == 200 && $response.body.data != null").notes == ()
