"""JSON Pointer (RFC 6901) as a selector: one node or none."""

from __future__ import annotations

from typing import Any

from ..loader.pointer import ABSENT, parse_pointer, resolve_pointer
from .base import CompiledQuery


class PointerQuery(CompiledQuery):
    __slots__ = ("tokens",)

    def __init__(self, version: str, expression: str) -> None:
        super().__init__("jsonpointer", version, expression)
        self.tokens = parse_pointer(expression)  # raises ExpressionError with the offset

    def select(self, data: Any) -> list[Any]:
        value = resolve_pointer(data, self.tokens)
        return [] if value is ABSENT else [value]
