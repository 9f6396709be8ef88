"""The runtime-expression API that criteria rely on, imported in one place."""

from __future__ import annotations

from ..expressions import (
    Context,
    Expression,
    Missing,
    Template,
    parse_expression,
    parse_expression_prefix,
    parse_template,
    resolve,
    to_text,
)

__all__ = [
    "Context",
    "Expression",
    "Missing",
    "Template",
    "parse_expression",
    "parse_expression_prefix",
    "parse_template",
    "resolve",
    "to_text",
]
