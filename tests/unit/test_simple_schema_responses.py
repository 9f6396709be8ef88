"""The contract checks' subset path (`http/contract_subset.py`) says of a body exactly what the general path
(jsonschema-rs's verdict, then jsonschema's errors explained) says: the same mismatches, in the same
words and order, for OpenAPI 3.0 (Draft 4) and 3.1 (2020-12) schemas; and defers what it does not cover."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arazzo_runner.http.contract_schema import MAX_ERRORS, BodyChecker
from arazzo_runner.http.contract_subset import admitted, mismatches

names = st.sampled_from("abcd")
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-4, 4)
    | st.floats(-4, 4, allow_nan=False)
    | st.sampled_from([1.0, 2.0, 0.5])
    | st.text(alphabet="ab1é", max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names, inner, max_size=4),
    max_leaves=10,
)
# enum and const values: distinct as JSON Schema compares them (no float equal to an int)
literals = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(alphabet="ab", max_size=2),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(names, inner, max_size=2),
    max_leaves=4,
)
kinds = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])


def _leaf(v30: bool) -> st.SearchStrategy:
    optional = {
        "type": kinds | st.lists(kinds, min_size=1, max_size=3, unique=True),
        "enum": st.lists(literals, min_size=1, max_size=3, unique_by=lambda v: json.dumps(v, sort_keys=True)),
        "minimum": st.integers(-3, 3) | st.sampled_from([0.5, -1.5]),
        "maximum": st.integers(-3, 3),
        "minLength": st.integers(0, 3),
        "maxLength": st.integers(0, 3),
        "minItems": st.integers(0, 2),
        "maxItems": st.integers(0, 3),
        "uniqueItems": st.booleans(),
        "minProperties": st.integers(0, 2),
        "maxProperties": st.integers(0, 3),
        "description": st.text(max_size=3),
        "readOnly": st.booleans(),
        "format": st.sampled_from(["int32", "int64", "double", "password", "byte"]),
        "example": json_values,
        "x-note": json_values,
    }
    if v30:
        optional["nullable"] = st.booleans()
    else:
        optional["const"] = literals
        optional["exclusiveMinimum"] = st.integers(-3, 3)
        optional["exclusiveMaximum"] = st.integers(-3, 3)
        optional["examples"] = st.lists(json_values, max_size=2)
    return st.fixed_dictionaries({}, optional=optional)


def _exclusive(schema: dict, flags: dict) -> dict:
    """Draft 4's boolean exclusive bounds, each beside its bound (as its meta-schema wants)."""
    out = dict(schema)
    for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if bound in out and key in flags:
            out[key] = flags[key]
    return out


def _schemas(v30: bool) -> st.SearchStrategy:
    leaf = _leaf(v30)
    if v30:
        flags = st.fixed_dictionaries(
            {}, optional={"exclusiveMinimum": st.booleans(), "exclusiveMaximum": st.booleans()}
        )
        leaf = st.builds(_exclusive, leaf, flags)
    required = st.lists(names, min_size=1 if v30 else 0, max_size=3, unique=True)
    return st.recursive(
        leaf,
        lambda inner: st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(["object", "array"]),
                "properties": st.dictionaries(names, inner | st.builds(_write_only, inner), max_size=3),
                "required": required,
                "additionalProperties": st.booleans() | inner,
                "items": inner,
                "uniqueItems": st.booleans(),
                "title": st.text(max_size=2),
            },
        ),
        max_leaves=6,
    )


def _write_only(schema: dict) -> dict:
    return {**schema, "writeOnly": True}


def _general(schema: dict, version: str, body: object) -> list:
    checker = BodyChecker(schema, version, None)
    checker.subset = False  # the general path: jsonschema-rs, then jsonschema explained
    return checker.check(body)


def _same(schema: dict, version: str, body: object) -> bool:
    checker = BodyChecker(schema, version, None)
    assert checker.broken is None and admitted(checker.schema, checker.v30), schema
    fast = mismatches(checker.schema, body, checker.v30, MAX_ERRORS)
    general = _general(schema, version, body)
    if fast is not None:
        assert fast == general, (schema, body, fast, general)
    assert checker.check(body) == general  # either way, the checker's own answer
    return fast is not None


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_schemas(v30=True), body=json_values)
def test_openapi_3_0_bodies_get_the_general_path_s_mismatches(schema, body) -> None:
    _same(schema, "3.0.3", body)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_schemas(v30=False), body=json_values)
def test_openapi_3_1_bodies_get_the_general_path_s_mismatches(schema, body) -> None:
    _same(schema, "3.1.0", body)


def test_a_typical_response_is_decided_by_the_subset_in_the_general_path_s_words() -> None:
    schema = {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer", "format": "int64", "minimum": 1},
            "name": {"type": "string", "maxLength": 5},
            "tag": {"type": "string", "nullable": True, "enum": ["a", "b"]},
            "secret": {"type": "string", "writeOnly": True},
            "items": {"type": "array", "items": {"type": "number"}, "uniqueItems": True},
        },
        "additionalProperties": False,
    }
    body = {"id": 0, "name": "toolong", "tag": "c", "secret": "s3cr3t", "items": [1, 1.0, "x"], "extra": 1}
    checker = BodyChecker(schema, "3.0.3", None)
    assert admitted(checker.schema, checker.v30)
    fast = mismatches(checker.schema, body, checker.v30, MAX_ERRORS)
    assert fast == _general(schema, "3.0.3", body)
    assert [(m.pointer, m.wanted, m.got) for m in fast] == [
        ("/extra", "no such property (additionalProperties: false)", "1"),
        ("/id", ">= 1", "0"),
        ("/items", "unique items (uniqueItems)", "an item repeated (equal as JSON values)"),
        ("/items/2", "type number", 'string "x"'),
        ("/name", "length <= 5", '"toolong"'),
        (
            "/secret",
            "no value: the property is writeOnly (sent in requests only)",
            "a value (not shown: a writeOnly value may be a secret)",
        ),
        ("/tag", 'one of "a", "b", null', '"c"'),
    ]
    assert mismatches(checker.schema, {"id": 2, "name": "ok"}, checker.v30, MAX_ERRORS) == []


def test_schemas_outside_the_subset_or_ill_formed_go_the_general_way() -> None:
    outside = [
        {"oneOf": [{"type": "string"}]},
        {"$ref": "#/components/schemas/Pet"},
        {"type": "string", "pattern": "^a"},
        {"type": "string", "format": "date-time"},
        {"type": "number", "multipleOf": 0.1},
        {"type": "pet"},
        {"required": "id"},
        {"required": []},  # Draft 4: at least one
        {"enum": []},
        {"enum": [1, 1.0]},
        {"exclusiveMinimum": True},  # Draft 4: without its minimum
        {"items": [{"type": "string"}]},
        {"$schema": "http://json-schema.org/draft-04/schema#"},
        {"properties": {"a": True}},
    ]
    for schema in outside:
        checker = BodyChecker(schema, "3.0.3", None)
        assert checker.broken is not None or not admitted(checker.schema, checker.v30), schema


def test_values_the_validators_may_read_apart_go_the_general_way() -> None:
    checker = BodyChecker({"type": "integer"}, "3.0.3", None)
    assert mismatches(checker.schema, 1.0, True, MAX_ERRORS) is None  # Draft 4's integer
    assert mismatches(checker.schema, 2**60, True, MAX_ERRORS) is None
    assert checker.check(1.0) == _general({"type": "integer"}, "3.0.3", 1.0)
    many = BodyChecker({"items": {"type": "string"}}, "3.1.0", None)
    assert mismatches(many.schema, list(range(MAX_ERRORS)), False, MAX_ERRORS) is None  # its order


def test_a_body_past_the_subsets_node_budget_is_checked_whole_by_the_general_path() -> None:
    """Past its node budget the subset stops and hands the body on: a mismatch after the budget's last
    node is still reported, in the general path's words."""
    schema = {"type": "array", "items": {"type": "string"}}
    checker = BodyChecker(schema, "3.1.0", None)
    body = ["a"] * 20_000 + [1]
    assert admitted(checker.schema, checker.v30)
    found = checker.check(body)
    assert [(m.pointer, m.wanted) for m in found] == [("/20000", "type string")]
    assert found == _general(schema, "3.1.0", body)


def test_a_not_schema_other_than_the_write_only_mark_goes_the_general_way() -> None:
    """`not` is in the subset only as `prepare`'s mark of a writeOnly property (every value a mismatch);
    any other `not` is the general path's: 1 is not a string, so it fits `not: {type: string}`."""
    checker = BodyChecker({"not": {"type": "string"}}, "3.1.0", None)
    assert not admitted(checker.schema, checker.v30)
    assert checker.check(1) == []
    assert [m.pointer for m in checker.check("a")] == [""]
