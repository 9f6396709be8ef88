"""`$ref` resolution within and across documents (local files and http(s)).

Two ways to resolve:
- `follow` walks a chain of Reference Objects to the object they name (parameters, path items, ...);
- `deep` returns a value with every `$ref` inside replaced by its target. Results are memoised per target
  and shared between callers, so treat them as read-only. A `$ref` back to a target that is still being
  resolved (a recursive schema) is left in place, so the result is always a finite tree: internal refs of
  the description keep their `#/...` form, refs into other documents are made absolute.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import unquote

from ..errors import ExpressionError, SourceError
from ..pointer import ABSENT, describe_miss, format_pointer, parse_pointer, resolve_pointer
from .cache import FetchOptions, SourceCache
from .locations import REMOTE_MAY_NOT_READ, is_http, resolve_location
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
            return self._deep_members(value, doc, trail, stack, names)
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
        if found is None:
            return value  # a `$anchor`/`$id` style reference: left for a JSON Schema validator
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
        return {**value, "$ref": f"{key[0]}#{key[1]}"}

    def _target(self, ref: str, doc: ParsedDoc, trail: Trail) -> tuple[Key, Node] | None:
        uri, _, fragment = ref.partition("#")
        if fragment and not fragment.startswith("/"):
            return None
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


def _ref_error(doc: ParsedDoc, trail: Trail, message: str) -> SourceError:
    keys: list[str] = []
    while trail[0] is not None:
        keys.append(trail[1])
        trail = trail[0]
    tokens = tuple(trail[1]) + tuple(reversed(keys))
    return doc.error(format_pointer((*tokens, "$ref")), message)
