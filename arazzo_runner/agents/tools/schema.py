"""A workflow's inputs JSON Schema as a tool's parameters: local `$ref`s inlined, hidden inputs left out.

A model reads the schema on its own: it cannot follow `$ref: '#/components/inputs/pet'` into the Arazzo
document. So every `$ref` that names a schema of the document (a JSON Pointer or an anchor, resolved as
input validation resolves them) is replaced by the schema it names; keywords written next to the `$ref`
are kept (`description`, `default`...: merged over it; any other: the two combined with `allOf`). A
`$ref` to anything outside the document is refused (`SchemaError`): schemas are never fetched, and
the workflow could not run either. A reference met again inside its own expansion (a recursive schema)
is left as `{}` (any value) with a description saying so: the tool's schema is then looser than the
workflow's, which still validates every call in full. The work is bounded: at most `MAX_NODES` schema
objects are written, and references nest at most `MAX_DEPTH` deep.

The root is an object schema (`{"type": "object", "properties": {}}` for a workflow without inputs);
the inputs the server supplies (credentials, inputs fixed on the command line) leave `properties`,
`required`, `dependentRequired` and `dependentSchemas`, at the root and in its `allOf`/`anyOf`/`oneOf`
branches and `then`/`else`; an `if` or a `not` that names one is dropped (a condition on an input the
caller cannot give: the schema is looser, the run checks it in full). No name of a hidden input is left.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ...errors import UsageError
from ...workspace.inputs import resolve_schema

MAX_NODES = 10_000
MAX_DEPTH = 32
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"}
)
_BRANCHES = ("allOf", "anyOf", "oneOf")


class SchemaError(UsageError):
    """An inputs schema that cannot be made a tool's parameters."""


def tool_parameters(workflow: Any, document: dict, hidden: Collection[str]) -> dict[str, Any]:
    """The parameters schema of the tool for `workflow`, without the `hidden` inputs."""
    schema = _Inliner(document, workflow.workflow_id).inline(workflow.inputs or {}, 0)
    if not isinstance(schema, dict):
        schema = {}
    if "type" not in schema:
        schema = {"type": "object", **schema}
    if schema.get("type") == "object" and not isinstance(schema.get("properties"), dict):
        schema["properties"] = {}
    return _without(schema, frozenset(hidden), 0)


class _Inliner:
    def __init__(self, document: dict, workflow_id: str) -> None:
        self.document = document
        self.workflow_id = workflow_id
        self.nodes = 0
        self.expanding: list[str] = []

    def inline(self, node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [self.inline(item, depth) for item in node]
        if not isinstance(node, dict):
            return node
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise SchemaError(
                f"the inputs schema of workflow '{self.workflow_id}' expands to more than {MAX_NODES} "
                "schema objects once its $refs are inlined"
            )
        ref = node.get("$ref")
        if isinstance(ref, str):
            return self._reference(node, ref, depth)
        return {key: self.inline(value, depth) for key, value in node.items()}

    def _reference(self, node: dict[str, Any], ref: str, depth: int) -> Any:
        siblings = {key: self.inline(value, depth) for key, value in node.items() if key != "$ref"}
        if ref in self.expanding or depth >= MAX_DEPTH:
            why = "recursive" if ref in self.expanding else f"nested more than {MAX_DEPTH} deep"
            return {**siblings, "description": f"any value here ({why} schema {ref}; checked when called)"}
        target = resolve_schema({"$ref": ref}, self.document) if ref.startswith("#") else None
        if target is None or (isinstance(target, dict) and target.get("$ref") == ref):
            raise SchemaError(
                f"the inputs schema of workflow '{self.workflow_id}' references '{ref}', which names no "
                "schema of its document (schemas are never fetched)"
            )
        self.expanding.append(ref)
        try:
            resolved = self.inline(target, depth + 1)
        finally:
            self.expanding.pop()
        if not siblings:
            return resolved
        if set(siblings) <= ANNOTATIONS and isinstance(resolved, dict):
            return {**resolved, **siblings}
        extra = siblings.pop("allOf", [])
        return {**siblings, "allOf": [resolved, *(extra if isinstance(extra, list) else [])]}


def _without(schema: dict[str, Any], hidden: frozenset[str], depth: int) -> dict[str, Any]:
    if not hidden or depth > MAX_DEPTH:
        return schema
    result = dict(schema)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        result["properties"] = {k: v for k, v in properties.items() if k not in hidden}
    required = schema.get("required")
    if isinstance(required, list):
        kept = [name for name in required if name not in hidden]
        if kept:
            result["required"] = kept
        else:
            del result["required"]
    _dependents(schema, result, hidden, depth)
    for key in _BRANCHES:
        branches = schema.get(key)
        if isinstance(branches, list):
            result[key] = [_without(b, hidden, depth + 1) if isinstance(b, dict) else b for b in branches]
    # a condition on a hidden input (`if`, `not`) cannot be kept without naming it, nor cut without
    # changing its meaning: it is dropped, the tool's schema looser (the run still checks it in full)
    if _mentions(schema.get("not"), hidden, 0):
        del result["not"]
    if _mentions(schema.get("if"), hidden, 0):
        for key in ("if", "then", "else"):
            result.pop(key, None)
    for key in ("then", "else"):
        if isinstance(result.get(key), dict):
            result[key] = _without(result[key], hidden, depth + 1)
    return result


def _dependents(schema: dict[str, Any], result: dict[str, Any], hidden: frozenset[str], depth: int) -> None:
    """`dependentRequired` and `dependentSchemas` without the hidden inputs (as keys, or required)."""
    required = schema.get("dependentRequired")
    if isinstance(required, dict):
        kept = {
            name: [n for n in names if n not in hidden] if isinstance(names, list) else names
            for name, names in required.items()
            if name not in hidden
        }
        result["dependentRequired"] = {k: v for k, v in kept.items() if v != []}
        if not result["dependentRequired"]:
            del result["dependentRequired"]
    schemas = schema.get("dependentSchemas")
    if isinstance(schemas, dict):
        result["dependentSchemas"] = {
            name: _without(sub, hidden, depth + 1) if isinstance(sub, dict) else sub
            for name, sub in schemas.items()
            if name not in hidden
        }
        if not result["dependentSchemas"]:
            del result["dependentSchemas"]


def _mentions(schema: Any, hidden: frozenset[str], depth: int) -> bool:
    """Whether `schema` names a hidden input: as a property, required, or dependent."""
    if depth > MAX_DEPTH:
        return True  # too deep to tell: taken as naming one (the condition is dropped, never kept)
    if isinstance(schema, list):
        return any(_mentions(item, hidden, depth + 1) for item in schema)
    if not isinstance(schema, dict):
        return False
    for key in ("properties", "dependentRequired", "dependentSchemas"):
        if isinstance(schema.get(key), dict) and hidden & set(schema[key]):
            return True
    named = schema.get("required")
    if isinstance(named, list) and hidden & {n for n in named if isinstance(n, str)}:
        return True
    return any(
        _mentions(value, hidden, depth + 1)
        for key, value in schema.items()
        if key not in ("default", "examples", "const", "enum") and isinstance(value, (dict, list))
    )
