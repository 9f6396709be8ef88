"""The JSON Schema check against the official Arazzo schemas (package data, see `schemas/`).

The schemas are loaded and their validators built on first use and cached for the process. A document
is first checked by the schema compiled with jsonschema-rs (Rust: microseconds where jsonschema takes
milliseconds); only one it rejects is checked again by `jsonschema`, imported only then, whose errors
explain what is wrong (docs/validation.md, "Two validators, one verdict"). Errors are turned into
located, readable problems: for `oneOf`/`anyOf` failures the branch the document most plausibly meant
is chosen and its own errors are reported instead of a "not valid under any of the given schemas" over
the whole object.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

from ..loader import load_text
from ..records import Record
from ..spelling import json_spelling, schema_message
from .checker import did_you_mean

Pointer = tuple[str | int, ...]

SCHEMA_LINES = ("1.0", "1.1")
_COMPOSITE = ("oneOf", "anyOf")
_UNEXPECTED = ("unevaluatedProperties", "additionalProperties")
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")


class SchemaProblem(Record, frozen=True):
    at: Pointer
    message: str
    key: bool = False  # locate at the mapping key (an unexpected field) rather than at the value


def schema_line(data: Any) -> str:
    """Which official schema applies: "1.0" for `arazzo: 1.0.x`, else "1.1" (whose pattern then rejects
    versions that are neither)."""
    version = data.get("arazzo") if isinstance(data, dict) else None
    if isinstance(version, str) and version.startswith("1.0"):
        return "1.0"
    return "1.1"


@cache
def schema_document(line: str) -> dict[str, Any]:
    """The (patched, for 1.0) official schema of a version line, parsed once."""
    text = (
        resources.files(__package__)
        .joinpath("schemas")
        .joinpath(line)
        .joinpath("schema.yaml")
        .read_text("utf-8")
    )
    return load_text(text, f"schemas/{line}/schema.yaml", positions=False).data  # the one (safe) loader


@cache
def validator(line: str) -> Any:
    from jsonschema import Draft202012Validator
    from jsonschema.validators import extend

    from ..sources.schema_keywords import bounded
    from ..sources.schema_registry import registry, root_resolver

    # the meta-schemas it references are bundled with jsonschema; any other URI is refused, never fetched.
    # Its patterns are the official schemas' own, matched by the bounded matcher as every schema pattern.
    schema = schema_document(line)
    cls = extend(bounded(Draft202012Validator), {"$ref": _ref_keyword(line)})
    return cls(schema, _resolver=root_resolver(schema, registry()))


def _ref_keyword(line: str) -> Any:
    """jsonschema's `$ref`, except that an instance jsonschema-rs finds valid under the `$defs` entry
    referenced is not descended into: it has no error to explain. jsonschema then walks only the
    objects on the way to an error (a workflow, its step, the criterion) and the branches of the
    `oneOf`s there, not every other workflow and step of the document (and, for each level of
    `unevaluatedProperties` over `allOf`/`oneOf`, again): about half the time of explaining the
    invalid documents under ../shared. Where the two
    validators differ (see `fast_validator`, docs/validation.md), jsonschema-rs is the stricter one, so
    what it finds valid jsonschema finds valid too, and the errors are the same."""
    from jsonschema._keywords import ref as full

    def ref(validator: Any, ref: Any, instance: Any, schema: Any) -> Any:
        if isinstance(ref, str) and _valid_under(line, ref, instance):
            return
        yield from full(validator, ref, instance, schema)

    return ref


def _valid_under(line: str, ref: str, instance: Any) -> bool:
    name = ref[len(_DEFS) :] if ref.startswith(_DEFS) else None
    if name is None or fast_validator(line) is None or name not in schema_document(line)["$defs"]:
        return False  # no jsonschema-rs (or not for this schema): jsonschema alone decides, as before
    fast = _fast_definitions(line)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid({name: instance}))
    except Exception:  # data it does not take (see `schema_valid`): jsonschema decides
        return False


_DEFS = "#/$defs/"


@cache
def _fast_definitions(line: str) -> Any:
    """jsonschema-rs for "is this instance valid under that `$defs` entry of the official schema": a
    schema with the official `$defs` whose `properties` are the entries by name (`{name: instance}` is
    checked), one compilation for every entry (~3 ms; one per entry would be ten times that). None when
    jsonschema-rs is not installed or cannot compile it."""
    document = schema_document(line)
    schema: dict[str, Any] = {key: document[key] for key in ("$schema", "$id", "$defs") if key in document}
    schema["properties"] = {name: {"$ref": _DEFS + name} for name in document["$defs"]}
    try:
        import jsonschema_rs

        return jsonschema_rs.Draft202012Validator(schema, validate_formats=False, retriever=_refuse)
    except Exception:
        return None


@cache
def fast_validator(line: str) -> Any:
    """The official schema of a version line compiled by jsonschema-rs, or None when it is not installed
    or cannot compile it (then jsonschema alone decides). Formats are not asserted, as with jsonschema;
    the meta-schemas it references are bundled with it, any other URI is refused, never fetched. Its
    patterns never backtrack without end: one without lookaround or backreferences runs on the Rust
    `regex` crate (linear time), the others (`^(?!\\$).+$` in 1.1) on fancy-regex, which gives up past
    its backtracking limit (the value then fails the pattern, and jsonschema explains)."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        return jsonschema_rs.Draft202012Validator(
            schema_document(line), validate_formats=False, retriever=_refuse
        )
    except Exception:
        return None


def _refuse(uri: str) -> Any:
    raise ValueError(f"{uri}: the official schemas reference nothing that is not bundled")


def schema_valid(data: Any, line: str) -> bool:
    """Whether jsonschema-rs finds `data` valid. False when it cannot tell: not installed, or data it
    does not take (YAML keys that are not strings, dates, ...), which jsonschema then checks."""
    fast = fast_validator(line)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(data))
    except Exception:
        return False


def check_schema(data: Any, line: str | None = None) -> list[SchemaProblem]:
    """Every schema violation of `data`, located and explained, in document order: none when the fast
    validator finds it valid, else what jsonschema finds."""
    line = line or schema_line(data)
    return [] if schema_valid(data, line) else jsonschema_problems(data, line)


def jsonschema_problems(data: Any, line: str) -> list[SchemaProblem]:
    """What jsonschema finds wrong with `data` (the second validator, which explains)."""
    problems: list[SchemaProblem] = []
    for error in validator(line).iter_errors(data):
        problems.extend(_explain(error, line))
    return _unique(problems)


def _unique(problems: list[SchemaProblem]) -> list[SchemaProblem]:
    seen: set[tuple[Pointer, str]] = set()
    out = []
    for problem in problems:
        key = (problem.at, problem.message)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    return out


def _explain(error: Any, line: str) -> Iterator[SchemaProblem]:
    at: Pointer = tuple(error.absolute_path)
    validator_name = error.validator
    if validator_name in _COMPOSITE and error.context:
        yield from _composite(error, at, line)
        return
    if validator_name in _UNEXPECTED:
        # A subschema that failed contributes no "evaluated" annotations, so unevaluatedProperties then
        # also lists fields the schema does declare: those are echoes of the real error, reported elsewhere.
        # A misspelt field (`sucessCriteria`) is named with the field it most likely meant, as the rules
        # do for ids; a field the object already has is not offered (renaming to it would duplicate it).
        declared = _declared_names(line, error.schema)
        for key in _unexpected_keys(error):
            if key not in declared:
                free = sorted(name for name in declared if name not in error.instance)
                hint = did_you_mean(key, free) if isinstance(key, str) else ""
                yield SchemaProblem((*at, key), f"unexpected field '{key}'{hint}", key=True)
        return
    if validator_name == "required" and isinstance(error.instance, dict):
        missing = [p for p in error.validator_value if p not in error.instance]
        for name in missing or [None]:
            yield SchemaProblem(at, f"missing required field '{name}'" if name else schema_message(error))
        return
    yield SchemaProblem(at, _message(error))


def _composite(error: Any, at: Pointer, line: str) -> Iterator[SchemaProblem]:
    """The problems of the branch the document most plausibly meant: not one of a different JSON type,
    then the fewest problems at the object itself, then the fewest problems, then the first."""
    branches: dict[int, list[Any]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    depth = len(at)
    explained = {
        index: _unique([p for sub in subs for p in _explain(sub, line)]) for index, subs in branches.items()
    }
    required_only = len(branches) > 1 and all(
        s.validator == "required" and len(s.absolute_path) == depth
        for subs in branches.values()
        for s in subs
    )
    if required_only:
        names = [name for subs in branches.values() for s in subs for name in s.validator_value]
        yield SchemaProblem(at, f"needs exactly one of: {', '.join(dict.fromkeys(names))}")
        return

    def score(index: int) -> tuple[int, int, int, int]:
        subs, problems = branches[index], explained[index]
        wrong_type = any(s.validator == "type" and len(s.absolute_path) == depth for s in subs)
        shallow = sum(1 for p in problems if len(p.at) <= depth or (p.key and len(p.at) == depth + 1))
        return (wrong_type, shallow, len(problems), index)

    best = min(explained, key=score)
    if explained[best]:
        yield from explained[best]
    else:  # every problem of the branch was an echo: fall back to the composite's own message
        yield SchemaProblem(at, _message(error))


def _unexpected_keys(error: Any) -> list[str]:
    instance = error.instance
    if not isinstance(instance, dict):
        return []
    inside = error.message.rpartition("(")[2]
    found = []
    for single, double in _QUOTED.findall(inside):
        key = single or double
        if key in instance and key not in found:
            found.append(key)
    return found


def _declared_names(line: str, schema: Any) -> frozenset[str]:
    """Property names a schema declares anywhere (through local `$ref`s, allOf/anyOf/oneOf, if/then/else)."""
    key = (line, id(schema))
    found = _DECLARED.get(key)
    if found is None:
        names: set[str] = set()
        _collect_names(schema_document(line), schema, names, set())
        found = _DECLARED[key] = frozenset(names)
    return found


_DECLARED: dict[tuple[str, int], frozenset[str]] = {}


def _collect_names(root: dict[str, Any], schema: Any, names: set[str], seen: set[int]) -> None:
    if not isinstance(schema, dict) or id(schema) in seen:
        return
    seen.add(id(schema))
    properties = schema.get("properties")
    if isinstance(properties, dict):
        names.update(properties)
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for token in ref[2:].split("/"):
            target = target.get(token) if isinstance(target, dict) else None
        _collect_names(root, target, names, seen)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(keyword) or ():
            _collect_names(root, branch, names, seen)
    for keyword in ("if", "then", "else"):
        _collect_names(root, schema.get(keyword), names, seen)


def _message(error: Any) -> str:
    name, value, instance = error.validator, error.validator_value, error.instance
    if name == "type":
        expected = " or ".join(value) if isinstance(value, list) else value
        return f"expected {expected}, got {_kind(instance)}"
    if name == "enum":
        return f"{_short(instance)} is not one of {', '.join(_short(v) for v in value)}"
    if name == "const":
        return f"{_short(instance)} must be {_short(value)}"
    if name == "pattern":
        return f"{_short(instance)} does not match the pattern {value}"
    if name == "minItems":
        return "must not be empty" if value == 1 else f"needs at least {value} items"
    if name == "uniqueItems":
        return "contains duplicate items"
    if name == "dependentRequired":
        return schema_message(error).replace(" is a dependency of ", " is required when there is ")
    if name in _COMPOSITE:
        if name == "anyOf" or error.context:
            return "does not match any of the allowed forms"
        exclusive = [b["required"] for b in value if isinstance(b, dict) and set(b) == {"required"}]
        if len(exclusive) == len(value):
            names = ", ".join(dict.fromkeys(n for group in exclusive for n in group))
            return f"only one of {names} may be given"
        return "matches more than one of the allowed forms; it must match exactly one"
    if name == "minimum":
        return f"{_short(instance)} is less than the minimum {value}"
    return _trim(schema_message(error))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    names: dict[type, str] = {dict: "an object", list: "an array", str: "a string"}
    return names.get(type(value), type(value).__name__)


def _short(value: Any, limit: int = 60) -> str:
    return _trim(json_spelling(value), limit)


def _trim(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
