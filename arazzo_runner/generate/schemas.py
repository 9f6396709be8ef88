"""OpenAPI schemas as the JSON Schemas (2020-12) of workflow inputs.

The source's resolver (`sources/refs.py`) has already followed every `$ref` and shares each resolved
target: a schema that is a component of the description (`#/components/schemas/Pet`) is one object
wherever it is used. Such a component, when it is structured (properties, items, combinators), is copied
once into the Arazzo document's `components.inputs` and referenced as `#/components/inputs/Pet`, so a large
description does not inline the same schema in every workflow, and a recursive one stays finite (the
resolver leaves a cycle as its internal `$ref`, which becomes the same component reference). A scalar
component (`Date`, `TicketId`) is inlined: it reads better next to the input it types.

On the way, OpenAPI's dialect becomes JSON Schema's: `nullable: true` -> a `null` type (and `null` in an
`enum`), `example` -> `examples`, 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` -> numbers, a
`oneOf` that a `discriminator` chooses from -> `anyOf` (JSON Schema alone cannot tell such branches
apart: a value often fits several, and `oneOf` would refuse every value); the
keywords that only mean something to an OpenAPI tool (`xml`, `discriminator`, `externalDocs`, `x-*`)
and the identifiers that would move a reference's base (`$id`, `$anchor`, `$dynamicRef`...) are left
out; a boolean schema is written as an object (`{}`, `{not: {}}`); and a request has no `readOnly`
properties (the server writes them). A reference into another
document that the resolver could not inline (a cycle across files) becomes `{}`: any value.
"""

from __future__ import annotations

from typing import Any

from .names import Unique, fit_output

COMPONENTS_REF = "#/components/inputs/"
_LOCAL_COMPONENT = "#/components/schemas/"
_DROPPED = frozenset(
    {
        "xml",
        "discriminator",
        "externalDocs",
        "nullable",
        "example",
        "$id",
        "$schema",
        "$anchor",
        "$dynamicAnchor",
        "$dynamicRef",
        "$recursiveRef",
        "$recursiveAnchor",
        "$defs",
        "definitions",
        "$comment",
        "$ref",
    }
)
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_ONE = (
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)
_STRUCTURED = frozenset({"properties", "items", "allOf", "anyOf", "oneOf", "additionalProperties"})
_MAX_DEPTH = 64
_LITERALS = frozenset({"example", "examples", "default", "enum", "const"})
_MAX_LITERAL_DEPTH = 32


class SchemaCopier:
    """Converts the schemas of one description; `components` collects what goes to
    `components.inputs` (shared by every description of the document: `names`)."""

    def __init__(self, description: Any, components: dict[str, Any], names: Unique) -> None:
        self.description = description
        self.components = components
        self._names = names
        self._by_identity: dict[int, str] | None = None
        self._by_ref: dict[str, str] = {}
        self._pending: list[tuple[str, Any]] = []

    def convert(self, schema: Any, *, annotations: dict[str, Any] | None = None) -> Any:
        """`schema` (resolved, from the description) as an inputs schema; `annotations` (description,
        examples...) are laid over it."""
        converted = self._convert(schema, 0)
        self._flush()
        if annotations and isinstance(converted, dict):
            converted = {**converted, **{k: v for k, v in annotations.items() if v is not None}}
        return converted

    def _flush(self) -> None:
        while self._pending:
            name, schema = self._pending.pop()
            self.components[name] = self._convert(schema, 1, component=True)

    def _convert(self, schema: Any, depth: int, *, component: bool = False) -> Any:
        if isinstance(schema, bool):  # as objects: Arazzo tools (Redocly) expect a Schema Object
            return {} if schema else {"not": {}}
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return {}
        if not component:
            name = self._component(schema)
            if name is not None:
                return {"$ref": COMPONENTS_REF + name}
        if "$ref" in schema and len(schema) == 1:
            return {}  # a reference the resolver could not inline (another document's cycle)
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _DROPPED or key.startswith("x-"):
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = (
                    self._properties(value, depth)
                    if key == "properties"
                    else {name: self._convert(sub, depth + 1) for name, sub in value.items()}
                )
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                if value:  # an empty one is no JSON Schema (minItems 1): it said nothing
                    out[key] = [self._convert(sub, depth + 1) for sub in value]
            elif key in _SCHEMA_ONE and isinstance(value, (dict, bool)):
                # `additionalProperties: false` keeps its boolean: there it is no schema position
                keep = key in ("additionalProperties", "unevaluatedProperties", "unevaluatedItems")
                out[key] = value if keep and isinstance(value, bool) else self._convert(value, depth + 1)
            elif key in _LITERALS and _deeper(value, _MAX_LITERAL_DEPTH):
                continue  # an annotation too deep to write back (a description's hostile example)
            else:
                out[key] = value
        self._dialect(schema, out)
        if "discriminator" in schema and "oneOf" in out and "anyOf" not in out:
            out["anyOf"] = out.pop("oneOf")  # only the discriminator tells the branches apart
        written = schema.get("properties")
        if isinstance(out.get("required"), list) and isinstance(written, dict):
            kept = [n for n in out["required"] if n in out["properties"] or n not in written]
            if kept:
                out["required"] = kept
            else:
                del out["required"]  # only server-written (readOnly) properties were required
        return out

    def _properties(self, properties: dict[str, Any], depth: int) -> dict[str, Any]:
        return {
            name: self._convert(sub, depth + 1)
            for name, sub in properties.items()
            if not (isinstance(sub, dict) and sub.get("readOnly") is True)
        }

    def _dialect(self, schema: dict[str, Any], out: dict[str, Any]) -> None:
        if "example" in schema and "examples" not in schema:
            out["examples"] = [schema["example"]]
        elif "examples" in out and not isinstance(out["examples"], list):
            del out["examples"]  # an OpenAPI Examples map is not JSON Schema's list
        if schema.get("nullable") is True:
            kind = out.get("type")
            if isinstance(kind, str) and kind != "null":
                out["type"] = [kind, "null"]
            if isinstance(out.get("enum"), list) and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        for flag, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if isinstance(schema.get(flag), bool):
                if schema[flag] and isinstance(schema.get(bound), (int, float)):
                    out[flag] = out.pop(bound)
                else:
                    del out[flag]

    def _component(self, schema: dict[str, Any]) -> str | None:
        """The component name `schema` is copied under, when it is a structured component."""
        ref = schema.get("$ref")
        if isinstance(ref, str) and len(schema) == 1 and ref.startswith(_LOCAL_COMPONENT):
            if ref not in self._by_ref:
                target = self.description.resolve({"$ref": ref})
                self._by_ref[ref] = self._claim(ref[len(_LOCAL_COMPONENT) :], target)
            return self._by_ref[ref]
        original = self._identities().get(id(schema))
        if original is None or not (_STRUCTURED & set(schema)):
            return None
        ref = _LOCAL_COMPONENT + original
        if ref not in self._by_ref:
            self._by_ref[ref] = self._claim(original, schema)
        return self._by_ref[ref]

    def _claim(self, written: str, target: Any) -> str:
        name = self._names.take(fit_output(written.replace("~1", "/").replace("~0", "~"), "schema"))
        self.components[name] = {}  # reserved; filled by _flush (a cycle refers to it meanwhile)
        self._pending.append((name, target))
        return name

    def _identities(self) -> dict[int, str]:
        """id(resolved component schema) -> its name under `#/components/schemas`."""
        if self._by_identity is None:
            self._by_identity = {}
            components = self.description.data.get("components")
            schemas = components.get("schemas") if isinstance(components, dict) else None
            for name in schemas if isinstance(schemas, dict) else ():
                escaped = name.replace("~", "~0").replace("/", "~1")
                try:
                    resolved = self.description.resolve({"$ref": _LOCAL_COMPONENT + escaped})
                except Exception:  # a broken component: inlined (or not used) like any other schema
                    continue
                if isinstance(resolved, dict):
                    self._by_identity.setdefault(id(resolved), escaped)
        return self._by_identity


def _deeper(value: Any, limit: int) -> bool:
    """Whether `value` nests deeper than `limit` (walked without recursion)."""
    pending = [(value, 0)]
    while pending:
        node, depth = pending.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            pending.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            pending.extend((v, depth + 1) for v in node)
    return False


def object_view(schema: Any, depth: int = 0) -> tuple[dict[str, Any], list[str]] | None:
    """(properties, required) of a resolved object schema, its `allOf` branches merged (a branch may
    only add `required`); None when it is not an object described by its properties (a combinator at
    the top, an array, a scalar)."""
    if not isinstance(schema, dict) or depth > 16 or "oneOf" in schema or "anyOf" in schema:
        return None
    kind = schema.get("type")
    if "items" in schema or not (kind in (None, "object") or (isinstance(kind, list) and "object" in kind)):
        return None
    properties: dict[str, Any] = {}
    required: list[str] = []
    for branch in schema.get("allOf") or ():
        view = object_view(branch, depth + 1)
        if view is None:
            return None
        properties.update(view[0])
        required.extend(view[1])
    own = schema.get("properties")
    if isinstance(own, dict):
        properties.update(own)
    if isinstance(schema.get("required"), list):
        required.extend(name for name in schema["required"] if isinstance(name, str))
    return properties, list(dict.fromkeys(required))


def array_items(schema: Any) -> Any:
    """The item schema of a resolved array schema, else None."""
    if isinstance(schema, dict) and (schema.get("type") == "array" or "items" in schema):
        items = schema.get("items")
        return items if isinstance(items, dict) else {}
    return None
