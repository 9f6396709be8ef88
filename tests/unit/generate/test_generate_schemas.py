"""OpenAPI schemas as inputs schemas (`generate/schemas.py`) and the example values made for them
(`generate/examples.py`): each value is checked against its schema by the validation `arazzo run`
applies to inputs."""

from __future__ import annotations

import pytest

from arazzo_runner.generate.examples import NOTHING, Examples
from arazzo_runner.generate.names import Unique
from arazzo_runner.generate.schemas import SchemaCopier, object_view
from arazzo_runner.sources import load_openapi

DESCRIPTION = """\
openapi: 3.0.3
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      discriminator: {propertyName: kind}
      xml: {name: pet}
      x-internal: true
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string, example: Rex}
        tag: {type: string, nullable: true, enum: [a, b]}
        age: {type: integer, minimum: 0, exclusiveMinimum: true}
        owner: {$ref: '#/components/schemas/Owner'}
        kind: {$ref: '#/components/schemas/Kind'}
    Owner:
      type: object
      properties:
        name: {type: string}
        pets:
          type: array
          items: {$ref: '#/components/schemas/Pet'}
    Kind: {type: string, enum: [cat, dog]}
    Choice:
      oneOf: [{$ref: '#/components/schemas/Pet'}, {$ref: '#/components/schemas/Owner'}]
      discriminator: {propertyName: kind}
    Empty: {type: integer, oneOf: []}
"""


@pytest.fixture
def copier(tmp_path):
    path = tmp_path / "api.yaml"
    path.write_text(DESCRIPTION, encoding="utf-8")
    description = load_openapi(str(path))
    components: dict = {}
    return SchemaCopier(description, components, Unique()), components, description


def _schema(description, name):
    return description.resolve({"$ref": f"#/components/schemas/{name}"})


def test_structured_components_are_copied_once_and_referenced_scalars_inlined(copier):
    convert, components, description = copier
    assert convert.convert(_schema(description, "Pet")) == {"$ref": "#/components/inputs/Pet"}
    assert sorted(components) == ["Owner", "Pet"]
    pet = components["Pet"]
    assert list(pet) == ["type", "required", "properties"]  # discriminator, xml, x-* left out
    assert pet["required"] == ["name"]  # `id` is readOnly: the server writes it
    assert pet["properties"] == {
        "name": {"type": "string", "examples": ["Rex"]},
        "tag": {"type": ["string", "null"], "enum": ["a", "b", None]},
        "age": {"type": "integer", "exclusiveMinimum": 0},
        "owner": {"$ref": "#/components/inputs/Owner"},
        "kind": {"type": "string", "enum": ["cat", "dog"]},
    }
    assert components["Owner"]["properties"]["pets"] == {
        "type": "array",
        "items": {"$ref": "#/components/inputs/Pet"},
    }


def test_a_oneof_a_discriminator_chooses_from_becomes_anyof_and_empty_combinators_go(copier):
    convert, components, description = copier
    convert.convert(_schema(description, "Choice"))
    assert components["Choice"] == {
        "anyOf": [{"$ref": "#/components/inputs/Pet"}, {"$ref": "#/components/inputs/Owner"}]
    }
    convert.convert(_schema(description, "Empty"))
    assert components["Empty"] == {"type": "integer"}


def test_boolean_schemas_become_objects_but_additional_properties_false_stays(copier):
    convert, _, _ = copier
    assert convert.convert(True) == {}
    assert convert.convert(False) == {"not": {}}
    schema = {"type": "object", "properties": {"a": True}, "additionalProperties": False}
    assert convert.convert(schema) == {
        "type": "object",
        "properties": {"a": {}},
        "additionalProperties": False,
    }


def test_annotations_are_laid_over(copier):
    convert, _, _ = copier
    assert convert.convert({"type": "string"}, annotations={"description": "d", "format": None}) == {
        "type": "string",
        "description": "d",
    }


def test_object_view_merges_allof_and_branches_that_only_add_required():
    schema = {
        "allOf": [
            {"type": "object", "properties": {"a": {}, "b": {}}},
            {"required": ["a"]},
            {"properties": {"c": {}}, "required": ["c"]},
        ]
    }
    assert object_view(schema) == ({"a": {}, "b": {}, "c": {}}, ["a", "c"])
    assert object_view({"type": "array", "items": {}}) is None
    assert object_view({"oneOf": [{}]}) is None


@pytest.fixture
def examples():
    components = {"Pet": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}
    return Examples(components)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "string", "format": "date"}, "2026-09-16"),
        ({"type": "string", "format": "date-time"}, "2026-09-16T09:00:00Z"),
        ({"type": "string", "format": "uuid"}, "3fa85f64-5717-4562-b3fc-2c963f66afa6"),
        ({"type": "string", "format": "email"}, "user@example.com"),
        ({"type": "string", "minLength": 10}, "examplexxx"),
        ({"type": "string", "maxLength": 3}, "exa"),
        ({"type": "string", "pattern": "^CR[0-9a-f]{4}$"}, "CR0000"),
        ({"type": "integer", "minimum": 5}, 5),
        ({"type": "integer", "exclusiveMinimum": 7}, 8),
        ({"type": "integer", "maximum": 0}, 0),
        ({"type": "number", "minimum": 2, "multipleOf": 4}, 4),
        ({"type": "boolean"}, True),
        ({"enum": ["x", "y"]}, "x"),
        ({"type": "array", "items": {"type": "string", "pattern": "^(0|[1-9][0-9]*)$"}, "minItems": 2,
          "uniqueItems": True}, ["0", "1"]),
        ({"$ref": "#/components/inputs/Pet"}, {"name": "example"}),
        ({"oneOf": [{"type": "integer"}, {"type": "string", "format": "email"}]}, 1),
        ({"allOf": [{"type": "string", "enum": ["a-b", "c"]}]}, "a-b"),
    ],
)  # fmt: skip
def test_made_values_fit_their_schema(examples, schema, value):
    assert examples.value(schema, "x") == (value, None)


def test_the_descriptions_own_examples_come_first_unless_they_do_not_fit(examples):
    schema = {"type": "integer", "maximum": 10, "examples": [50, 7]}
    assert examples.value(schema, "n", given=["nope", 3]) == (3, None)
    assert examples.value(schema, "n") == (7, None)
    assert examples.value({"type": "string"}, "contactEmail") == ("user@example.com", None)


def test_a_json_body_gets_an_object_or_nothing(examples):
    assert examples.value({}, "body", container=True) == ({}, None)
    either = {"anyOf": [{"type": "string"}, {"type": "object", "required": ["a"]}]}
    assert examples.value(either, "body", container=True) == ({"a": "example"}, None)
    assert examples.value(either, "name") == ("example", None)
    exactly_one = {"oneOf": [True, {"type": "object", "required": ["a"]}]}
    assert examples.value(exactly_one, "body", container=True) == ({}, None)  # {"a": ...} fits both
    value, why = examples.value({"not": {}}, "body", container=True)
    assert (
        value is NOTHING and why == "no object or list fits the body's schema (a JSON body is sent from one)"
    )
    assert examples.value({"not": {}}, "x") == ("example", "no example fits its schema")


def test_hostile_schemas_end_within_bounds():
    looping = Examples({"A": {"allOf": [{"$ref": "#/components/inputs/A"}]}})
    assert looping.value({"$ref": "#/components/inputs/A"}, "x")[1] is not None
    many = {"type": "array", "minItems": 10**9, "items": {"type": "integer"}}
    assert looping.value(many, "x") == (list(range(1, 65)), "no example fits its schema")
    assert looping.value({"type": "string", "minLength": 10**9}, "x") == (
        "example",
        "no example fits its schema",
    )
    assert looping.value({"type": "number", "multipleOf": 1e-320}, "x")[1] is not None


def test_literals_nested_too_deep_are_left_out(copier):
    convert, _, _ = copier
    deep: list = []
    for _ in range(40):
        deep = [deep]
    schema = {"type": "array", "examples": [deep], "default": [[1]]}
    assert convert.convert(schema) == {"type": "array", "default": [[1]]}
