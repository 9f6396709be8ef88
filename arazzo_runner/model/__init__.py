"""Typed Arazzo objects built from loaded data.

The builder is lenient: shape problems are collected in `Document.problems` (pointer, message) rather
than raised one at a time, so `validate` can report them all; `load()` refuses a document with problems.
Every object keeps the JSON pointer (`at`) of its source node for located messages.
"""

from .builder import build_document
from .objects import (
    SUPPORTED_VERSION,
    Action,
    Components,
    Criterion,
    Document,
    ParameterDef,
    Pointer,
    Replacement,
    RequestBody,
    Reusable,
    SourceDescription,
    Step,
    Workflow,
)

__all__ = [
    "SUPPORTED_VERSION",
    "Action",
    "Components",
    "Criterion",
    "Document",
    "ParameterDef",
    "Pointer",
    "Replacement",
    "RequestBody",
    "Reusable",
    "SourceDescription",
    "Step",
    "Workflow",
    "build_document",
]
