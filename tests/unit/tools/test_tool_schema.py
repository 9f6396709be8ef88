"""A workflow's inputs schema as a tool's parameters: refs inlined from the document, bounded, never
fetched; hidden inputs out of `properties` and `required`."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arazzo_runner.agents.tools.schema import MAX_NODES, SchemaError, tool_parameters


def workflow(inputs):
    return SimpleNamespace(workflow_id="w", inputs=inputs)


DOCUMENT = {
    "components": {
        "inputs": {
            "pet": {
                "type": "object",
                "required": ["id", "apiKey"],
                "properties": {"id": {"$ref": "#/components/inputs/id"}, "apiKey": {"type": "string"}},
            },
            "id": {"type": "integer", "minimum": 1, "$anchor": "petId"},
            "node": {"type": "object", "properties": {"child": {"$ref": "#/components/inputs/node"}}},
        }
    }
}


def test_references_are_inlined_and_hidden_inputs_left_out():
    schema = tool_parameters(workflow({"$ref": "#/components/inputs/pet"}), DOCUMENT, {"apiKey"})
    assert schema == {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "integer", "minimum": 1, "$anchor": "petId"}},
    }


def test_annotations_beside_a_ref_are_merged_other_keywords_combined():
    inputs = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#petId", "description": "the pet"},
            "b": {"$ref": "#/components/inputs/id", "maximum": 9},
        },
    }
    props = tool_parameters(workflow(inputs), DOCUMENT, ())["properties"]
    assert props["a"] == {"type": "integer", "minimum": 1, "$anchor": "petId", "description": "the pet"}
    assert props["b"] == {"maximum": 9, "allOf": [{"type": "integer", "minimum": 1, "$anchor": "petId"}]}


def test_a_recursive_schema_stops_at_the_cycle():
    schema = tool_parameters(workflow({"$ref": "#/components/inputs/node"}), DOCUMENT, ())
    assert schema["type"] == "object"
    assert schema["properties"]["child"] == {
        "description": "any value here (recursive schema #/components/inputs/node; checked when called)"
    }


@pytest.mark.parametrize(
    "ref", ["https://example.com/pet.json", "#/components/inputs/missing", "other.yaml#/x"]
)
def test_a_reference_outside_the_document_is_refused(ref):
    with pytest.raises(SchemaError, match=f"references '{ref}', which names no schema of its document"):
        tool_parameters(workflow({"type": "object", "properties": {"p": {"$ref": ref}}}), DOCUMENT, ())


def test_an_exponential_schema_is_bounded():
    doc = {"components": {"inputs": {"l0": {"type": "string"}}}}
    for level in range(1, 30):
        below = {"$ref": f"#/components/inputs/l{level - 1}"}
        doc["components"]["inputs"][f"l{level}"] = {"type": "object", "properties": {"a": below, "b": below}}
    with pytest.raises(SchemaError, match=f"more than {MAX_NODES} schema objects"):
        tool_parameters(workflow({"$ref": "#/components/inputs/l29"}), doc, ())


def test_no_inputs_is_an_empty_object_and_branches_lose_hidden_names():
    assert tool_parameters(workflow(None), {}, ()) == {"type": "object", "properties": {}}
    inputs = {"allOf": [{"properties": {"k": {}, "x": {}}, "required": ["k"]}], "properties": {}}
    schema = tool_parameters(workflow(inputs), {}, {"k"})
    assert schema["allOf"] == [{"properties": {"x": {}}}]


def test_no_keyword_names_a_hidden_input():
    inputs = {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "apiKey": {"type": "string"}, "mode": {"type": "string"}},
        "dependentRequired": {"id": ["apiKey", "mode"], "apiKey": ["id"]},
        "dependentSchemas": {"apiKey": {"required": ["id"]}, "mode": {"required": ["apiKey", "id"]}},
        "if": {"required": ["apiKey"]},
        "then": {"required": ["mode"]},
        "not": {"required": ["apiKey", "mode"]},
        "anyOf": [{"required": ["apiKey"]}, {"required": ["id"]}],
    }
    schema = tool_parameters(workflow(inputs), {}, {"apiKey"})
    assert "apiKey" not in str(schema)
    assert schema == {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "mode": {"type": "string"}},
        "dependentRequired": {"id": ["mode"]},
        "dependentSchemas": {"mode": {"required": ["id"]}},
        "anyOf": [{}, {"required": ["id"]}],
    }


def test_conditions_on_visible_inputs_are_kept():
    inputs = {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "mode": {"type": "string"}},
        "if": {"required": ["mode"]},
        "then": {"required": ["id"]},
        "not": {"required": ["id", "mode"]},
    }
    assert tool_parameters(workflow(inputs), {}, {"apiKey"}) == inputs
