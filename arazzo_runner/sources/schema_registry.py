"""JSON Schema registries for the engine's validators: they resolve only what the engine loaded.

Every JSON Schema validator the engine builds (the official Arazzo schemas of `arazzo validate`, its
payload check, openapi-core at run time, the event-stream item check, workflow inputs) is given a
`referencing.Registry` from here. Its `retrieve` looks a URI up among the documents the engine has already
loaded (a description and the files its `$ref`s reached, through `SourceCache.loaded`) and refuses
anything else (`Refused`), so a validator never opens a socket or a file. Without it, jsonschema and
openapi-core (through jsonschema-path's URL handlers) fetch a reference they cannot resolve with urlopen:
outbound requests to any host, local files outside any folder rule, with no size or time bound.

Anchors (`$anchor`, `$dynamicAnchor`) and embedded `$id` resources are found anywhere in a loaded
document (`_DOCUMENT`): an OpenAPI or Arazzo document keeps its schemas under `components`, `paths`, ...,
which a JSON Schema crawl, following schema keywords only, never visits. `referencing` and the JSON Schema
meta-schemas (bundled with jsonschema) are imported only when a registry is built.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from ..errors import SourceError
from .locations import resolve_location

Lookup = Callable[[str], Any]  # a location -> the loaded document's data, or None when not loaded
Where = Callable[[str], "tuple[str, str | None]"]  # a reference -> (keyword, "file:line:col" or None)

NOT_LOADED = "the engine did not load that document, and schema validators never fetch"
# Literal data (never schemas) that a walk for anchors and `$id`s skips.
_LITERAL = frozenset({"example", "examples", "default", "enum", "const"})


class Refused(Exception):
    """A validator asked for a document the engine did not load."""

    def __init__(self, uri: str) -> None:
        super().__init__(uri)
        self.uri = uri


class LoadedOnly:
    """A `retrieve` for `referencing`: the loaded document a URI names, or `Refused`. Never a fetch."""

    def __init__(self, lookup: Lookup) -> None:
        self._lookup = lookup

    def __call__(self, uri: str) -> Any:
        scheme = uri.partition(":")[0].lower() if ":" in uri else ""
        if scheme not in ("http", "https", "file") and not os.path.isabs(uri):
            raise Refused(uri)  # relative (no base to join), a URN, another scheme: nothing loaded it
        try:
            location = resolve_location(uri, None)
        except SourceError:
            raise Refused(uri) from None
        data = self._lookup(location)
        if data is None:
            raise Refused(uri)
        return document_resource(data)


def registry(lookup: Lookup | None = None, resources: dict[str, Any] | None = None) -> Any:
    """A registry holding the JSON Schema meta-schemas, `resources` (URI -> loaded data) and, through
    `lookup`, every other document the engine loaded; anything else is refused."""
    from jsonschema_specifications import REGISTRY as SPECIFICATIONS  # bundled: never fetched
    from referencing import Registry

    own = Registry(retrieve=LoadedOnly(lookup or _nothing))  # type: ignore[call-arg]
    if resources:
        own = own.with_resources((uri, document_resource(data)) for uri, data in resources.items())
    return SPECIFICATIONS.combine(own)


def root_resolver(schema: Any, registry: Any, validator_class: Any = None) -> Any:
    """The resolver to build a validator of `schema` with (`_resolver=`): `registry` plus `schema` as
    its root resource, crawled once, so every anchor and `$id` in the schema is known up front.

    Given only `registry=`, a jsonschema validator adds its root uncrawled; `referencing` then crawls
    the whole schema for each `$dynamicRef` and anchor it resolves and keeps the result only for that
    one lookup (registries are immutable), so a validation crawled the official Arazzo schema ~10
    times per document: most of `arazzo validate`'s time."""
    from referencing.jsonschema import DRAFT202012, specification_with

    specification = DRAFT202012
    if validator_class is not None:
        dialect = validator_class.ID_OF(validator_class.META_SCHEMA) or "urn:unknown-dialect"
        specification = specification_with(dialect, default=DRAFT202012)
    resource = specification.create_resource(schema)
    uri = resource.id() or ""
    return crawled(registry.with_resource(uri, resource)).resolver(base_uri=uri)


def crawled(registry: Any) -> Any:
    """`registry` with every resource it holds crawled (their anchors and `$id`s known), which
    `referencing` would otherwise redo in each lookup that misses. A document whose crawl fails (an
    `$id` that is no URI reference) keeps its registry uncrawled: the lookup that needs it fails then,
    inside the validator, as it always did."""
    try:
        return registry.crawl()
    except Exception:
        return registry


def _nothing(location: str) -> None:
    return None


def document_resource(data: Any) -> Any:
    return _document().create_resource(data)


@lru_cache(maxsize=1)  # one immutable Specification
def _document() -> Any:
    """A `referencing.Specification` for a whole loaded document (see the module docstring)."""
    from referencing import Specification

    return Specification(
        name="arazzo-engine-document",
        id_of=_id_of,
        subresources_of=_subresources_of,
        anchors_in=_anchors_in,
        maybe_in_subresource=_maybe_in_subresource,
    )


def _id_of(contents: Any) -> str | None:
    found = contents.get("$id") if isinstance(contents, dict) else None
    return found if isinstance(found, str) else None


def _walk(contents: Any) -> Iterator[dict]:
    """Every mapping below `contents` (not itself), literal data skipped, not entering an `$id` resource
    (it is a subresource of its own, crawled in turn)."""
    stack = [contents]
    while stack:
        node = stack.pop()
        values = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in values:
            if isinstance(key, str) and (key in _LITERAL or key.startswith("x-")):
                continue
            if isinstance(value, dict):
                yield value
                if _id_of(value) is None:
                    stack.append(value)
            elif isinstance(value, list):
                stack.append(value)


def anchors_of(data: Any) -> dict[str, tuple[str, ...]]:
    """Plain-name anchors (`$anchor`, `$dynamicAnchor`) of a document's own resource, each with the
    pointer tokens of the schema holding it (the first one wins); not those inside an `$id` resource."""
    found: dict[str, tuple[str, ...]] = {}
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        node, tokens = stack.pop()
        if isinstance(node, dict):
            if tokens and _id_of(node) is not None:
                continue
            for key in ("$anchor", "$dynamicAnchor"):
                if isinstance(node.get(key), str):
                    found.setdefault(node[key], tokens)
            items: Any = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        for key, value in reversed(list(items)):  # document order for "first one wins"
            if isinstance(key, str) and (key in _LITERAL or key.startswith("x-")):
                continue
            if isinstance(value, (dict, list)):
                stack.append((value, (*tokens, str(key))))
    return found


# The mappings of the last resource `_anchors_in` walked: `referencing` crawls a resource by asking its
# anchors, then its subresources, and both need the same walk of the whole document (the largest part
# of crawling a 2 MB description). One walk serves both; the entry is dropped once the subresources are
# listed, so no document is kept alive by it. (contents, mappings), replaced whole: safe across threads.
_last_walk: tuple[Any, tuple[dict, ...]] = (None, ())


def _mappings(contents: Any) -> tuple[dict, ...]:
    contents_then, found = _last_walk
    return found if contents_then is contents else tuple(_walk(contents))


def _subresources_of(contents: Any) -> Iterator[dict]:
    global _last_walk
    if not isinstance(contents, (dict, list)):
        return
    found = _mappings(contents)
    _last_walk = (None, ())
    for node in found:
        if _id_of(node) is not None and isinstance(node.get("$schema", ""), str):  # else: not a schema
            yield node


def _anchors_in(specification: Any, contents: Any) -> list[Any]:
    from referencing import Anchor
    from referencing.jsonschema import DRAFT202012, DynamicAnchor

    global _last_walk
    if not isinstance(contents, (dict, list)):
        return []
    mappings = tuple(_walk(contents))
    _last_walk = (contents, mappings)  # for `_subresources_of`, asked next
    found = []
    for node in (contents, *mappings) if isinstance(contents, dict) else mappings:
        for key, kind in (("$anchor", Anchor), ("$dynamicAnchor", DynamicAnchor)):
            name = node.get(key)
            if isinstance(name, str):
                found.append(kind(name=name, resource=DRAFT202012.create_resource(node)))
    return found


def _maybe_in_subresource(segments: Any, resolver: Any, subresource: Any) -> Any:
    return resolver.in_subresource(subresource)


# -- what a validator could not resolve -----------------------------------------------------------------


def unresolved(exc: BaseException) -> Any:
    """The `referencing` Unresolvable behind `exc` (a validator's exception), or None."""
    from referencing.exceptions import Unresolvable

    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, Unresolvable):
            return current
        todo += [current.__cause__, current.__context__, getattr(current, "_wrapped", None)]
    return None


def refusal(exc: BaseException, where: Where | None = None) -> str | None:
    """`cannot resolve $ref 'X' (file:line:col): why` for a validator's unresolvable reference, or None
    when `exc` is something else."""
    found = unresolved(exc)
    if found is None:
        return None
    ref = str(getattr(found, "ref", ""))
    keyword, at = where(ref) if where is not None else ("$ref", None)
    return f"cannot resolve {keyword} '{ref}'{f' ({at})' if at else ''}: {_why(found)}"


def unresolved_reason(exc: BaseException) -> str | None:
    """Why a validator could not resolve a reference (the end of `refusal`'s message), or None when
    `exc` is something else."""
    found = unresolved(exc)
    return None if found is None else _why(found)


def unusable(exc: BaseException) -> str:
    """Why a validator could not use a schema of the description: a hostile or broken schema (`$schema`
    naming an unknown dialect, `allOf: "x"`, `pattern: "("`, `type: pet`, a `$ref` to a string) makes
    jsonschema and openapi-core raise rather than report. The check then ends with this finding (a
    failure under policy `error`), never a traceback; the message quotes no instance value."""
    import re

    from ..masking.secrets import VALUE_LIMIT, clip

    text = str(exc).strip()
    kind = type(exc).__name__
    if isinstance(exc, ValueError) and text.startswith("Unknown JSON Schema dialect: "):
        dialect = text.partition(": ")[2]
        shown = clip(dialect, 200)
        return f"a schema names a dialect the validator does not know ($schema {shown}): not checked"
    if kind == "UnknownType":
        detail = f"unknown type {getattr(exc, 'type', '?')!r}"
    elif isinstance(exc, re.error):
        pattern, why = getattr(exc, "pattern", ""), getattr(exc, "msg", text)
        detail = f"pattern {pattern!r} is not a regular expression ({why})"
    elif isinstance(exc, RecursionError):
        detail = "its schemas nest or refer to each other too deeply"
    else:  # the first line: later ones would quote the schema and the instance checked
        first = next((line for line in text.splitlines() if line.strip()), "")
        detail = f"{kind}: {first.rstrip(':')}" if first else kind
    detail = clip(detail, VALUE_LIMIT)
    return f"a schema of the description cannot be used to validate ({detail}): not checked"


def _why(found: BaseException) -> str:
    kind = type(found).__name__
    if kind == "NoSuchAnchor":
        return f"there is no anchor '{getattr(found, 'anchor', '')}' in {getattr(found, 'ref', '')}"
    if kind == "PointerToNowhere":
        return "the pointer leads nowhere in that document"
    seen: set[int] = set()
    current: BaseException | None = found
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, Refused):
            return NOT_LOADED
        current = current.__cause__ or current.__context__
    return NOT_LOADED
