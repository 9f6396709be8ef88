"""AST of `simple` conditions and its evaluator.

Each node knows its source span, computes its value with `value(ctx)`, and on failure explains itself with
`explain(ctx, text)`: the explanation pass only runs when a condition fails, so the hot path stays lean.
A `Missing` operand aborts the evaluation (`MissingOperand`): the criterion fails with the reason, except
in an explicit comparison with the `null` literal, which tests for absence.

`a && b && c` parses as `And(And(a, b), c)`: a long chain is a deep left spine, so `And`/`Or` and the
expression walk follow it in loops, never one recursive call per operand.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .base import DERIVED
from .compare import compare, truthy
from .display import show
from .runtime import Context, Expression, Missing, resolve


class MissingOperand(Exception):
    """An operand refers to something that does not exist."""

    def __init__(self, missing: Missing) -> None:
        super().__init__(missing.reason)
        self.missing = missing


class Node:
    __slots__ = ("end", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end

    def value(self, ctx: Context) -> Any:
        raise NotImplementedError

    def explain(self, ctx: Context, text: str) -> list[str]:
        """Why this node is falsy, as `source: got value` sentences."""
        if self.reads_secret(ctx):
            return [f"{self.source(text)}: false ({DERIVED})"]
        return [f"{self.source(text)}: got {show(self.value(ctx))}"]

    def source(self, text: str) -> str:
        return text[self.start : self.end]

    def reads_secret(self, ctx: Context) -> bool:
        """Whether an expression of this node read a value derived from a secret (`Context.taint`), by
        name: then its explanation shows no value. (A simple condition computes nothing: a value it
        shows holds a secret only in a form masking knows.)"""
        taint = getattr(ctx, "taint", None)
        if taint is None:
            return False
        return any(taint.reads_secret(e, ctx, resolve(e, ctx), by_value=False) for e in self.expressions())

    def children(self) -> tuple[Node, ...]:
        return ()

    def expressions(self) -> Iterator[Expression]:
        pending: list[Node] = [self]
        while pending:
            node = pending.pop()
            if isinstance(node, Operand):
                yield node.expression
            pending.extend(reversed(node.children()))


class Literal(Node):
    __slots__ = ("literal",)

    def __init__(self, literal: Any, start: int, end: int) -> None:
        super().__init__(start, end)
        self.literal = literal

    def value(self, ctx: Context) -> Any:
        return self.literal


class Operand(Node):
    """A runtime expression."""

    __slots__ = ("expression",)

    def __init__(self, expression: Expression, start: int, end: int) -> None:
        super().__init__(start, end)
        self.expression = expression

    def value(self, ctx: Context) -> Any:
        found = resolve(self.expression, ctx)
        if isinstance(found, Missing):
            raise MissingOperand(found)
        return found


class Access(Node):
    """`.member` / `[index]` applied to a parenthesised operand: `($response.body).items[0]`."""

    __slots__ = ("base", "keys")

    def __init__(self, base: Node, keys: tuple[str | int, ...], start: int, end: int) -> None:
        super().__init__(start, end)
        self.base = base
        self.keys = keys

    def value(self, ctx: Context) -> Any:
        found = self.base.value(ctx)
        for key in self.keys:
            found = _step(found, key)
            if isinstance(found, Missing):
                raise MissingOperand(found)
        return found

    def children(self) -> tuple[Node, ...]:
        return (self.base,)


class Compare(Node):
    __slots__ = ("absence", "left", "op", "right")

    def __init__(self, op: str, left: Node, right: Node) -> None:
        super().__init__(left.start, right.end)
        self.op = op
        self.left = left
        self.right = right
        # decided once: an `== null` / `!= null` test (`_operands`), else both sides read as they are
        self.absence = op in ("==", "!=") and (_is_null(right) or _is_null(left))

    def value(self, ctx: Context) -> Any:
        if self.absence:
            return compare(self.op, *self._operands(ctx))
        right = self.right
        if type(right) is Literal:  # `$statusCode == 200`: the literal as it is
            return compare(self.op, self.left.value(ctx), right.literal)
        return compare(self.op, self.left.value(ctx), right.value(ctx))

    def _operands(self, ctx: Context) -> tuple[Any, Any]:
        # An explicit `== null` / `!= null` is an absence test: there a missing value counts as null
        # (the spec's own `$response.body#/0 == null` for "no pets"). Elsewhere Missing fails the criterion.
        if _is_null(self.right) and self.op in ("==", "!="):
            return _or_null(self.left, ctx), None
        if _is_null(self.left) and self.op in ("==", "!="):
            return None, _or_null(self.right, ctx)
        return self.left.value(ctx), self.right.value(ctx)

    def explain(self, ctx: Context, text: str) -> list[str]:
        if self.reads_secret(ctx):
            return [f"{self.source(text)}: false ({DERIVED})"]
        left, right = self._operands(ctx)
        if isinstance(self.right, Literal) and not isinstance(self.left, Literal):
            seen = show(left)
        elif isinstance(self.left, Literal) and not isinstance(self.right, Literal):
            seen = show(right)
        else:
            seen = f"{show(left)} and {show(right)}"
        return [f"{self.source(text)}: got {seen}"]

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)


def _is_null(node: Node) -> bool:
    return isinstance(node, Literal) and node.literal is None


def _or_null(node: Node, ctx: Context) -> Any:
    try:
        return node.value(ctx)
    except MissingOperand:
        return None


class Not(Node):
    __slots__ = ("operand",)

    def __init__(self, operand: Node, start: int) -> None:
        super().__init__(start, operand.end)
        self.operand = operand

    def value(self, ctx: Context) -> Any:
        return not truthy(self.operand.value(ctx))

    def explain(self, ctx: Context, text: str) -> list[str]:
        if self.reads_secret(ctx):
            return [f"{self.source(text)}: false ({DERIVED})"]
        return [f"{self.source(text)}: {self.operand.source(text)} is {show(self.operand.value(ctx))}"]

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


class And(Node):
    __slots__ = ("left", "right")

    def __init__(self, left: Node, right: Node) -> None:
        super().__init__(left.start, right.end)
        self.left = left
        self.right = right

    def value(self, ctx: Context) -> Any:
        return all(truthy(operand.value(ctx)) for operand in _chain(self, And))

    def explain(self, ctx: Context, text: str) -> list[str]:
        operands = _chain(self, And)
        failing = next((o for o in operands if not truthy(o.value(ctx))), operands[-1])
        return failing.explain(ctx, text)

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)


class Or(Node):
    __slots__ = ("left", "right")

    def __init__(self, left: Node, right: Node) -> None:
        super().__init__(left.start, right.end)
        self.left = left
        self.right = right

    def value(self, ctx: Context) -> Any:
        return any(truthy(operand.value(ctx)) for operand in _chain(self, Or))

    def explain(self, ctx: Context, text: str) -> list[str]:
        return [line for operand in _chain(self, Or) for line in operand.explain(ctx, text)]

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)


def _chain(node: Node, kind: type[And] | type[Or]) -> list[Node]:
    """The operands of a left-nested `kind` chain, in source order: ((a && b) && c) -> [a, b, c]."""
    rights: list[Node] = []
    while isinstance(node, kind):
        rights.append(node.right)
        node = node.left
    return [node, *reversed(rights)]


def _step(value: Any, key: str | int) -> Any:
    if isinstance(value, Mapping):
        if key in value:
            return value[key]
        return Missing(f"no member {key!r} in {show(value, 40)}")
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        if isinstance(key, int) and -len(value) <= key < len(value):
            return value[key]
        return Missing(f"no item [{key!r}] in an array of length {len(value)}")
    return Missing(f"cannot take [{key!r}] of {show(value, 40)}")
