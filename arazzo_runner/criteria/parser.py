"""Recursive-descent parser of `simple` conditions: tokens -> AST (`nodes.py`).

Grammar (lowest precedence first; comparisons do not chain):

    condition  := or_expr END
    or_expr    := and_expr ('||' and_expr)*
    and_expr   := not_expr ('&&' not_expr)*
    not_expr   := '!' not_expr | comparison
    comparison := postfix (COMPARE postfix)?
    postfix    := primary accessor*          (accessors only after a parenthesised operand)
    primary    := NUMBER | STRING | true | false | null | EXPRESSION | '(' or_expr ')'
    accessor   := '.' NAME | '[' (NUMBER | STRING) ']'
"""

from __future__ import annotations

from ..errors import ExpressionError
from . import lexer as lx
from .nodes import Access, And, Compare, Literal, Node, Not, Operand, Or

_LITERALS = {lx.TRUE: True, lx.FALSE: False, lx.NULL: None}
# Parentheses and `!` nest the parse (and the evaluation): bounded well below Python's recursion limit.
# Chains of `&&` / `||` do not nest: they are parsed and evaluated in loops, at any length.
MAX_NESTING = 64
_WORD_HINTS = {"and": "&&", "or": "||", "not": "!", "True": "true", "False": "false", "None": "null"}


class Parser:
    def __init__(self, text: str, tokens: list[lx.Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.depth = 0

    def parse(self) -> Node:
        if self.peek().kind == lx.END:
            raise self.error("the condition is empty")
        node = self.or_expr()
        token = self.peek()
        if token.kind == lx.NAME:
            raise self.error(_unexpected_operand(token))
        if token.kind != lx.END:
            raise self.error(f"unexpected {_describe(token)} after a complete condition")
        return node

    # -- token cursor
    def peek(self) -> lx.Token:
        return self.tokens[self.index]

    def advance(self) -> lx.Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, kind: str, what: str) -> lx.Token:
        if self.peek().kind != kind:
            raise self.error(f"expected {what}, found {_describe(self.peek())}")
        return self.advance()

    def error(self, message: str, token: lx.Token | None = None) -> ExpressionError:
        return ExpressionError(message, self.text, (token or self.peek()).start)

    # -- grammar
    def or_expr(self) -> Node:
        node = self.and_expr()
        while self.peek().kind == lx.OR:
            self.advance()
            node = Or(node, self.and_expr())
        return node

    def and_expr(self) -> Node:
        node = self.not_expr()
        while self.peek().kind == lx.AND:
            self.advance()
            node = And(node, self.not_expr())
        return node

    def not_expr(self) -> Node:
        if self.peek().kind == lx.NOT:
            token = self.advance()
            self.enter(token)
            node = Not(self.not_expr(), token.start)
            self.depth -= 1
            return node
        return self.comparison()

    def comparison(self) -> Node:
        left = self.postfix()
        if self.peek().kind != lx.COMPARE:
            return left
        op = self.advance().value
        node = Compare(op, left, self.postfix())
        if self.peek().kind == lx.COMPARE:
            raise self.error("comparisons cannot be chained; combine them with '&&'")
        return node

    def postfix(self) -> Node:
        start = self.peek().start
        grouped = self.peek().kind == lx.LPAREN
        node = self.primary()
        keys: list[str | int] = []
        while grouped and self.peek().kind in (lx.DOT, lx.LBRACKET):
            keys.append(self.accessor())
        if keys:
            node = Access(node, tuple(keys), start, self.tokens[self.index - 1].end)
        return node

    def primary(self) -> Node:
        token = self.peek()
        kind = token.kind
        if kind in (lx.NUMBER, lx.STRING):
            self.advance()
            return Literal(token.value, token.start, token.end)
        if kind in _LITERALS:
            self.advance()
            return Literal(_LITERALS[kind], token.start, token.end)
        if kind == lx.EXPR:
            self.advance()
            return Operand(token.value, token.start, token.end)
        if kind == lx.LPAREN:
            return self.group()
        raise self.error(_unexpected_operand(token))

    def enter(self, token: lx.Token) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"the condition nests '(' and '!' deeper than {MAX_NESTING} levels", token)

    def group(self) -> Node:
        token = self.advance()
        start = token.start
        self.enter(token)
        node = self.or_expr()
        self.depth -= 1
        close = self.expect(lx.RPAREN, "')'")
        node.start, node.end = start, close.end  # the span includes the parentheses (for messages)
        return node

    def accessor(self) -> str | int:
        if self.advance().kind == lx.DOT:
            return self.expect(lx.NAME, "a member name after '.'").value
        token = self.advance()
        if not (token.kind == lx.STRING or (token.kind == lx.NUMBER and isinstance(token.value, int))):
            raise self.error("expected an integer index or a quoted key inside '[...]'", token)
        self.expect(lx.RBRACKET, "']'")
        return token.value


def _describe(token: lx.Token) -> str:
    if token.kind == lx.END:
        return "the end of the condition"
    if token.kind == lx.EXPR:
        return f"the expression {token.value}"
    if token.kind == lx.STRING:
        return "a string"
    return repr(token.value)


def _unexpected_operand(token: lx.Token) -> str:
    if token.kind == lx.NAME:
        hint = _WORD_HINTS.get(token.value)
        if hint:
            return f"unknown word {token.value!r}: use {hint!r}"
        hint = "strings are written in single quotes, expressions start with '$'"
        return f"unknown word {token.value!r}: {hint}"
    return f"expected a runtime expression, a literal or '(', found {_describe(token)}"
