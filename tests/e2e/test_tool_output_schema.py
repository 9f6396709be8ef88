"""How a tool's `outputSchema` follows its outputs to the response schemas of a loaded OpenAPI 3.1
description: several success responses, one without a schema, a `$ref` into another document (never
read: the file does not even exist), a schema too large, a header; and the contract that keeps the
structured content valid (`outputs.Contract`)."""

from __future__ import annotations

import jsonschema
import yaml

import arazzo_runner
from arazzo_runner.agents.tools import ToolSource, build_catalog
from arazzo_runner.agents.tools.outputs import MAX_NODES, Contract, output_schema

NULL_OR_MASKED = [{"type": "null"}, {"const": "***"}]
WIDE = {
    "type": "object",
    "properties": {f"p{i}": {"type": "object", "properties": {}} for i in range(MAX_NODES)},
}


def json_response(schema):
    return {"description": "ok", "content": {"application/json": {"schema": schema}}}


OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/a": {
            "get": {
                "operationId": "twoSuccesses",
                "responses": {
                    "200": json_response({"type": "object", "properties": {"v": {"type": "integer"}}}),
                    "201": json_response({"$ref": "#/components/schemas/Named", "description": "the named"}),
                    "400": json_response({"type": "object", "properties": {"v": {"type": "boolean"}}}),
                },
            }
        },
        "/b": {
            "get": {
                "operationId": "elsewhere",
                "responses": {"200": json_response({"$ref": "./gone.yaml#/X"})},
            }
        },
        "/c": {
            "get": {
                "operationId": "oneWithout",
                "responses": {"200": json_response({"type": "object"}), "204": {"description": "none"}},
            }
        },
        "/d": {"get": {"operationId": "wide", "responses": {"200": json_response(WIDE)}}},
    },
    "components": {"schemas": {"Named": {"type": "object", "properties": {"v": {"type": "string"}}}}},
}


def step(step_id, operation_id, outputs):
    return {"stepId": step_id, "operationId": operation_id, "outputs": outputs}


ARAZZO = {
    "arazzo": "1.0.1",
    "info": {"title": "t", "version": "1"},
    "sourceDescriptions": [{"name": "api", "url": "./api.yaml", "type": "openapi"}],
    "workflows": [
        {
            "workflowId": "flow",
            "steps": [
                step("a", "twoSuccesses", {"v": "$response.body#/v", "h": "$response.header.X-Id"}),
                step("b", "elsewhere", {"x": "$response.body"}),
                step("c", "oneWithout", {"c": "$response.body"}),
                step("d", "wide", {"w": "$response.body", "p": "$response.body#/p1"}),
            ],
            "outputs": {
                "v": "$steps.a.outputs.v",
                "h": "$steps.a.outputs.h",
                "x": "$steps.b.outputs.x",
                "c": "$steps.c.outputs.c",
                "w": "$steps.d.outputs.w",
                "p": "$steps.d.outputs.p",
                "literal": "a {$steps.a.outputs.v} b",
            },
        }
    ],
}


def tool(tmp_path):
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(OPENAPI))
    (tmp_path / "flow.arazzo.yaml").write_text(yaml.safe_dump(ARAZZO))
    [found] = build_catalog([ToolSource(arazzo_runner.load(str(tmp_path / "flow.arazzo.yaml")))]).tools
    return found


def test_outputs_follow_the_success_responses(tmp_path):
    schema = output_schema(tool(tmp_path))
    jsonschema.Draft202012Validator.check_schema(schema)
    outputs = schema["properties"]["outputs"]["properties"]
    # the 200's and the 201's (through its $ref, an annotation beside it); the 400 is no success
    assert outputs["v"] == {"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, *NULL_OR_MASKED]}
    assert outputs["x"] == {}  # another document: never read (it does not exist)
    assert outputs["c"] == {}  # a 204 without a body: the body may be anything
    assert outputs["w"] == {}  # more than MAX_NODES schema objects
    assert outputs["p"] == {"anyOf": [{"type": "object", "properties": {}}, *NULL_OR_MASKED]}
    assert outputs["h"] == {} and outputs["literal"] == {}  # a header, a template


def test_the_contract_keeps_content_valid(tmp_path):
    contract = Contract(output_schema(tool(tmp_path)))
    fits = {"status": "passed", "outputs": {"v": 3, "p": None, "x": [1], "w": "***"}}
    assert contract.kept(fits) == (fits, False)
    kept, changed = contract.kept({"status": "passed", "outputs": {"v": 3, "p": [1]}})
    assert changed and kept["status"] == "failed" and kept["error"]["outputs"] == {"v": 3, "p": [1]}
    assert kept["error"]["message"].startswith("the workflow ran, but its output(s) p did not fit")
    jsonschema.validate(kept, contract.schema)
    odd = {"status": "failed", "error": {"message": 5}}
    kept, changed = contract.kept(odd)
    assert changed and kept == {"status": "failed", "error": {"message": "5"}}
    jsonschema.validate(kept, contract.schema)
