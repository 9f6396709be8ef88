"""The keywords of the bounded validator classes (`bounded(cls)`): jsonschema's `pattern`,
`patternProperties`, `additionalProperties` and `unevaluatedProperties` (and openapi-schema-validator's
`additionalProperties` of OpenAPI 3.0), saying what theirs say, with every pattern matched by
`schema_patterns.matches` (the bounded matcher, within the check's time) instead of `re.search`.

`uniqueItems` is jsonschema's too, in linear time: jsonschema compares the objects of an array pairwise
(a steps array of 8,000 with one schema error took minutes to explain, and a response's array of
objects as long).

`unevaluatedProperties` needs the members a schema evaluates, which jsonschema collects with `re` as
well (`patternProperties` in every subschema it walks): `_evaluated_keys` collects them as jsonschema
does for 2020-12 and, with `legacy`, for 2019-09.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from .json_unique import all_unique as _all_unique
from .schema_patterns import matches

# -- the keywords -----------------------------------------------------------------------------------


def _error(message: str) -> Any:
    from jsonschema.exceptions import ValidationError

    return ValidationError(message)


def _unexpected(kind: str, shown: tuple[str, str]) -> str:
    return f"{kind} properties are not allowed ({shown[0]} {shown[1]} unexpected)"


def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not matches(patrn, instance):
        yield _error(f"{instance!r} does not match {patrn!r}")


def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in patterns.items():
        for key, value in instance.items():
            if matches(patrn, key):
                yield from validator.descend(value, subschema, path=key, schema_path=patrn)


def _additional(instance: Any, schema: Any) -> list[Any]:
    """The members of `instance` neither `properties` nor `patternProperties` name (jsonschema joins the
    patterns with `|` into one; searching each is the same for every pattern that joining keeps whole)."""
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in properties and not (patterns and any(matches(p, key) for p in patterns))
    ]


def additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's `additionalProperties` (every draft), with the patterns matched here."""
    from jsonschema._utils import extras_msg

    if not validator.is_type(instance, "object"):
        return
    extras = set(_additional(instance, schema))
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            listed = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield _error(f"{joined} {verb} not match any of the regexes: {listed}")
        else:
            yield _error(_unexpected("Additional", extras_msg(sorted(extras, key=str))))


def oas30_additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """openapi-schema-validator's `additionalProperties` for OpenAPI 3.0, with the patterns matched here."""
    from jsonschema._utils import extras_msg

    if not validator.is_type(instance, "object"):
        return
    extras = set(_additional(instance, schema))
    if not extras:
        return
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif validator.is_type(extra, "boolean") and not extra:
        yield _error(_unexpected("Additional", extras_msg(extras)))


def unevaluated_properties(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's `unevaluatedProperties` (2020-12), with the patterns matched here."""
    yield from _unevaluated(validator, unevaluated, instance, schema, legacy=False)


def unevaluated_properties_2019(
    validator: Any, unevaluated: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    """jsonschema's `unevaluatedProperties` of draft 2019-09, with the patterns matched here."""
    yield from _unevaluated(validator, unevaluated, instance, schema, legacy=True)


def _unevaluated(validator: Any, unevaluated: Any, instance: Any, schema: Any, legacy: bool) -> Iterator[Any]:
    from jsonschema._utils import extras_msg

    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema, legacy)
    failed = []
    for key in instance:
        if key not in evaluated:
            failed += [key for _ in validator.descend(instance[key], unevaluated, path=key, schema_path=key)]
    if not failed:
        return
    if unevaluated is False:
        yield _error(_unexpected("Unevaluated", extras_msg(sorted(failed, key=str))))
    else:
        names, verb = extras_msg(failed)
        yield _error(
            "Unevaluated properties are not valid under the given schema "
            f"({names} {verb} unevaluated and invalid)"
        )


def _evaluated_keys(validator: Any, instance: Any, schema: Any, legacy: bool) -> list[Any]:
    """The members of `instance` that `schema` evaluates (the annotations `unevaluatedProperties`
    reads): through `$ref` and `$dynamicRef` (`$recursiveRef` in 2019-09), `properties`,
    `additionalProperties`, `unevaluatedProperties`, `patternProperties`, `dependentSchemas`, the
    `allOf`/`oneOf`/`anyOf` branches that hold and `if`/`then`/`else`, as jsonschema collects them for
    each draft."""
    if validator.is_type(schema, "boolean"):
        return []
    found: list[Any] = []
    for resolved in _references(validator, schema, legacy):
        child = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
        found += _evaluated_keys(child, instance, resolved.contents, legacy)
    found += _named(validator, instance, schema, legacy)
    if "patternProperties" in schema:
        found += [key for key in instance for p in schema["patternProperties"] if matches(p, key)]
    for name, subschema in (schema.get("dependentSchemas") or {}).items():
        if name in instance:
            found += _evaluated_keys(validator, instance, subschema, legacy)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if next(validator.descend(instance, subschema), None) is None:
                found += _evaluated_keys(validator, instance, subschema, legacy)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            found += _evaluated_keys(validator, instance, schema["if"], legacy)
            if "then" in schema:
                found += _evaluated_keys(validator, instance, schema["then"], legacy)
        elif "else" in schema:
            found += _evaluated_keys(validator, instance, schema["else"], legacy)
    return found


def _references(validator: Any, schema: Any, legacy: bool) -> list[Any]:
    resolved = []
    if schema.get("$ref") is not None:
        resolved.append(validator._resolver.lookup(schema["$ref"]))
    if legacy and "$recursiveRef" in schema:
        from jsonschema._legacy_keywords import lookup_recursive_ref

        resolved.append(lookup_recursive_ref(validator._resolver))
    if not legacy and schema.get("$dynamicRef") is not None:
        resolved.append(validator._resolver.lookup(schema["$dynamicRef"]))
    return resolved


def _named(validator: Any, instance: Any, schema: Any, legacy: bool) -> list[Any]:
    """What `properties`, `additionalProperties` and `unevaluatedProperties` evaluate. 2020-12: the
    members `properties` names, and those the other two hold for; 2019-09 (jsonschema's reading): every
    member under `true`, the members an object subschema names as keys."""
    found: list[Any] = []
    if not legacy:
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            found += properties.keys() & instance.keys()
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            subschema = schema.get(keyword)
            if subschema is not None:
                found += [
                    k for k, v in instance.items() if next(validator.descend(v, subschema), None) is None
                ]
        return found
    for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
        if keyword not in schema:
            continue
        value = schema[keyword]
        if validator.is_type(value, "boolean") and value:
            found += instance.keys()
        elif validator.is_type(value, "object"):
            found += [name for name in value if name in instance]
    return found


def unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if unique and validator.is_type(instance, "array") and not _all_unique(instance):
        yield _error(f"{instance!r} has non-unique elements")


# -- the classes ------------------------------------------------------------------------------------


def _keywords(cls: Any) -> dict[str, Any]:
    """The keywords of `cls` that match patterns (and `uniqueItems`), each replaced by its bounded
    version."""
    own = cls.VALIDATORS
    out: dict[str, Any] = {}
    if "pattern" in own:
        out["pattern"] = pattern
    if "patternProperties" in own:
        out["patternProperties"] = pattern_properties
    if "additionalProperties" in own:
        oas30 = getattr(own["additionalProperties"], "__module__", "").startswith("openapi_schema_validator")
        out["additionalProperties"] = oas30_additional_properties if oas30 else additional_properties
    if "unevaluatedProperties" in own:
        legacy = getattr(own["unevaluatedProperties"], "__name__", "").endswith("_draft2019")
        out["unevaluatedProperties"] = unevaluated_properties_2019 if legacy else unevaluated_properties
    if "uniqueItems" in own:
        out["uniqueItems"] = unique_items
    return out


@lru_cache(maxsize=64)  # the validator classes of every draft and OpenAPI version: a dozen
def bounded(cls: Any) -> Any:
    """`cls` (a jsonschema validator class) with its pattern keywords matched by the bounded matcher;
    the same class for the same `cls` (classes are built once, and their validators' caches kept)."""
    from jsonschema.validators import extend

    keywords = _keywords(cls)
    if not keywords:
        return cls
    made = extend(cls, keywords)
    made.check_schema = cls.check_schema  # openapi-schema-validator's own, which resolves its dialects
    made.__name__ = made.__qualname__ = f"Bounded{cls.__name__}"
    return made
