"""A tool's MCP `outputSchema`: the shape of the structured content of its `tools/call` results (the
tool call's JSON, `call.ToolOutcome.content()`), with each workflow output's schema derived from the
response schema it reads where the description has one.

The envelope admits every structured content the server sends:

    {"status": "passed", "outputs": {NAME: ..., ...}}
    {"status": "failed" | "rejected", "error": {"message": ..., ...}}

An output's schema follows its expression: `$steps.S.outputs.N` to step S's output N (of a workflow
step: `$outputs.M` there, to that workflow's output M), `$response.body#/a/0/b` to the JSON schema of
the step's success responses (every `2XX` one; several are combined with `anyOf`, one without a JSON
schema makes it `{}`) at `/properties/a/items/properties/b` (also through `allOf`, `prefixItems`,
`additionalProperties`); `$statusCode` is an integer; a visible input's schema is the tool's own;
anything else (a header, a template, a literal, an AsyncAPI step, a hidden input) is `{}`. A derived
schema admits what the engine puts there besides: `null` (the value was absent) and `"***"` (derived
from a secret, masked).

Derived schemas read only the descriptions already loaded: a `$ref` is followed inside the document
it is written in, never fetched (one to another document is `{}`); one met again inside its own
expansion is cut to `{}`. OpenAPI 3.0 schemas are written as JSON Schema 2020-12 (`nullable`, boolean
`exclusiveMinimum`/`Maximum`); `pattern`s are left out (a client matching a hostile pattern would hang);
an output whose schema is still no valid 2020-12 schema, or grows past `MAX_NODES`, is `{}`.

`Contract` keeps the promise at run time: structured content that does not fit (the API answered
outside its description, a partly masked string broke a constraint) becomes a failure saying which
output did not fit, with the outputs kept in the error.
"""

from __future__ import annotations

import copy
from typing import Any

from ...spelling import schema_message

MAX_NODES = 2_000  # schema objects per output
MAX_DEPTH = 32  # output chains, pointers and nesting
MASKED = "***"
_JSON = ("application/json", "+json", "*/*", "application/*")
_DROP = frozenset({"$id", "$schema", "$anchor", "$dynamicAnchor", "$defs", "definitions", "$comment"})
_DROP |= {"pattern", "patternProperties", "discriminator", "xml", "externalDocs", "example", "nullable"}
_DROP |= {"$dynamicRef", "$recursiveRef", "$recursiveAnchor"}


class TooLarge(Exception):
    pass


def output_schema(tool: Any) -> dict[str, Any]:
    """The `outputSchema` of `tool` (see the module doc)."""
    outputs = {name: _output(tool, name) for name in tool.workflow.outputs}
    error = {
        "type": "object",
        "description": "why the call failed or was not run (see docs/agents.md, Tool calls)",
        "properties": {
            "message": {"type": "string"},
            "stepId": {"type": ["string", "null"]},
            "path": {"type": "array", "items": {"type": "string"}},
            "statusCode": {"type": ["integer", "null"]},
            "failedCriteria": {"type": "array", "items": {"type": "string"}},
            "outputs": {"type": "object", "description": "outputs that did not fit their schema"},
        },
        "required": ["message"],
    }
    return {
        "type": "object",
        "properties": {
            "status": {"enum": ["passed", "failed", "rejected"]},
            "outputs": {"type": "object", "properties": outputs},
            "error": error,
        },
        "required": ["status"],
        "anyOf": [
            {"properties": {"status": {"const": "passed"}}, "required": ["outputs"]},
            {"properties": {"status": {"enum": ["failed", "rejected"]}}, "required": ["error"]},
        ],
    }


def _output(tool: Any, name: str) -> dict[str, Any]:
    deriver = _Deriver(tool)
    try:
        schema = deriver.workflow_output(tool.source.workspace, tool.workflow, name, 0)
    except TooLarge:
        return {}
    if not schema or not _valid(schema):
        return {}
    return {"anyOf": [schema, {"type": "null"}, {"const": MASKED}]}


def _valid(schema: dict[str, Any]) -> bool:
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


class _Deriver:
    def __init__(self, tool: Any) -> None:
        self.tool = tool
        self.nodes = 0

    def workflow_output(self, workspace: Any, workflow: Any, name: str, depth: int) -> dict[str, Any]:
        value = workflow.outputs.get(name)
        if not isinstance(value, str) or depth > MAX_DEPTH:
            return {}
        return self._expression(workspace, workflow, None, value, depth + 1)

    def _expression(self, workspace: Any, workflow: Any, step: Any, text: str, depth: int) -> dict[str, Any]:
        from ...expressions import ast
        from ...expressions.parser import parse_expression

        try:
            node = parse_expression(text.strip())
        except Exception:  # a template or a literal: no schema to say
            return {}
        if node.accessors:
            return {}
        if isinstance(node, ast.StatusCodeRef) and step is not None:
            return {"type": "integer"}
        if isinstance(node, ast.InputsRef) and workflow is self.tool.workflow:
            return self._input(node)
        if isinstance(node, ast.StepOutputRef):
            found = next((s for s in workflow.steps if s.step_id == node.step_id), None)
            if found is None:
                return {}
            schema = self._step_output(workspace, found, node.name, depth)
            return self._at(schema, node.pointer, {}, 0)
        if isinstance(node, ast.ResponseRef) and node.part == "body" and step is not None:
            return self._body(workspace, step, node.pointer)
        return {}

    def _input(self, node: Any) -> dict[str, Any]:
        properties = self.tool.parameters.get("properties")
        schema = properties.get(node.name) if isinstance(properties, dict) else None
        if not isinstance(schema, dict):
            return {}
        return self._at(copy.deepcopy(schema), node.pointer, {}, 0)

    def _step_output(self, workspace: Any, step: Any, name: str, depth: int) -> dict[str, Any]:
        if depth > MAX_DEPTH:
            return {}
        value = step.outputs.get(name)
        if step.target_kind == "workflow":  # `$outputs.M` there reads the workflow's output M
            return self._child_output(workspace, step, value, depth)
        if step.target_kind != "operation" or not isinstance(value, str):
            return {}
        workflow = next((w for w in workspace.document.workflows if step in w.steps), None)
        return self._expression(workspace, workflow, step, value, depth + 1)

    def _child_output(self, workspace: Any, step: Any, value: Any, depth: int) -> dict[str, Any]:
        from ...expressions import ast
        from ...expressions.parser import parse_expression

        try:
            node = parse_expression(value.strip()) if isinstance(value, str) else None
            target = workspace.resolve_workflow(step.workflow_id or "", (*step.at, "workflowId"))
        except Exception:
            return {}
        if not isinstance(node, ast.OutputsRef) or node.accessors:
            return {}
        schema = self.workflow_output(target.workspace, target.workflow, node.name, depth + 1)
        return self._at(schema, node.pointer, {}, 0)

    def _body(self, workspace: Any, step: Any, pointer: tuple[str, ...]) -> dict[str, Any]:
        try:
            operation = workspace.resolve_operation(step).operation
            document, responses = operation.document, operation.raw.get("responses")
            openapi30 = str(workspace.resolve_operation(step).description.version).startswith("3.0")
        except Exception:
            return {}
        if not isinstance(responses, dict):
            return {}
        schemas: list[Any] = []
        for code, response in responses.items():
            if not str(code).startswith("2"):
                continue
            schema = self._response_schema(_follow(response, document), document)
            if schema is None:
                return {}  # a success response without a JSON schema: its body may be anything
            schemas.append(schema)
        if not schemas:
            return {}
        found = []
        for schema in schemas:
            at = self._at(schema, pointer, document, 0)
            if not at:
                return {}
            found.append(self._convert(at, document, openapi30, [], 0))
        unique = [s for i, s in enumerate(found) if s not in found[:i]]
        return unique[0] if len(unique) == 1 else {"anyOf": unique}

    def _response_schema(self, response: Any, document: Any) -> Any:
        content = response.get("content") if isinstance(response, dict) else None
        if not isinstance(content, dict):
            return None
        for media, entry in content.items():
            kind = str(media).split(";")[0].strip().lower()
            if kind.endswith(_JSON) and isinstance(entry, dict) and isinstance(entry.get("schema"), dict):
                return entry["schema"]
        return None

    def _at(self, schema: Any, pointer: tuple[str, ...], document: Any, depth: int) -> Any:
        """The schema of the value at `pointer` inside a value of `schema`; {} when it cannot say."""
        for token in pointer:
            schema = _follow(schema, document)
            if not isinstance(schema, dict) or depth > MAX_DEPTH:
                return {}
            schema = self._member(schema, str(token), document, depth + 1)
            depth += 1
        return schema if isinstance(schema, dict) else {}

    def _member(self, schema: dict[str, Any], token: str, document: Any, depth: int) -> Any:
        properties = schema.get("properties")
        if isinstance(properties, dict) and token in properties:
            return properties[token]
        if token.isdigit():
            prefix = schema.get("prefixItems")
            if isinstance(prefix, list) and int(token) < len(prefix):
                return prefix[int(token)]
            if isinstance(schema.get("items"), dict):
                return schema["items"]
        for branch in schema.get("allOf") or ():
            branch = _follow(branch, document)
            if isinstance(branch, dict) and depth <= MAX_DEPTH:
                found = self._member(branch, token, document, depth + 1)
                if found:
                    return found
        if not token.isdigit() and isinstance(schema.get("additionalProperties"), dict):
            return schema["additionalProperties"]
        return {}

    def _convert(self, schema: Any, document: Any, openapi30: bool, expanding: list[str], depth: int) -> Any:
        """`schema` with its `$ref`s inlined (cycles cut to {}), as JSON Schema 2020-12."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise TooLarge
        if isinstance(schema, list):
            return [self._convert(item, document, openapi30, expanding, depth + 1) for item in schema]
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return {} if depth > MAX_DEPTH else schema
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if ref in expanding or not ref.startswith("#"):
                return {}  # a cycle, or another document: never fetched
            target = _follow({"$ref": ref}, document)
            if not isinstance(target, dict) or "$ref" in target:
                return {}
            expanding.append(ref)
            try:
                resolved = self._convert(target, document, openapi30, expanding, depth + 1)
            finally:
                expanding.pop()
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            if not siblings or openapi30:
                return resolved
            rest = self._convert(siblings, document, openapi30, expanding, depth + 1)
            return {"allOf": [resolved, rest]} if rest else resolved
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _DROP or key.startswith("x-"):
                continue
            if key in ("properties", "dependentSchemas") and isinstance(value, dict):
                out[key] = {
                    k: self._convert(v, document, openapi30, expanding, depth + 1) for k, v in value.items()
                }
            elif key in ("default", "enum", "const", "examples", "required", "type"):
                out[key] = value
            else:
                out[key] = self._convert(value, document, openapi30, expanding, depth + 1)
        if openapi30:
            _from_openapi30(schema, out)
        return out


def _from_openapi30(schema: dict[str, Any], out: dict[str, Any]) -> None:
    for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(schema.get(bound), bool):
            if schema[bound] and isinstance(schema.get(limit), (int, float)):
                out[bound] = schema[limit]
                out.pop(limit, None)
            else:
                out.pop(bound, None)
    if schema.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif "enum" in out and isinstance(out["enum"], list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]


def _follow(value: Any, document: Any) -> Any:
    """A Reference Object (or a schema that is only a `$ref`) followed inside `document`, a few times."""
    from ...loader.pointer import ABSENT, parse_pointer, resolve_pointer

    for _ in range(MAX_DEPTH):
        ref = value.get("$ref") if isinstance(value, dict) else None
        if not isinstance(ref, str) or not ref.startswith("#"):
            return value
        try:
            found = resolve_pointer(document, parse_pointer(ref[1:]))
        except Exception:
            return {}
        if found is ABSENT:
            return {}
        value = found
    return {}


class Contract:
    """A tool's output schema, checked on each structured content before it is sent (module doc):
    by jsonschema-rs (~1 us a check), jsonschema explaining what does not fit."""

    def __init__(self, schema: dict[str, Any]) -> None:
        import jsonschema

        self.schema = schema
        self._validator = jsonschema.Draft202012Validator(schema)
        self._fast = _fast(schema)

    def kept(self, content: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """(structured content that fits, whether it had to change)."""
        if self._fast is not None and _fits(self._fast, content):
            return content, False
        errors = sorted(self._validator.iter_errors(content), key=lambda e: list(e.absolute_path))
        if not errors:
            return content, False
        outputs = content.get("outputs") if isinstance(content.get("outputs"), dict) else {}
        where = "/".join(str(p) for p in errors[0].absolute_path) or "the result"
        names = sorted({str(e.absolute_path[1]) for e in errors if len(e.absolute_path) > 1})
        what = f"output(s) {', '.join(names)}" if names else where
        message = (
            f"the workflow ran, but its {what} did not fit the tool's output schema (the API answered "
            f"outside its description?): {where}: {schema_message(errors[0])}"
        )[:2000]
        error = (
            {"message": message, "outputs": outputs}
            if content.get("status") == "passed"
            else {"message": str((content.get("error") or {}).get("message") or message)}
        )
        return {"status": "failed", "error": error}, True


def _fast(schema: dict[str, Any]) -> Any:
    """The schema compiled by jsonschema-rs (formats not asserted, nothing retrieved), or None."""
    try:
        import jsonschema_rs

        return jsonschema_rs.Draft202012Validator(schema, validate_formats=False, retriever=_refuse)
    except Exception:  # not installed, or a schema it does not take: jsonschema alone decides
        return None


def _refuse(uri: str) -> Any:
    raise ValueError(f"{uri}: an output schema references nothing")


def _fits(validator: Any, content: Any) -> bool:
    try:
        return bool(validator.is_valid(content))
    except Exception:  # a value it does not take: jsonschema decides
        return False
