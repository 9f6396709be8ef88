"""What a body that does not fit its schema got wrong, for the contract checks (`contract_schema.py`): each
jsonschema error as a JSON pointer in the body, what the schema wanted and what came, in words; a failed
`oneOf`/`anyOf` explained by the branch the body meant (the one its discriminator names, else the one
with the fewest problems at the value itself). A value is quoted cut to a line, an object or an array
by its size, a `writeOnly` value never.
"""

from __future__ import annotations

import json
from typing import Any

from ..records import Record
from ..spelling import json_spelling, schema_message

WRITE_ONLY = "x-arazzo-writeOnly"  # the mark of a writeOnly property's "must not be sent" schema


class Mismatch(Record):
    """One place where a body does not fit its schema: the JSON pointer, what was wanted, what came."""

    pointer: str
    wanted: str
    got: str


def explain(error: Any) -> list[Mismatch]:
    """Mismatches for one jsonschema error; a failed `oneOf`/`anyOf` by the branch the body meant (the
    one its discriminator names, else the one with the fewest problems at the value itself)."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[Any, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        if len(branches) == len(error.validator_value):
            here = tuple(error.absolute_path)

            def score(index: Any) -> tuple[int, int, int, Any]:
                subs = branches[index]
                guard = sum(1 for s in subs if _guard_failed(s))  # the discriminator names another
                return (guard, sum(1 for s in subs if tuple(s.absolute_path) == here), len(subs), index)

            if all(any(_guard_failed(s) for s in subs) for subs in branches.values()):
                return [_no_branch(error)]  # the discriminator names no branch
            chosen = min(branches, key=score)
            return [m for sub in branches[chosen] for m in explain(sub)]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        return [_mismatch(error, extra) for extra in _extras(error)] or [_mismatch(error)]
    return [_mismatch(error)]


def _no_branch(error: Any) -> Mismatch:
    """A discriminator value no branch is named by: the values that name one were wanted."""
    guards = [b["allOf"][0] for b in error.validator_value if isinstance(b, dict) and "allOf" in b]
    prop = next(iter(guards[0]["properties"])) if guards else ""
    values = [v for guard in guards for v in guard["properties"][prop]["enum"]]
    pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path)
    instance = error.instance if isinstance(error.instance, dict) else {}
    got = _value(instance[prop]) if prop in instance else "nothing"
    wanted = "one of " + ", ".join(_value(v) for v in values) + " (the discriminator's values)"
    return Mismatch(f"{pointer}/{prop.replace('~', '~0').replace('/', '~1')}", wanted, got)


def _guard_failed(error: Any) -> bool:
    path = list(error.relative_schema_path)
    return len(path) >= 3 and path[1:3] == ["allOf", 0]


def _mismatch(error: Any, extra: Any = None) -> Mismatch:
    pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path)
    keyword, value, instance = error.validator, error.validator_value, error.instance
    got = _value(instance)
    if keyword == "type":
        wanted = " or ".join(value) if isinstance(value, list) else str(value)
        wanted = f"type {wanted}"
        got = got if instance is None else f"{_kind(instance)} {got}"
    elif keyword == "required":
        missing = _missing(error)
        pointer = f"{pointer}/{missing}" if missing is not None else pointer
        wanted, got = "a value (required)", "nothing"
    elif keyword == "enum":
        wanted = "one of " + ", ".join(_value(v) for v in value) if isinstance(value, list) else str(value)
    elif keyword == "const":
        wanted = _value(value)
    elif keyword == "not" and isinstance(error.schema, dict) and error.schema.get(WRITE_ONLY):
        wanted = "no value: the property is writeOnly (sent in requests only)"
        got = "a value (not shown: a writeOnly value may be a secret)"
    elif keyword == "additionalProperties" and isinstance(instance, dict):  # one member (`_extras`)
        escaped = str(extra).replace("~", "~0").replace("/", "~1")
        pointer = f"{pointer}/{escaped}" if extra is not None else pointer
        wanted = "no such property (additionalProperties: false)"
        got = _value(instance.get(extra)) if extra is not None else got
    elif keyword in _BOUNDS:
        exclusive = isinstance(error.schema, dict) and error.schema.get(f"exclusive{keyword.title()}") is True
        wanted = (
            f"{_BOUNDS[keyword].strip('=') if exclusive else _BOUNDS[keyword]} {_value(value)}"  # Draft 4
        )
    elif keyword == "format":
        wanted = f"format {_value(value)}"
    elif keyword == "pattern":
        wanted = f"a string matching {_value(value)}"
    elif keyword == "uniqueItems" and isinstance(instance, list):
        wanted, got = "unique items (uniqueItems)", _repeated(instance)
    elif keyword in ("oneOf", "anyOf"):
        wanted = "exactly one of the allowed forms" if keyword == "oneOf" else "one of the allowed forms"
    else:
        wanted = schema_message(error)
    return Mismatch(pointer, wanted, got)


def _repeated(items: list[Any]) -> str:
    """Which item repeats an earlier one (found in one pass; the message never quotes the whole array)."""
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        key = json.dumps(item, sort_keys=True, default=str)
        if key in seen:
            return f"item {index} repeating item {seen[key]}: {_value(item)}"
        seen[key] = index
    return "an item repeated (equal as JSON values)"  # 1 and 1.0: equal to JSON Schema, not as text


_BOUNDS = {
    "minimum": ">=",
    "maximum": "<=",
    "exclusiveMinimum": ">",
    "exclusiveMaximum": "<",
    "minLength": "length >=",
    "maxLength": "length <=",
    "minItems": "items >=",
    "maxItems": "items <=",
    "minProperties": "properties >=",
    "maxProperties": "properties <=",
    "multipleOf": "a multiple of",
}


_REQUIRED = " is a required property"  # jsonschema's words after `repr(name)`


def _missing(error: Any) -> str | None:
    """The name of the required property an error is about: jsonschema says it in the message (one error
    for each missing name), else the first missing one."""
    instance = error.instance if isinstance(error.instance, dict) else {}
    names = error.validator_value if isinstance(error.validator_value, list) else []
    message = getattr(error, "message", None)
    if isinstance(message, str) and message.endswith(_REQUIRED):
        from ast import literal_eval  # the name as jsonschema wrote it: `repr(name)`

        try:
            said = literal_eval(message[: -len(_REQUIRED)])
        except (ValueError, SyntaxError):
            said = None
        if isinstance(said, str) and said in names and said not in instance:
            return said.replace("~", "~0").replace("/", "~1")
    for name in names:
        if name not in instance:
            return str(name).replace("~", "~0").replace("/", "~1")
    return None


def _extras(error: Any) -> list[Any]:
    """The members an `additionalProperties: false` error is about (jsonschema's one error names them
    all): those neither `properties` nor a `patternProperties` pattern names, each reported at its place."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    if "patternProperties" in schema:  # (never on the subset path: it imports no pattern matcher)
        from ..sources.schema_keywords import _additional

        return _additional(error.instance, schema)
    properties = schema.get("properties")
    known = properties if isinstance(properties, dict) else {}
    return [name for name in error.instance if name not in known]


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object" if isinstance(value, dict) else "value"


def _value(value: Any, limit: int = 80) -> str:
    """A value as JSON, cut to `limit` characters (a body may be megabytes)."""
    if isinstance(value, dict):
        return "an object" if value else "{}"
    if isinstance(value, list):
        return f"an array of {len(value)} items" if value else "[]"
    text = json_spelling(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
