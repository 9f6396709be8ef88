"""`$ref` resolution within and across documents (local files and http(s)).

Two ways to resolve:
- `follow` walks a chain of Reference Objects to the object they name (parameters, path items, ...);
- `deep` returns a value with every `$ref` inside replaced by its target. Results are memoised per target
  and shared between callers, so treat them as read-only. A `$ref` back to a target that is still being
  resolved (a recursive schema) is left in place, so the result is always a finite tree: internal refs of
  the description keep their `#/...` form, refs into other documents are made absolute URIs.

A `$ref` whose fragment is not a JSON pointer (an anchor, `#foo`) and a `$dynamicRef` are left for the JSON
Schema validators, which resolve them only from the documents loaded here (`schema_registry`): made
absolute when they sit in another document than the description, and remembered with where they are
written (`origin`), so that a validator refusing one names its place.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import unquote

from ..errors import ExpressionError, SourceError
from ..loader.pointer import ABSENT, describe_miss, format_pointer, parse_pointer, resolve_pointer
from .cache import FetchOptions, SourceCache
from .locations import REMOTE_MAY_NOT_READ, check_allowed, is_http, location_uri, resolve_location
from .parse import ParsedDoc

# Sibling keywords next to a schema `$ref` that only annotate, so they can be laid over the target.
_ANNOTATIONS = frozenset(
    {
        "summary",
        "description",
        "title",
        "example",
        "examples",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "nullable",
        "externalDocs",
        "$comment",
    }
)
# Keys whose values are literal data (examples, defaults, vendor extensions), never resolved.
_LITERAL_KEYS = frozenset({"example", "default", "enum", "const"})
# Maps keyed by names, where a key such as "default" is a name rather than a keyword.
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_EXAMPLE_KEYS = frozenset(
    {"summary", "description", "value", "externalValue", "dataValue", "serializedValue"}
)
_NOT_FOUND: Any = object()

Key = tuple[str, str]  # (document location, pointer) of a ref target
Trail = tuple[Any, Any]  # (parent trail, key), or (None, root tokens): a pointer built only on error


class Node(NamedTuple):
    """A value and where it sits: its document and the pointer tokens to it."""

    doc: ParsedDoc
    tokens: tuple[str, ...]
    value: Any

    @property
    def pointer(self) -> str:
        return format_pointer(self.tokens)

    def child(self, *keys: str) -> Node:
        value = resolve_pointer(self.value, keys)
        return Node(self.doc, self.tokens + keys, None if value is ABSENT else value)

    def error(self, message: str) -> SourceError:
        return self.doc.error(self.pointer, message)


def is_ref(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("$ref"), str)


class Resolver:
    """Resolves refs for one description; external documents come from the run's `SourceCache`."""

    def __init__(self, cache: SourceCache, options: FetchOptions, root: ParsedDoc, *, v31: bool) -> None:
        self._cache = cache
        self._options = options
        self._root = root
        self._v31 = v31
        self._memo: dict[Key, Any] = {}
        self._left: dict[str, tuple[str, ParsedDoc, Trail]] = {}  # see `origin`
        self._anchors: dict[str, dict[str, tuple[str, ...]]] = {}  # location -> anchor -> pointer tokens

    def loaded(self, location: str) -> Any:
        """The data of a document this run already loaded, or None: never a fetch."""
        doc = self._cache.loaded(location)
        return None if doc is None else doc.data

    def origin(self, ref: str) -> tuple[str, str | None]:
        """(keyword, "file:line:col") of a reference left for validators (see the module docstring)."""
        found = self._left.get(ref)
        if found is None:
            return "$ref", None
        keyword, doc, trail = found
        return keyword, _ref_error(doc, trail, "", keyword).location

    def follow(self, node: Node) -> Node:
        """The object a chain of Reference Objects leads to; siblings of `$ref` override its fields."""
        seen: set[Key] = set()
        while is_ref(node.value):
            ref = node.value["$ref"]
            found = self._target(ref, node.doc, (None, node.tokens))
            if found is None:
                raise node.child("$ref").error(f"cannot resolve $ref {ref!r}: not a JSON pointer")
            key, target = found
            if key in seen:
                raise node.child("$ref").error(f"circular $ref {ref!r}")
            seen.add(key)
            siblings = {k: v for k, v in node.value.items() if k != "$ref"}
            if siblings and isinstance(target.value, dict):
                target = target._replace(value={**target.value, **siblings})
            node = target
        return node

    def deep(self, node: Node) -> Any:
        """`node.value` with the `$ref`s inside replaced by their targets (see the module docstring)."""
        try:
            return self._deep(node.value, node.doc, (None, node.tokens), set(), False)
        except RecursionError:
            raise node.error("the value is nested too deeply to resolve") from None

    def _deep(self, value: Any, doc: ParsedDoc, trail: Trail, stack: set[Key], names: bool) -> Any:
        if isinstance(value, dict):
            if is_ref(value):
                return self._deep_ref(value, doc, trail, stack)
            if not names and "value" in value and _is_example(value):
                return value  # an Example Object: its value is literal data
            done = self._deep_members(value, doc, trail, stack, names)
            if not names and isinstance(value.get("$dynamicRef"), str):
                done = self._left_for_validators(done, "$dynamicRef", doc, trail)
            return done
        if isinstance(value, list):
            out = None
            for index, item in enumerate(value):
                done = self._deep(item, doc, (trail, str(index)), stack, False)
                if done is not item:
                    out = list(value) if out is None else out
                    out[index] = done
            return value if out is None else out
        return value

    def _deep_members(self, value: dict, doc: ParsedDoc, trail: Trail, stack: set[Key], names: bool) -> Any:
        out = None  # copy only when something below changed: ref-free subtrees are shared, not copied
        for key, item in value.items():
            if not names and (key in _LITERAL_KEYS or key.startswith("x-")):
                continue
            if key == "examples" and isinstance(item, list):
                continue  # JSON Schema `examples` are literal values
            done = self._deep(item, doc, (trail, key), stack, not names and key in _NAME_MAPS)
            if done is not item:
                out = dict(value) if out is None else out
                out[key] = done
        return value if out is None else out

    def _deep_ref(self, value: dict, doc: ParsedDoc, trail: Trail, stack: set[Key]) -> Any:
        found = self._target(value["$ref"], doc, trail)
        if found is None:  # an anchor: left for a JSON Schema validator
            siblings = {k: v for k, v in value.items() if k != "$ref"}
            if siblings:
                value = {"$ref": value["$ref"], **self._deep_members(siblings, doc, trail, stack, False)}
            return self._left_for_validators(value, "$ref", doc, trail)
        key, target = found
        if key in stack:
            return self._unresolved(value, doc, key)
        resolved = self._memo.get(key, _NOT_FOUND)
        if resolved is _NOT_FOUND:
            stack.add(key)
            try:
                resolved = self._deep(target.value, target.doc, (None, target.tokens), stack, False)
            finally:
                stack.discard(key)
            self._memo[key] = resolved
        return self._with_siblings(resolved, value, doc, trail, stack)

    def _with_siblings(
        self, resolved: Any, value: dict, doc: ParsedDoc, trail: Trail, stack: set[Key]
    ) -> Any:
        siblings = {k: v for k, v in value.items() if k != "$ref"}
        if not siblings:
            return resolved
        siblings = self._deep_members(siblings, doc, trail, stack, False)
        if siblings.keys() <= _ANNOTATIONS and isinstance(resolved, dict):
            return {**resolved, **siblings}
        if not self._v31:
            return resolved  # OpenAPI 3.0: properties next to a $ref are ignored
        return {"allOf": [resolved], **siblings}  # JSON Schema 2020-12: $ref is one more constraint

    def _unresolved(self, value: dict, doc: ParsedDoc, key: Key) -> dict:
        if doc is self._root and value["$ref"].startswith("#"):
            return value
        return {**value, "$ref": f"{location_uri(key[0])}#{key[1]}"}

    def _left_for_validators(self, value: dict, keyword: str, doc: ParsedDoc, trail: Trail) -> dict:
        ref = value[keyword]
        if doc is not self._root:
            uri, _, fragment = ref.partition("#")
            try:
                where = resolve_location(uri, doc.location) if uri else doc.location
            except SourceError:
                where = None  # a URN or another scheme: a validator refuses it as it is
            if where is not None:
                ref = f"{location_uri(where)}#{fragment}"
                value = {**value, keyword: ref}
        self._left.setdefault(ref, (keyword, doc, trail))
        return value

    def _target(self, ref: str, doc: ParsedDoc, trail: Trail) -> tuple[Key, Node] | None:
        uri, _, fragment = ref.partition("#")
        if fragment and not fragment.startswith("/"):
            return self._anchor_target(uri, fragment, doc)
        target_doc = self._document(uri, ref, doc, trail) if uri else doc
        try:
            tokens = parse_pointer(fragment)
            found = resolve_pointer(target_doc.data, tokens)
            if found is ABSENT and "%" in fragment:  # a URI fragment may percent-encode the pointer
                tokens = parse_pointer(unquote(fragment))
                found = resolve_pointer(target_doc.data, tokens)
        except ExpressionError as exc:
            raise _ref_error(doc, trail, f"invalid $ref {ref!r}: {exc.message}") from None
        if found is ABSENT:
            miss = describe_miss(target_doc.data, tokens)
            where = "" if target_doc is doc else f" in {target_doc.location}"
            raise _ref_error(doc, trail, f"unresolvable $ref {ref!r}: {miss}{where}")
        return (target_doc.location, format_pointer(tokens)), Node(target_doc, tokens, found)

    def _anchor_target(self, uri: str, name: str, doc: ParsedDoc) -> tuple[Key, Node] | None:
        """The schema holding `$anchor: name` (or `$dynamicAnchor`) in `doc` or in a document this run
        already loaded; None leaves the reference to the validators, which refuse what is not loaded.
        An anchor never makes the engine fetch a document: it names no place a pointer could check."""
        target = doc
        if uri:
            if not is_http(doc.location) and not is_http(uri):
                uri = unquote(uri)
            try:
                location = resolve_location(uri, doc.location)
                if is_http(doc.location) and not is_http(location):
                    return None  # a document fetched over http(s) reads no local file
                check_allowed(location, self._options.roots, uri, doc.location)
            except SourceError:
                return None
            loaded = self._cache.loaded(location)
            if loaded is None:
                return None
            target = loaded
        anchors = self._anchors.get(target.location)
        if anchors is None:
            from .schema_registry import anchors_of  # a plain-name fragment only: the JSON Schema walk

            anchors = self._anchors[target.location] = anchors_of(target.data)
        tokens = anchors.get(name)
        if tokens is None:
            return None
        value = resolve_pointer(target.data, tokens)
        return (target.location, format_pointer(tokens)), Node(target, tokens, value)

    def _document(self, uri: str, ref: str, doc: ParsedDoc, trail: Trail) -> ParsedDoc:
        if not is_http(doc.location) and not is_http(uri):
            uri = unquote(uri)  # `$ref` is a URI reference: "my%20schemas.yaml" names "my schemas.yaml"
        try:
            if is_http(doc.location) and not is_http(resolve_location(uri, doc.location)):
                raise SourceError(f"{REMOTE_MAY_NOT_READ} ({uri})")  # whatever the run's roots
            return self._cache.document(uri, doc.location, self._options)
        except SourceError as exc:
            raise _ref_error(doc, trail, f"cannot resolve $ref {ref!r}: {exc.message}") from None


def _is_example(value: dict) -> bool:
    return all(key in _EXAMPLE_KEYS or key.startswith("x-") for key in value)


def _ref_error(doc: ParsedDoc, trail: Trail, message: str, keyword: str = "$ref") -> SourceError:
    keys: list[str] = []
    while trail[0] is not None:
        keys.append(trail[1])
        trail = trail[0]
    tokens = tuple(trail[1]) + tuple(reversed(keys))
    return doc.error(format_pointer((*tokens, keyword)), message)
