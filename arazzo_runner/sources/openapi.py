"""Loading an OpenAPI 3.x description and indexing its operations once, by id and by pointer."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from ..errors import ExpressionError
from ..loader.pointer import format_pointer, parse_pointer
from .cache import FetchOptions, SourceCache
from .fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT
from .locations import check_allowed, location_uri, resolve_location
from .model import DEFAULT_SERVER, Server, parse_servers
from .operation import Operation
from .parse import ParsedDoc
from .refs import Node, Resolver

if TYPE_CHECKING:
    import httpx

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")
SWAGGER_MESSAGE = (
    "Swagger 2.0 descriptions are not supported; convert to OpenAPI 3 (e.g. with swagger2openapi)"
)


def load_openapi(
    url: str,
    base: str | None = None,
    *,
    cache: SourceCache | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    client: httpx.Client | None = None,
    roots: tuple[str, ...] | None = None,
) -> OpenAPIDescription:
    """Fetch, parse and index the OpenAPI description at `url` (relative to `base`, see `fetch_source`).

    With a `cache`, a location already loaded in this run is returned as is. Every problem is a
    `SourceError` naming the file (and line/column when known). `roots` says which local files the
    description and every file its `$ref`s reach may be (see `locations`); a document read over http(s)
    never reaches a local one, whatever `roots` says.
    """
    cache = SourceCache() if cache is None else cache
    location = resolve_location(url, base)
    check_allowed(location, roots, url, base)
    known = cache.description(location)
    if known is not None:
        return known
    options = FetchOptions(timeout=timeout, max_bytes=max_bytes, client=client, roots=roots)
    doc = cache.document(url, base, options)
    version = _check_openapi(doc)
    resolver = Resolver(cache, options, doc, v31=not version.startswith("3.0"))
    return cache.add_description(OpenAPIDescription(doc, version, resolver), location, doc.location)


def _check_openapi(doc: ParsedDoc) -> str:
    """The `openapi` version of `doc`, or a SourceError saying what the document is instead."""
    data = doc.data
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise doc.error("", f"not an OpenAPI description: the document is {kind}, not a mapping")
    if "swagger" in data and "openapi" not in data:
        raise doc.error("/swagger", SWAGGER_MESSAGE)
    if "openapi" not in data:
        for key, kind in (("asyncapi", "an AsyncAPI"), ("arazzo", "an Arazzo")):
            if key in data:
                raise doc.error(f"/{key}", f"not an OpenAPI description: this is {kind} {data[key]} document")
        raise doc.error("", "not an OpenAPI description: there is no top-level 'openapi' field")
    version = str(data["openapi"])
    if not version.startswith("3."):
        raise doc.error("/openapi", f"unsupported OpenAPI version {version!r}; 3.0.x and 3.1.x are supported")
    return version


class OpenAPIDescription:
    """A loaded OpenAPI description with its operation index (built once, at load)."""

    def __init__(self, doc: ParsedDoc, version: str, resolver: Resolver) -> None:
        self.location = doc.location
        self.data: dict[str, Any] = doc.data
        self.facts = doc.facts  # what was worked out once about its bytes (`stored.Facts`), or None
        self.version = version
        info = self.data.get("info")
        self.title: str | None = info.get("title") if isinstance(info, dict) else None
        self.resolver = resolver
        self.duplicate_operation_ids: dict[str, list[str]] = {}  # id -> pointers of all its operations
        self._root = Node(doc, (), self.data)
        self._by_id: dict[str, Operation] = {}
        self._by_pointer: dict[str, Operation] = {}
        self._validators: dict[Hashable, Any] = {}
        self._lock = threading.Lock()
        self._index()

    def __repr__(self) -> str:
        return f"OpenAPIDescription({self.location!r}, version={self.version!r}, title={self.title!r})"

    @property
    def operations(self) -> Iterable[Operation]:
        return self._by_pointer.values()

    def operation(self, operation_id: str) -> Operation | None:
        return self._by_id.get(operation_id)

    def operation_at(self, pointer: str) -> Operation | None:
        """The operation at a pointer such as `#/paths/~1pets~1{id}/get` (a `url#pointer` also works)."""
        text = pointer.partition("#")[2] if "#" in pointer else pointer
        found = self._by_pointer.get(_normalise(text))
        if found is None and "%" in text:  # URI fragments may percent-encode the pointer
            found = self._by_pointer.get(_normalise(unquote(text)))
        return found

    def suggest(self, operation_id: str, limit: int = 3) -> list[str]:
        """Operation ids close to `operation_id`, best first, for "did you mean" messages."""
        import difflib  # only on the error path

        by_folded: dict[str, list[str]] = {}
        for known in self._by_id:
            by_folded.setdefault(known.casefold(), []).append(known)
        # Compare case-insensitively; 0.75 keeps typos and drops ids that merely share a verb.
        close = difflib.get_close_matches(operation_id.casefold(), list(by_folded), n=limit, cutoff=0.75)
        return [known for folded in close for known in by_folded[folded]][:limit]

    @cached_property
    def servers(self) -> list[Server]:
        """The description's servers; `[Server("/")]` when it lists none, as the OpenAPI spec says."""
        return parse_servers(self._root.child("servers")) or [DEFAULT_SERVER]

    @cached_property
    def security_schemes(self) -> dict[str, dict[str, Any]]:
        schemes = self._root.child("components", "securitySchemes")
        if schemes.value is None:
            return {}
        if not isinstance(schemes.value, dict):
            raise schemes.error("'securitySchemes' must be a mapping")
        resolved = {name: self.resolver.follow(schemes.child(name)) for name in schemes.value}
        for scheme in resolved.values():
            if not isinstance(scheme.value, dict):
                raise scheme.error("a security scheme must be a mapping")
        return {name: scheme.value for name, scheme in resolved.items()}

    @cached_property
    def security(self) -> list[dict[str, list[str]]] | None:
        """The document-level security requirements, or None when the description sets none."""
        security = self._root.child("security")
        if security.value is not None and not isinstance(security.value, list):
            raise security.error("'security' must be a list")
        return security.value

    @cached_property
    def uri(self) -> str:
        """The description's location as a URI: the base its schemas' `$ref`s resolve against."""
        return location_uri(self.location)

    @cached_property
    def schema_registry(self) -> Any:
        """The `referencing.Registry` every JSON Schema validator of this description uses: the documents
        this run loaded, nothing else (`schema_registry`). Built once, on first use, and crawled then:
        an uncrawled registry makes `referencing` walk the whole description again for every anchor,
        `$dynamicRef` or other document it looks up, and forget the walk after that one lookup."""
        from . import schema_registry  # JSON Schema validation only

        return schema_registry.crawled(schema_registry.registry(self.resolver.loaded, {self.uri: self.data}))

    def validator(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The JSON Schema validator stored under `key` (e.g. a schema's content), `build()` on first use:
        each schema of this description is made into a validator once, however many steps use it."""
        found = self._validators.get(key)
        if found is None:
            with self._lock:
                found = self._validators.get(key)
                if found is None:
                    found = self._validators[key] = build()
        return found

    def ref_origin(self, ref: str) -> tuple[str, str | None]:
        """(keyword, "file:line:col") of a `$ref`/`$dynamicRef` left for validators, for messages."""
        return self.resolver.origin(ref)

    def resolve(self, value: Any) -> Any:
        """`value` (from this description) with its `$ref`s resolved, e.g. a cyclic ref left in place."""
        return self.resolver.deep(self._root._replace(value=value))

    def _index(self) -> None:
        paths = self._root.child("paths")
        if paths.value is None:
            return  # OpenAPI 3.1 allows a description with webhooks or components only
        if not isinstance(paths.value, dict):
            raise paths.error("'paths' must be a mapping")
        for path in paths.value:
            item = self.resolver.follow(paths.child(path))  # path items are often $refs to other files
            if not isinstance(item.value, dict):
                raise item.error(f"the path item for {path!r} must be a mapping")
            for method in HTTP_METHODS:
                if method in item.value:
                    self._add(path, method, item, item.child(method), ("paths", path, method))
            extra = item.child("additionalOperations")  # OpenAPI 3.2: other HTTP methods
            if extra.value is not None and not isinstance(extra.value, dict):
                raise extra.error("'additionalOperations' must be a mapping")
            for name in extra.value or ():
                logical = ("paths", path, "additionalOperations", name)
                self._add(path, name.lower(), item, extra.child(name), logical)

    def _add(self, path: str, method: str, item: Node, node: Node, logical: tuple[str, ...]) -> None:
        if not isinstance(node.value, dict):
            raise node.error(f"the {method.upper()} {path} operation must be a mapping")
        raw_id = node.value.get("operationId")
        operation_id = None if raw_id is None else str(raw_id)
        pointer = format_pointer(logical)
        operation = Operation(operation_id, method, path, pointer, self, node, item)
        self._by_pointer[pointer] = operation
        if operation_id is None:
            return
        first = self._by_id.setdefault(operation_id, operation)
        if first is not operation:
            self.duplicate_operation_ids.setdefault(operation_id, [first.pointer]).append(pointer)


def _normalise(pointer: str) -> str:
    try:
        return format_pointer(parse_pointer(pointer))
    except ExpressionError:
        return pointer
