"""What one operation needs from a workflow: its inputs (parameters and request body), how its step is
written (target, parameters, request body, success criteria) and what it answers (outputs).

- Inputs: every parameter but the ones OpenAPI says are ignored (`Accept`, `Content-Type`,
  `Authorization` headers) and the ones an apiKey security scheme of the description puts there (the
  engine adds credentials itself: no credential becomes an input); optional deprecated parameters are
  left out. The request body, when its media type is JSON, a form or multipart and its schema an object
  described by its properties, gives one input per property the client writes (not `readOnly`);
  otherwise one input `body` holds the whole body. Required is kept, descriptions and examples carried.
- Success: the documented 2xx statuses (`$statusCode == 201`, or each of several), else the 2xx range.
- Outputs: the top-level properties of the lowest documented 2xx response's JSON schema
  (`$response.body#/id`), names fitted; a list answers `items`, anything else with a schema `body`.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ArazzoError
from ..records import Record, field
from .names import Unique, fit_input, fit_output, operation_label
from .schemas import SchemaCopier, array_items, object_view

IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
_UNPOINTABLE = re.compile(r"[\s{}]")  # a runtime expression's JSON pointer ends at these
_CREDENTIAL_WORDS = frozenset(
    {"apikey", "accesstoken", "authtoken", "token", "secret", "password", "clientsecret", "sessionid"}
)


class InputSpec(Record):
    """One input an operation needs. `target`: ("param", in, name), ("body", property) or ("body",)."""

    name: str  # the name wanted (the document may rename it: `build.Inputs`)
    schema: Any
    required: bool
    target: tuple[str, ...]
    given: list[Any] = field(default_factory=list)  # the description's own examples, best first
    container: bool = False  # a whole JSON body: an object or a list is wanted where anything goes


class OperationPlan(Record):
    operation: Any  # sources.Operation
    source: str  # the source description's name in the document
    label: str
    target: dict[str, str]  # {"operationId": ...} or {"operationPath": ...}
    inputs: list[InputSpec]
    content_type: str | None
    body: str | None  # "properties" (one input each), "whole" (one input `body`) or None
    success: list[int] | None  # the documented 2xx statuses; None: the 2xx range
    outputs: dict[str, str]  # output name -> runtime expression
    response: Any  # the resolved schema of the lowest 2xx JSON response, or None
    notes: list[str] = field(default_factory=list)

    @property
    def method(self) -> str:
        return self.operation.method

    @property
    def path(self) -> str:
        return self.operation.path

    def input_for(self, target: tuple[str, ...]) -> InputSpec | None:
        return next((spec for spec in self.inputs if spec.target == target), None)

    def criteria(self) -> list[dict[str, str]]:
        if not self.success:
            return [{"condition": "$statusCode >= 200 && $statusCode < 300"}]
        return [{"condition": " || ".join(f"$statusCode == {code}" for code in self.success)}]


def plan_operation(
    operation: Any, source: str, target: dict[str, str], copier: SchemaCopier, credentials: set
) -> OperationPlan:
    """The plan of `operation`; `credentials`: (in, name) pairs the description's apiKey schemes set."""
    label = operation_label(operation.operation_id, operation.method, operation.path)
    notes: list[str] = []
    inputs = _parameters(operation, copier, credentials, notes, label)
    content_type, body, body_inputs = _request_body(operation, copier, {i.name for i in inputs})
    inputs.extend(body_inputs)
    try:
        success, response_schema = _success(operation)
    except ArazzoError as exc:  # a broken `$ref` in a response: the workflow runs without outputs
        notes.append(f"{label}: no outputs nor documented success status: {exc}")
        success, response_schema = None, None
    outputs = _outputs(response_schema)
    return OperationPlan(
        operation, source, label, target, inputs, content_type, body, success, outputs, response_schema, notes
    )


def _parameters(operation: Any, copier: SchemaCopier, credentials: set, notes: list, label: str) -> list:
    raw = _raw_parameters(operation)
    inputs = []
    for spec in operation.parameters:
        if spec.in_ == "header" and spec.name.lower() in IGNORED_HEADERS:
            continue
        key = (spec.in_, spec.name.lower() if spec.in_ == "header" else spec.name)
        if key in credentials:
            continue  # the engine sets it from the apiKey scheme's credential
        if spec.deprecated and not spec.required:
            continue
        written = raw.get(key, {})
        schema = spec.schema if spec.schema is not None else _content_schema(spec.content)
        annotations: dict[str, Any] = {"description": spec.description}
        if _looks_like_credential(spec.name):
            annotations["format"] = "password"
            notes.append(
                f"{label}: parameter '{spec.name}' ({spec.in_}) looks like a credential, but no security "
                "scheme of the description sets it: it is an input, masked as a secret (format: password)"
            )
        converted = copier.convert(schema if schema is not None else {}, annotations=annotations)
        target = ("param", spec.in_, spec.name)
        inputs.append(InputSpec(spec.name, converted, spec.required, target, _parameter_examples(written)))
    declared = {spec.target[2] for spec in inputs if spec.target[1] == "path"}
    for name in re.findall(r"\{([^{}]+)\}", operation.path):
        if name not in declared and ("path", name) not in credentials:
            notes.append(f"{label}: the path parameter {{{name}}} is not declared: it is a string input")
            inputs.append(InputSpec(name, {"type": "string"}, True, ("param", "path", name)))
            declared.add(name)
    return inputs


def _raw_parameters(operation: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """The Parameter Objects as written (resolved), for what `ParameterSpec` does not keep: examples."""
    description = operation.source
    paths = description.data.get("paths")
    found: dict[tuple[str, str], dict[str, Any]] = {}
    holders = []
    if isinstance(paths, dict) and isinstance(paths.get(operation.path), dict):
        holders.append(paths[operation.path].get("parameters"))
    holders.append(operation.raw.get("parameters"))
    for holder in holders:
        try:
            listed = description.resolve(holder) if isinstance(holder, list) else []
        except Exception:  # examples are a nicety: a broken reference here is reported elsewhere
            continue
        for item in listed if isinstance(listed, list) else ():
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                where = str(item.get("in"))
                found[(where, item["name"].lower() if where == "header" else item["name"])] = item
    return found


def _parameter_examples(written: dict[str, Any]) -> list[Any]:
    found = [written["example"]] if "example" in written else []
    return found + example_values(written.get("examples"))


def example_values(examples: Any) -> list[Any]:
    """The values of an Examples map (`value`, or OpenAPI 3.2's `dataValue`)."""
    found = []
    for example in examples.values() if isinstance(examples, dict) else ():
        if isinstance(example, dict):
            for key in ("dataValue", "value"):
                if key in example:
                    found.append(example[key])
                    break
    return found


def _content_schema(content: Any) -> Any:
    if isinstance(content, dict):
        for media in content.values():
            if isinstance(media, dict) and "schema" in media:
                return media["schema"]
    return None


def _looks_like_credential(name: str) -> bool:
    return re.sub(r"[^a-z]", "", name.lower()) in _CREDENTIAL_WORDS


def _request_body(operation: Any, copier: SchemaCopier, taken: set[str]) -> tuple[Any, Any, list]:
    body = merged(operation.request_body)
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        return None, None, []
    media = choose_media(content)
    entry = content[media] if isinstance(content[media], dict) else {}
    schema = entry.get("schema", {})
    examples = _media_examples(entry)
    content_type = "application/json" if "*" in media else media
    flat = _flattened(content_type, schema, taken)
    if flat is None:
        if _is_xml(content_type) or (not _is_json(content_type) and content_type not in _FORMS):
            schema = {"type": "string", "description": f"the request body ({content_type})"}
            examples = [e for e in examples if isinstance(e, str)]
        converted = copier.convert(schema, annotations={"description": body.get("description")})
        # required even when the body is optional: a step whose payload has no value is not sent
        spec = InputSpec("body", converted, True, ("body",), examples, _is_json(content_type))
        return content_type, "whole", [spec]
    properties, needed = flat
    inputs = []
    for prop, sub in properties.items():
        given = [e[prop] for e in examples if isinstance(e, dict) and prop in e]
        converted = copier.convert(sub)
        wanted = body.get("required") is True and prop in needed
        inputs.append(InputSpec(prop, converted, wanted, ("body", prop), given))
    return content_type, "properties", inputs


def merged(node: Any) -> Any:
    """A Request Body or Response Object the resolver wrote as `allOf` (a `$ref` with siblings other
    than annotations, such as `required: true`): its parts merged, the siblings last."""
    if isinstance(node, dict) and isinstance(node.get("allOf"), list) and "content" not in node:
        out: dict[str, Any] = {}
        for part in node["allOf"]:
            out.update(merged(part) if isinstance(part, dict) else {})
        out.update({k: v for k, v in node.items() if k != "allOf"})
        return out
    return node


def choose_media(content: dict[str, Any]) -> str:
    """JSON first (`+json` too), then forms, then the first listed."""
    for test in (lambda m: m.split(";")[0].strip() == "application/json", _is_json, lambda m: m in _FORMS):
        for media in content:
            if test(media):
                return media
    return next(iter(content))


def _is_json(media: str) -> bool:
    base = media.split(";")[0].strip().lower()
    return base == "application/json" or base.endswith("+json") or base == "*/*"


def _is_xml(media: str) -> bool:
    base = media.split(";")[0].strip().lower()
    return base.endswith("/xml") or base.endswith("+xml")


def _flattened(media: str, schema: Any, taken: set[str]) -> tuple[dict, list] | None:
    """The body's (properties, required) when it is an object of properties whose names do not clash
    with the parameters' (else one `body` input)."""
    if not (_is_json(media) or media in _FORMS):
        return None
    view = object_view(schema)
    if view is None:
        return None
    properties = {
        name: sub
        for name, sub in view[0].items()
        if not (isinstance(sub, dict) and sub.get("readOnly") is True)
    }
    if not properties or {fit_input(name) for name in properties} & {fit_input(n) for n in taken}:
        return None
    if len({fit_input(name) for name in properties}) != len(properties):
        return None  # two properties would share one input name
    return properties, view[1]


def _media_examples(entry: dict[str, Any]) -> list[Any]:
    found = [entry["example"]] if "example" in entry else []
    found.extend(example_values(entry.get("examples")))
    schema = entry.get("schema")
    if isinstance(schema, dict) and "example" in schema:
        found.append(schema["example"])
    return found


def _success(operation: Any) -> tuple[list[int] | None, Any]:
    responses = operation.responses
    codes = sorted(int(code) for code in responses if re.fullmatch(r"2\d\d", str(code)))
    key = str(codes[0]) if codes else next((c for c in responses if str(c).upper() == "2XX"), None)
    if key is None:
        return None, None
    response = merged(responses.get(key, responses.get(int(key)) if key.isdigit() else None))  # 201 or '201'
    content = response.get("content") if isinstance(response, dict) else None
    if not isinstance(content, dict) or not content:
        return codes or None, None
    media = choose_media(content)
    if not _is_json(media):
        entry = content[media]
        return codes or None, {"type": "string"} if isinstance(entry, dict) and "schema" in entry else None
    entry = content[media]
    return codes or None, entry.get("schema") if isinstance(entry, dict) else None


def _outputs(schema: Any) -> dict[str, str]:
    if schema is None:
        return {}
    view = object_view(schema)
    if view is None or not view[0]:
        return {"items" if array_items(schema) is not None else "body": "$response.body"}
    names = Unique(sep="_")
    outputs = {}
    for prop, sub in view[0].items():
        if (isinstance(sub, dict) and sub.get("writeOnly") is True) or _UNPOINTABLE.search(prop) or not prop:
            continue
        outputs[names.take(fit_output(prop))] = "$response.body#/" + escape_token(prop)
    return outputs


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def credential_keys(description: Any) -> set[tuple[str, str]]:
    """(in, name) of every parameter an apiKey security scheme of the description sets."""
    try:
        schemes = description.security_schemes
    except Exception:  # a broken securitySchemes: the validator and the run say so
        return set()
    keys = set()
    for scheme in schemes.values():
        if scheme.get("type") == "apiKey" and isinstance(scheme.get("name"), str):
            where = str(scheme.get("in", "header"))
            keys.add((where, scheme["name"].lower() if where == "header" else scheme["name"]))
    return keys
