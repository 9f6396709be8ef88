"""Source descriptions: fetching OpenAPI documents, resolving `$ref`s and indexing operations.

cache = SourceCache()                       # one per run
api = load_openapi("openapi/pets.yaml", base="workflows/pets.arazzo.yaml", cache=cache)
op = api.operation("getPet") or api.operation_at("/paths/~1pets~1{id}/get")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cache import FetchOptions, SourceCache
from .fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, MAX_REDIRECTS, FetchedText, fetch_source
from .locations import resolve_location
from .model import DEFAULT_SERVER, ParameterSpec, Server, ServerVariable

if TYPE_CHECKING:
    from .openapi import SWAGGER_MESSAGE, OpenAPIDescription, load_openapi
    from .operation import Operation

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_SERVER",
    "DEFAULT_TIMEOUT",
    "MAX_REDIRECTS",
    "SWAGGER_MESSAGE",
    "FetchOptions",
    "FetchedText",
    "OpenAPIDescription",
    "Operation",
    "ParameterSpec",
    "Server",
    "ServerVariable",
    "SourceCache",
    "fetch_source",
    "load_openapi",
    "resolve_location",
]


_OPENAPI = ("SWAGGER_MESSAGE", "OpenAPIDescription", "load_openapi", "Operation")


def __getattr__(name: str) -> Any:
    """The OpenAPI reader, imported when first named: a run whose sources are all AsyncAPI documents
    (`asyncapi.py`) never loads it."""
    if name in _OPENAPI:
        from . import openapi, operation

        return getattr(operation if name == "Operation" else openapi, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
