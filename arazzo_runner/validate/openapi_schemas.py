"""Checks of literal data against OpenAPI schemas: request payloads and response-body pointers.

Runtime-expression parts of a payload are *unknown*: any error located at or below one is dropped, and so
is any error whose outcome could change with an unknown value below it (`oneOf`/`anyOf` branches that an
unknown value could satisfy, `enum`/`const` over a subtree, conditional keywords). What remains is an
error whatever the expressions evaluate to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..loader.pointer import ABSENT, parse_pointer, resolve_pointer
from ..spelling import schema_message

Path = tuple[str | int, ...]
_VALUE_DEPENDENT = frozenset(
    {
        "enum",
        "const",
        "not",
        "uniqueItems",
        "contains",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
        "if",
        "then",
        "else",
    }
)
_CONDITIONAL = frozenset({"if", "then", "else", "not", "dependentSchemas"})
_ROOT_URI = "urn:arazzo-engine:openapi"
_LITERAL = ("enum", "const", "default", "example", "examples")


def payload_errors(
    schema: Any,
    payload: Any,
    unknown: set[Path],
    openapi_version: str,
    document: dict[str, Any],
    description: Any = None,
) -> list[tuple[Path, str]]:
    """(instance path, message) for every violation that holds whatever the unknown parts evaluate to.

    `$ref`s resolve in the description (`description.schema_registry`: what the run loaded, never a
    fetch) or, without one, in `document` alone; one that does not resolve gives no verdict here (the
    `schema-reference` rule reports it). A pattern that runs out of the check's time raises
    `schema_patterns.PatternStopped`, the run's deadline BudgetExceeded (the callers report the payload
    as not checked). A payload the jsonschema-free subset check (`simple_schema`, held to jsonschema's
    verdicts by a differential test; `_prepare` only loosens a schema) finds valid is answered without
    importing jsonschema (~30 ms); a problem, or a schema outside the subset, goes to jsonschema, whose
    errors are explained. OpenAPI 3.0 schemas (Draft 4) always do."""
    v30 = openapi_version.startswith("3.0")
    if not v30 and _subset_valid(schema, _blank(payload, unknown, ()), document):
        return []
    from jsonschema import Draft4Validator, Draft202012Validator

    from ..sources.schema_keywords import bounded
    from ..sources.schema_patterns import run_check
    from ..sources.schema_registry import registry, root_resolver

    cls = bounded(Draft4Validator if v30 else Draft202012Validator)
    out: list[tuple[Path, str]] = []
    try:
        if description is not None:
            validator = description.validator(
                ("payload", v30, _content_key(schema)),
                lambda: _description_validator(cls, schema, v30, description),
            )
        else:
            prepared = _prepare(schema, v30, _ROOT_URI)
            validator = cls(
                prepared, _resolver=root_resolver(prepared, registry(resources={_ROOT_URI: document}), cls)
            )
        instance = _blank(payload, unknown, ())
        # PatternStopped (or BudgetExceeded at the run's deadline), a BaseException, goes to the caller
        errors = run_check(lambda: list(validator.iter_errors(instance)))
        for error in errors:
            if _genuine(error, unknown):
                out.extend(_explain(error, unknown))
    except Exception:  # unresolvable refs, unknown types, broken schemas: no verdict rather than a guess
        return []
    return out


def _subset_valid(schema: Any, instance: Any, document: dict[str, Any]) -> bool:
    from ..sources.schema_patterns import run_check
    from ..sources.simple_schema import subset_problems

    try:
        return run_check(lambda: subset_problems(schema, instance, document)) == []
    except Exception:  # a broken schema: jsonschema's path gives its verdict
        return False


def _description_validator(cls: Any, schema: Any, v30: bool, description: Any) -> Any:
    """A validator of a request-body schema whose `$ref`s resolve in the description's registry (crawled
    once, see `OpenAPIDescription.schema_registry`)."""
    resolver = description.schema_registry.resolver(base_uri=description.uri)
    return cls(_prepare(schema, v30, ""), _resolver=resolver)


def _content_key(schema: Any) -> str:
    """A schema's content as text: equal schemas (several steps posting to one operation, one component
    used by several operations) share one validator, whatever object holds them. `repr`, not JSON: it
    tells the key `1` from `"1"` and takes any key a YAML document can hold."""
    return repr(schema)


def _prepare(schema: Any, v30: bool, root: str) -> Any:
    """A copy of a request-body schema ready for jsonschema: internal `#/...` refs point into the OpenAPI
    document (prefixed by `root`), `readOnly` properties are not required in requests, OpenAPI 3.0
    `nullable` allows null."""
    if isinstance(schema, list):
        return [_prepare(item, v30, root) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _prepare(value, v30, root) if key not in _LITERAL else value for key, value in schema.items()}
    ref = out.get("$ref")
    if root and isinstance(ref, str) and ref.startswith("#"):
        out["$ref"] = root + ref
    properties = out.get("properties")
    required = out.get("required")
    if isinstance(properties, dict) and isinstance(required, list):
        out["required"] = [
            name
            for name in required
            if not (isinstance(properties.get(name), dict) and properties[name].get("readOnly") is True)
        ]
    if v30 and out.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


def _blank(value: Any, unknown: set[Path], path: Path) -> Any:
    if path in unknown:
        return None
    if isinstance(value, dict):
        return {key: _blank(item, unknown, (*path, key)) for key, item in value.items()}
    if isinstance(value, list):
        return [_blank(item, unknown, (*path, index)) for index, item in enumerate(value)]
    return value


def _under(path: Path, base: Path) -> bool:
    return path[: len(base)] == base


def _genuine(error: Any, unknown: set[Path]) -> bool:
    path = tuple(error.absolute_path)
    if any(_under(path, u) for u in unknown):
        return False
    below = any(_under(u, path) for u in unknown)
    if error.validator in ("oneOf", "anyOf"):
        if not error.context:
            return False  # several branches match: OpenAPI discriminators decide that, not us
        branches: dict[Any, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        count = len(error.validator_value) if isinstance(error.validator_value, list) else len(branches)
        if len(branches) < count:
            return False  # a branch without errors: the failure is "more than one matched"
        return all(any(_genuine(sub, unknown) for sub in subs) for subs in branches.values())
    if error.validator in _VALUE_DEPENDENT and below:
        return False
    return not (unknown and _CONDITIONAL & {str(t) for t in error.absolute_schema_path})


def _explain(error: Any, unknown: set[Path]) -> list[tuple[Path, str]]:
    """(path, message) pairs; a failed oneOf/anyOf is explained by the branch the payload meant."""
    path = tuple(error.absolute_path)
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return [(path, _describe(error))]
    branches: dict[Any, list[Any]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    index = _discriminated(error)
    if index not in branches:
        # the branch the payload meant: fewest problems at the object itself, then fewest problems
        def score(i: Any) -> tuple[int, int, Any]:
            real = [s for s in branches[i] if _genuine(s, unknown)]
            return (sum(1 for s in real if tuple(s.absolute_path) == path), len(real), i)

        index = min(branches, key=score)
    out = [pair for sub in branches[index] if _genuine(sub, unknown) for pair in _explain(sub, unknown)]
    if not out:
        return [(path, "does not match any of the allowed forms")]
    name = _branch_name(error.validator_value, index)
    return [(where, f"{message} ({name})" if name else message) for where, message in out]


def _discriminated(error: Any) -> Any:
    """The branch an OpenAPI discriminator selects for the instance, if any."""
    discriminator = error.schema.get("discriminator") if isinstance(error.schema, dict) else None
    if not isinstance(discriminator, dict) or not isinstance(error.instance, dict):
        return None
    value = error.instance.get(discriminator.get("propertyName"))
    if not isinstance(value, str):
        return None
    mapping = discriminator.get("mapping")
    if not isinstance(mapping, dict):
        mapping = {}
    wanted = str(mapping.get(value, f"/{value}")).rpartition("/")[2]
    for index, branch in enumerate(error.validator_value):
        if not isinstance(branch, dict):
            continue
        ref = branch.get("$ref")
        if isinstance(ref, str) and ref.rpartition("/")[2] == wanted:
            return index
        properties = branch.get("properties")
        prop = properties.get(discriminator.get("propertyName")) if isinstance(properties, dict) else None
        if isinstance(prop, dict) and (prop.get("const") == value or value in (prop.get("enum") or ())):
            return index
    return None


def _branch_name(branches: Any, index: Any) -> str | None:
    branch = branches[index] if isinstance(branches, list) and isinstance(index, int) else None
    ref = branch.get("$ref") if isinstance(branch, dict) else None
    return ref.rpartition("/")[2] if isinstance(ref, str) else None


def _describe(error: Any) -> str:
    message = schema_message(error)
    if error.validator == "required":
        return message.replace("is a required property", "is required")
    if error.validator in ("oneOf", "anyOf"):
        return "does not match any of the allowed forms"
    return message if len(message) <= 200 else message[:197] + "..."


# -- response bodies --------------------------------------------------------------------------------


def pointer_possible(schema: Any, tokens: list[str], deref: Callable[[str], Any], depth: int = 0) -> bool:
    """Whether some instance of `schema` can have a value at `tokens`. Lenient: anything the schema does
    not pin down (no type, open objects, unresolvable refs) counts as possible; a member missing from an
    object's declared `properties` (without additional properties) does not."""
    if schema is False:
        return False
    if not isinstance(schema, dict) or not tokens or depth > 64:
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = deref(ref)
        return True if target is ABSENT else pointer_possible(target, tokens, deref, depth + 1)
    results = []
    own = _own_possible(schema, tokens, deref, depth)
    if own is not None:
        results.append(own)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(keyword) or ():
            results.append(pointer_possible(branch, tokens, deref, depth + 1))
    return any(results) if results else True


def _own_possible(
    schema: dict[str, Any], tokens: list[str], deref: Callable[[str], Any], depth: int
) -> bool | None:
    head, rest = tokens[0], tokens[1:]
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
    objectish = bool({"properties", "additionalProperties", "patternProperties"} & schema.keys())
    arrayish = bool({"items", "prefixItems"} & schema.keys())
    if not kinds and not objectish and not arrayish:
        return None
    results = []
    if objectish or "object" in kinds:
        results.append(_member_possible(schema, head, rest, deref, depth))
    if arrayish or "array" in kinds:
        if head.isdigit():
            items = schema.get("items")
            results.append(
                pointer_possible(items, rest, deref, depth + 1) if isinstance(items, dict) else True
            )
        else:
            results.append(False)
    return any(results) if results else False


def _member_possible(
    schema: dict[str, Any], head: str, rest: list[str], deref: Callable[[str], Any], depth: int
) -> bool:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        properties = {}
    if head in properties:
        return pointer_possible(properties[head], rest, deref, depth + 1)
    if schema.get("patternProperties"):
        return True
    extra = schema.get("additionalProperties")
    if extra is False:
        return False
    if isinstance(extra, dict):
        return pointer_possible(extra, rest, deref, depth + 1)
    return extra is True or not properties


def local_deref(document: dict[str, Any]) -> Callable[[str], Any]:
    def deref(ref: str) -> Any:
        if not ref.startswith("#"):
            return ABSENT
        try:
            return resolve_pointer(document, parse_pointer(ref))
        except Exception:
            return ABSENT

    return deref


def media_type_for(wanted: str | None, content: dict[str, Any]) -> str | None:
    """The key of `content` a step's content type selects (exact, then `type/*`, then `*/*`); without
    one, the only key or the first JSON one."""
    keys = list(content)
    if wanted:
        base = wanted.split(";")[0].strip().lower()
        for key in keys:
            if key.split(";")[0].strip().lower() == base:
                return key
        family = base.split("/")[0] + "/*"
        for key in keys:
            if key.lower() in (family, "*/*"):
                return key
        return None
    if len(keys) == 1:
        return keys[0]
    return next((k for k in keys if "json" in k.lower()), None)


def response_schemas(responses: dict[str, Any]) -> Any:
    """The schemas of every response's media types."""
    for response in responses.values():
        content = response.get("content") if isinstance(response, dict) else None
        if not isinstance(content, dict):
            continue
        for media in content.values():
            if isinstance(media, dict) and "schema" in media:
                yield media["schema"]
