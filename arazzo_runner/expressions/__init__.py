"""Arazzo runtime expressions: parser -> AST, resolver over a `Context`, `{$..}` templates, values."""

from __future__ import annotations

from .ast import (
    Accessor,
    ComponentRef,
    Expression,
    InputsRef,
    MessageRef,
    MessageSourceRef,
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
)
from .context import Context, MessageView, Missing, SimpleMessage, SourceView, get_header
from .lexer import DEFAULT_STOP
from .parser import parse_expression, parse_expression_prefix
from .resolver import resolve
from .template import Embedded, Template, parse_template, to_text
from .values import CompiledValue, compile_value, iter_missing

__all__ = [
    "DEFAULT_STOP",
    "Accessor",
    "CompiledValue",
    "ComponentRef",
    "Context",
    "Embedded",
    "Expression",
    "InputsRef",
    "MessageRef",
    "MessageSourceRef",
    "MessageView",
    "MethodRef",
    "Missing",
    "OutputsRef",
    "RequestRef",
    "ResponseRef",
    "SelfRef",
    "SimpleMessage",
    "SourceRef",
    "SourceView",
    "StatusCodeRef",
    "StepOutputRef",
    "Template",
    "UrlRef",
    "WorkflowRef",
    "WorkflowStepOutputRef",
    "compile_value",
    "get_header",
    "iter_missing",
    "parse_expression",
    "parse_expression_prefix",
    "parse_template",
    "resolve",
    "to_text",
]
