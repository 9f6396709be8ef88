"""A response body against its media type's schema, for the contract checks (`http/contract.py`).

Each schema is prepared and compiled once per run and operation, status key and media type (the caller's
cache): prepared for responses - OpenAPI 3.0 `nullable` admits null (3.0 schemas are Draft 4, 3.1 and
later 2020-12), a `writeOnly` property is not required and must not be sent, a `readOnly` one stays
required, and a `discriminator` selects the `oneOf`/`anyOf` branch its property names (a value no
branch is named by fails, a body matching several branches is judged by the named one). A schema of the
common subset (`contract_subset.py`: typed properties, bounds, `enum`, no `$ref` or patterns) is checked
without either validator, with the same mismatches, until a body it does not decide (the checker is then
compiled, and checks every later body the general way). Otherwise jsonschema-rs
(a base dependency, compiled Rust: a body checks in microseconds) says whether the body fits, formats
included (`date-time`, `email`, ... as each validator knows them); only a
body that does not, or a schema jsonschema-rs cannot take (a `$ref` into another document), goes to
jsonschema, which says where and why, its patterns matched within the check's time
(`sources/schema_patterns.py`). References resolve in what the run loaded, never by a fetch.
"""

from __future__ import annotations

from typing import Any

from .contract_explain import WRITE_ONLY, Mismatch, explain

_LITERAL = frozenset({"enum", "const", "default", "example", "examples"})
MAX_ERRORS = 20  # violations reported per body
USABLE = "a schema the body can be checked against"  # what a broken schema's finding wanted
_DRAFT4 = "http://json-schema.org/draft-04/schema#"
_DRAFT2020 = "https://json-schema.org/draft/2020-12/schema"
_DIALECTS = frozenset(
    {
        "http://json-schema.org/draft-04/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    }
)


class BodyChecker:
    """One schema, compiled: `check(body)` gives its mismatches (none for a body that fits)."""

    def __init__(self, schema: Any, version: str, description: Any) -> None:
        self.v30 = version.startswith("3.0")
        self.description = description
        self._slow: Any = None
        self.fast: Any = None
        self.compiled = False
        self.subset: bool | None = None  # `contract_subset.admitted`, on the first body
        self._mismatches: Any = None  # `contract_subset.mismatches`, imported with `admitted`
        self.broken: str | None = None
        try:
            names = _names(description) if _has(schema, "discriminator") else {}
            self.schema = prepare(schema, self.v30, names)
        except Exception as exc:  # a schema no validator can use (a malformed discriminator...)
            from ..sources.schema_registry import unusable

            self.schema, self.broken = None, unusable(exc)

    @property
    def accepts_all(self) -> bool:
        """Whether the schema admits every value (`{}`, `true`): no body need be read to check it."""
        return self.broken is None and (self.schema is True or self.schema == {})

    def check(self, body: Any) -> list[Mismatch]:
        if not self.compiled:  # on the first body: a run whose bodies are never checked pays nothing
            if self.subset is None:  # a schema of the common subset: checked without jsonschema-rs
                from .contract_subset import admitted, mismatches

                self._mismatches = mismatches  # (kept: an import statement costs ~2 µs a body)
                self.subset = self.broken is None and admitted(self.schema, self.v30)
            if self.subset:
                found = self._mismatches(self.schema, body, self.v30, MAX_ERRORS)
                if found is not None:
                    return found
            self._compile()
        if self.broken is not None:  # said for each body: nothing it sends is checked
            return [Mismatch("", USABLE, self.broken)]
        if self.fast is not None:
            try:
                if self.fast.is_valid(body):
                    return []
            except Exception:  # a value it does not take: jsonschema decides
                pass
        return self._explain(body)

    def _compile(self) -> None:
        # `compiled` last: the runs of a batch share a checker (`steps/session.http_session`), and one
        # that sees it compiled finds its outcome there
        if self.broken is None:  # (a schema `prepare` refused is broken already)
            self.broken = _meta_problem(self.schema, self.v30)
        if self.broken is None:
            components = self.description.data.get("components") if self.description is not None else None
            self.fast = _fast(self.schema, self.v30, components)
        self.compiled = True

    def _explain(self, body: Any) -> list[Mismatch]:
        from ..bounds.budget import BudgetExceeded
        from ..sources.schema_patterns import PatternStopped, run_check
        from ..sources.schema_registry import refusal, unusable

        found: list[Any] = []
        try:
            validator = self._validator()

            def collect() -> None:
                for error in validator.iter_errors(body):
                    found.extend(explain(error))
                    if len(found) >= MAX_ERRORS:
                        return

            run_check(collect)
        except PatternStopped as exc:
            found.append(
                Mismatch("", "a body checked in time", f"{exc}; the rest of the body was not validated")
            )
        except BudgetExceeded as exc:
            found.append(Mismatch("", "a body checked in time", f"validation was stopped: {exc.cause()}"))
        except Exception as exc:  # a schema the validator cannot use: said, never a traceback
            why = refusal(exc, self.description.ref_origin) if self.description is not None else None
            found.append(Mismatch("", USABLE, why or unusable(exc)))
        found.sort(key=lambda m: m.pointer)  # one order whatever the validator's: by place in the body
        return found[:MAX_ERRORS]

    def _validator(self) -> Any:
        if self._slow is None:
            from jsonschema import Draft4Validator, Draft202012Validator
            from jsonschema.validators import validator_for

            from ..sources.schema_keywords import bounded
            from ..sources.schema_patterns import bounded_formats

            default = Draft4Validator if self.v30 else Draft202012Validator
            # a `$schema` naming a draft chooses it (the OpenAPI dialects read as 2020-12)
            cls = bounded(validator_for(self.schema, default) if _named_draft(self.schema) else default)
            formats = bounded_formats(cls.FORMAT_CHECKER)  # `format: regex` read within the bound
            description = self.description
            if description is None:
                self._slow = cls(self.schema, format_checker=formats)
            else:  # refs resolve in the description's registry: what the run loaded
                resolver = description.schema_registry.resolver(base_uri=description.uri)
                self._slow = cls(self.schema, _resolver=resolver, format_checker=formats)
        return self._slow


def prepare(schema: Any, v30: bool, names: dict[int, str]) -> Any:
    """A copy of a response schema for a JSON Schema validator (see the module docstring)."""
    if isinstance(schema, list):
        return [prepare(item, v30, names) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: value
        if key in _LITERAL or str(key).startswith("x-")
        else _prepare_member(key, value, v30, names)
        for key, value in schema.items()
    }
    properties = out.get("properties")
    if isinstance(properties, dict):
        hidden = [
            k for k, v in schema["properties"].items() if isinstance(v, dict) and v.get("writeOnly") is True
        ]
        if hidden:
            out["properties"] = {**properties, **{k: {"not": {}, WRITE_ONLY: True} for k in hidden}}
            if isinstance(out.get("required"), list):
                out["required"] = [name for name in out["required"] if name not in hidden]
                if not out["required"]:  # (Draft 4 wants at least one name: none is no `required`)
                    del out["required"]
    if v30 and out.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str) and kind != "null":  # (a type list names each type once)
            out["type"] = [kind, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    discriminator = schema.get("discriminator")
    if discriminator is not None and not _well_formed(discriminator):
        raise ValueError(
            "a discriminator must be an object with a string 'propertyName' and a 'mapping' object"
        )
    if isinstance(discriminator, dict):
        for keyword in ("oneOf", "anyOf"):
            if isinstance(schema.get(keyword), list):
                guarded = _discriminated(schema[keyword], out[keyword], discriminator, names)
                if guarded is not None:
                    out[keyword] = guarded
    return out


def _well_formed(discriminator: Any) -> bool:
    if not isinstance(discriminator, dict) or not isinstance(discriminator.get("propertyName"), str):
        return False
    mapping = discriminator.get("mapping", {})
    return isinstance(mapping, dict) and all(isinstance(v, str) for v in mapping.values())


def _prepare_member(key: Any, value: Any, v30: bool, names: dict[int, str]) -> Any:
    names_map = key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
    if names_map and isinstance(value, dict):  # a map of names to schemas: the names are no keywords
        return {name: prepare(item, v30, names) for name, item in value.items()}
    return prepare(value, v30, names)


def _discriminated(
    branches: list[Any], prepared: list[Any], discriminator: dict[str, Any], names: dict[int, str]
) -> list[Any] | None:
    """The branches, each allowing only the discriminator values that name it: those its `mapping`
    gives it, else the name of the component schema it is (the implicit mapping). None when a branch
    has no name (then the branches are left as written)."""
    prop = discriminator["propertyName"]
    mapping = discriminator.get("mapping")
    mapping = mapping if isinstance(mapping, dict) else {}
    values: list[list[str]] = []
    for branch in branches:
        name = names.get(id(branch))
        mapped = [value for value, ref in mapping.items() if _ref_name(ref) == name and name]
        own = _own_values(branch, prop)
        allowed = mapped or own or ([name] if name else [])
        if not allowed:
            return None
        values.append([str(v) for v in allowed])
    return [
        {"allOf": [{"required": [prop], "properties": {prop: {"enum": allowed}}}, branch]}
        for allowed, branch in zip(values, prepared, strict=True)
    ]


def _own_values(branch: Any, prop: str) -> list[Any]:
    """The discriminator values a branch declares itself (`const` or `enum` of the property)."""
    properties = branch.get("properties") if isinstance(branch, dict) else None
    own = properties.get(prop) if isinstance(properties, dict) else None
    if not isinstance(own, dict):
        return []
    if "const" in own:
        return [own["const"]]
    return list(own["enum"]) if isinstance(own.get("enum"), list) else []


def _ref_name(ref: Any) -> str:
    return str(ref).rpartition("/")[2]


def _names(description: Any) -> dict[int, str]:
    """id of each component schema as resolved -> its name: the resolved operation shares those objects
    (`sources/refs.py` resolves each target once), so a `oneOf` branch is known by the name it had."""
    components = description.data.get("components") if description is not None else None
    schemas = components.get("schemas") if isinstance(components, dict) else None
    if not isinstance(schemas, dict):
        return {}
    names = {}
    for name in schemas:
        pointer = "#/components/schemas/" + str(name).replace("~", "~0").replace("/", "~1")
        try:
            names[id(description.resolve({"$ref": pointer}))] = str(name)
        except Exception:  # a component that does not resolve names no branch
            continue
    return names


def _meta_problem(schema: Any, v30: bool) -> str | None:
    """Why a prepared schema cannot be checked against, or None: a `$schema` naming a dialect no
    validator here knows, or a schema that is not valid under its meta-schema (`type: pet`,
    `required: true`, `$schema: {}`): validators raise on some of those and pass everything on others,
    so the check says "not checked" rather than guess. Checked once per compiled schema, by
    jsonschema-rs (its meta-schemas are bundled: nothing is fetched)."""
    if not isinstance(schema, dict):
        return None
    dialect = schema.get("$schema")
    checked = schema
    if isinstance(dialect, str):
        if dialect.startswith("https://spec.openapis.org/oas/"):  # the OpenAPI 3.1+ dialects: 2020-12
            checked = {**schema, "$schema": _DRAFT2020}
        elif dialect.rstrip("#") not in _DIALECTS:
            from ..masking.secrets import clip

            shown = clip(repr(dialect), 200)
            return f"a schema names a dialect the validator does not know ($schema {shown}): not checked"
    elif dialect is None:
        checked = {**schema, "$schema": _DRAFT4 if v30 else _DRAFT2020}
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        jsonschema_rs.meta.validate(checked)
    except jsonschema_rs.ValidationError as exc:
        where = "/".join(str(p) for p in getattr(exc, "instance_path", ()) or ())
        detail = f"{getattr(exc, 'message', str(exc)).splitlines()[0]} at /{where}"
        return (
            f"a schema of the description cannot be used to validate (not JSON Schema: {detail}): not checked"
        )
    except Exception:  # a meta-schema reference it cannot resolve: no verdict here
        return None
    return None


def _fast(schema: Any, v30: bool, components: Any) -> Any:
    """jsonschema-rs's validator of the prepared schema, or None (a reference it cannot resolve alone,
    a schema it does not take): jsonschema alone decides then. A schema with `#/components/...`
    references left (a recursive one) carries the description's components beside it."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    root = schema
    if isinstance(schema, dict) and _has(schema, "$ref", "$dynamicRef") and isinstance(components, dict):
        root = {**schema, "components": prepare(components, v30, {})}
    cls = jsonschema_rs.Draft4Validator if v30 else jsonschema_rs.Draft202012Validator
    try:
        if _named_draft(schema):
            return jsonschema_rs.validator_for(root, validate_formats=True, retriever=_refuse)
        return cls(root, validate_formats=True, retriever=_refuse)
    except Exception:
        return None


def _named_draft(schema: Any) -> bool:
    """Whether a schema's `$schema` names a JSON Schema draft (its validator then follows that draft)."""
    dialect = schema.get("$schema") if isinstance(schema, dict) else None
    return isinstance(dialect, str) and dialect.rstrip("#") in _DIALECTS


def _refuse(uri: str) -> Any:
    raise ValueError(f"{uri}: not retrieved (jsonschema resolves it in what the run loaded)")


def _has(node: Any, *keywords: str) -> bool:
    """Whether a schema holds one of `keywords` anywhere (literal values aside)."""
    stack = [node]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            if any(k in item for k in keywords):
                return True
            stack.extend(v for k, v in item.items() if k not in _LITERAL)
        elif isinstance(item, list):
            stack.extend(item)
    return False
