"""The inputs fast path agrees with jsonschema (differential test) and defers what it does not cover."""

from __future__ import annotations

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arazzo_runner.sources.simple_schema import subset_problems

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    max_leaves=8,
)
types = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])


def _leaf_schemas() -> st.SearchStrategy:
    return st.fixed_dictionaries(
        {},
        optional={
            "type": types | st.lists(types, min_size=1, max_size=2, unique=True),
            "enum": st.lists(json_values, min_size=1, max_size=3),
            "const": json_values,
            "minimum": st.integers(-3, 3),
            "maximum": st.integers(-3, 3),
            "exclusiveMinimum": st.integers(-3, 3),
            "exclusiveMaximum": st.integers(-3, 3),
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 3),
            "pattern": st.sampled_from(["^a", "b$", "[0-9]", "^$"]),
            "minItems": st.integers(0, 2),
            "maxItems": st.integers(0, 2),
            "uniqueItems": st.booleans(),
            "minProperties": st.integers(0, 2),
            "maxProperties": st.integers(0, 2),
            "description": st.text(max_size=3),
            "default": json_values,
            "format": st.sampled_from(["date", "email", "password"]),
        },
    )


schemas = st.recursive(
    _leaf_schemas() | st.booleans(),
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("object") | st.just("array"),
            "properties": st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
            "required": st.lists(st.sampled_from("abc"), max_size=3, unique=True),
            "additionalProperties": inner,
            "items": inner,
        },
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas, value=json_values)
def test_same_verdict_as_jsonschema(schema, value) -> None:
    fast = subset_problems(schema, value, {})
    assert fast is not None  # every generated keyword is in the subset
    expected = list(jsonschema.Draft202012Validator(schema).iter_errors(value))
    assert bool(fast) == bool(expected), (schema, value, fast, [e.message for e in expected])


def test_messages_name_the_place_and_the_problem() -> None:
    schema = {
        "type": "object",
        "required": ["apiKey"],
        "properties": {"count": {"type": "integer", "minimum": 1}, "tags": {"items": {"type": "string"}}},
        "additionalProperties": False,
    }
    problems = subset_problems(schema, {"count": 0, "tags": ["a", 3], "extra": 1}, {})
    assert problems == [
        'inputs: "apiKey" is required but was not provided',
        "count: 0 is less than the minimum of 1",
        'tags/1: 3 is not of type "string"',
        'inputs: Additional properties are not allowed ("extra" was unexpected)',
    ]


def test_local_refs_are_followed() -> None:
    document = {"components": {"inputs": {"n": {"type": "object", "properties": {"x": {"type": "integer"}}}}}}
    assert subset_problems({"$ref": "#/components/inputs/n"}, {"x": "s"}, document) == [
        'x: "s" is not of type "integer"'
    ]


def test_anything_outside_the_subset_is_left_to_jsonschema() -> None:
    cases = [
        ({"oneOf": [{"type": "string"}]}, 1),
        ({"type": "object", "patternProperties": {"^a": {}}}, {}),
        ({"$ref": "other.yaml#/x"}, 1),
        ({"$ref": "#/missing"}, 1),
        ({"type": "number", "multipleOf": 0.1}, 0.3),
        ({"pattern": "("}, "s"),
        ({"items": [{"type": "string"}]}, ["s"]),
        ({"$ref": "#/a", "minimum": 1}, 1),
    ]
    for schema, value in cases:
        assert subset_problems(schema, value, {"a": {}}) is None, schema
