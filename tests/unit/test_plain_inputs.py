"""The check pass's shortcut for plain inputs schemas (`executor/plain_inputs.py`) against the general
way (`simple_schema.subset_problems`): on every schema it takes, it passes exactly the values the general
way finds no problem in; every schema saying more is left to the general way."""

from __future__ import annotations

import itertools

import pytest

from arazzo_runner.executor.inputs import apply_defaults, secret_values
from arazzo_runner.executor.plain_inputs import plain_schema
from arazzo_runner.sources.simple_schema import subset_problems

PLAIN = [
    {},
    {"type": "object"},
    {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}},
    {"required": ["n", "s"], "properties": {"n": {"type": "number"}, "s": {"type": "string", "title": "S"}}},
    {"properties": {"b": {"type": "boolean"}, "any": True, "typed": {"description": "no type"}}},
    {"properties": {"n": {"type": ["integer", "null"]}}, "additionalProperties": False},
    {"properties": {"o": {"type": "object"}, "a": {"type": "array"}}, "x-note": 1},
    {"properties": {"p": {"type": "string", "format": "password", "writeOnly": True, "default": "x"}}},
    {"properties": {"s": {"type": "string", "default": "d"}, "w": {"writeOnly": True}, "n": {"default": 3}}},
]
VALUES = [
    {}, {"n": 1}, {"n": 1.0}, {"n": 1.5}, {"n": True}, {"n": "1"}, {"n": None}, {"n": 1, "s": "a"},
    {"n": 2, "s": 3}, {"b": False}, {"b": 0}, {"any": [1]}, {"typed": {"a": 1}}, {"extra": 1},
    {"o": {}, "a": []}, {"o": [], "a": {}}, {"p": "secret"}, {"p": 5}, {"w": {"k": ["x", "yy", 1]}},
    {"s": "given", "w": "hidden"},
]  # fmt: skip
NOT_PLAIN = [
    {"type": "string"},
    {"type": ["object", "null"]},
    {"properties": {"n": {"type": "integer", "minimum": 0}}},
    {"properties": {"s": {"type": "string", "pattern": "^a"}}},
    {"properties": {"n": {"$ref": "#/components/inputs/n"}}},
    {"properties": {"n": {"enum": [1, 2]}}},
    {"properties": {"n": {"type": "decimal"}}},
    {"properties": {"n": False}},
    {"additionalProperties": {"type": "string"}},
    {"required": "n"},
    {"oneOf": [{"type": "object"}]},
    {"$ref": "#/components/inputs/all"},
    {"minProperties": 1},
]


@pytest.mark.parametrize("schema", PLAIN)
def test_the_shortcut_passes_what_the_general_way_passes(schema):
    plain = plain_schema(schema)
    assert plain is not None
    for value in VALUES:
        assert plain.passes(value) == (subset_problems(schema, value, {}) == []), value


@pytest.mark.parametrize("schema", NOT_PLAIN)
def test_schemas_saying_more_go_the_general_way(schema):
    assert plain_schema(schema) is None


def test_required_names_absent_fail_the_shortcut():
    plain = plain_schema(PLAIN[3])
    assert plain is not None
    for value in itertools.islice(VALUES, 8):
        assert plain.passes(value) is (
            "n" in value and "s" in value and subset_problems(PLAIN[3], value, {}) == []
        )


@pytest.mark.parametrize("schema", PLAIN)
def test_the_defaults_and_secrets_are_the_general_ways(schema):
    plain = plain_schema(schema)
    assert plain is not None
    for value in VALUES:
        filled = plain.filled(value)
        assert filled == apply_defaults(schema, value, {}) and list(filled) == list(
            apply_defaults(schema, value, {})
        )
        assert sorted(plain.secrets(filled)) == sorted(secret_values(schema, filled, {}))


def test_a_schema_secret_as_a_whole_goes_the_general_way():
    assert plain_schema({"type": "object", "writeOnly": True}) is None
    assert plain_schema({"format": "password", "properties": {}}) is None
