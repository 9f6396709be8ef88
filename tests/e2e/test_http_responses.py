"""What a step sees of its exchange: `$url`, `$method`, `$statusCode`, `$request.*`, `$response.*`."""

from __future__ import annotations

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import only_workflow, op_step, run_json, step, workflow


def _param(name: str, in_: str, value: object) -> dict:
    return {"name": name, "in": in_, "value": value}


def test_request_and_exchange_expressions_in_outputs(capsys, write, server):
    server.reply(
        "GET",
        "/pets/{petId}",
        (200, {"id": "p 1", "name": "Rex", "tags": ["a", "b"]}, {"X-Request-Id": "r-42", "ETag": '"v1"'}),
    )
    outputs = {
        "url": "$url",
        "method": "$method",
        "status": "$statusCode",
        "petId": "$request.path.petId",
        "trace": "$request.header.x-trace",
        "requestId": "$response.header.x-request-id",
        "etag": "$response.header.ETAG",
        "contentType": "$response.header.Content-Type",
        "name": "$response.body#/name",
        "tag": "$response.body#/tags/1",
        "body": "$response.body",
    }
    get = op_step(
        "get",
        "getPet",
        parameters=[_param("petId", "path", "p 1"), _param("X-Trace", "header", "abc")],
        outputs=outputs,
    )
    doc = arazzo_doc(
        workflow(
            "flow", get, outputs={"petName": "$steps.get.outputs.name", "all": "$steps.get.outputs.body"}
        )
    )
    result = run_json(capsys, write(doc), server=server)
    assert result.code == 0, result.out
    assert step(result)["outputs"] == {
        "url": f"{server.url}/pets/p%201",
        "method": "GET",
        "status": 200,
        "petId": "p 1",
        "trace": "abc",
        "requestId": "r-42",
        "etag": '"v1"',
        "contentType": "application/json",
        "name": "Rex",
        "tag": "b",
        "body": {"id": "p 1", "name": "Rex", "tags": ["a", "b"]},
    }
    assert only_workflow(result)["outputs"] == {
        "petName": "Rex",
        "all": {"id": "p 1", "name": "Rex", "tags": ["a", "b"]},
    }


def test_request_body_and_query_expressions(capsys, write, server):
    server.reply("POST", "/pets", (201, {"id": 9}, {"Location": "/pets/9"}))
    server.reply("GET", "/pets", (200, [{"id": 9}]))
    create = op_step(
        "create",
        "createPet",
        requestBody={"payload": {"name": "Rex", "meta": {"age": 3}}},
        successCriteria=[{"condition": "$statusCode == 201"}, {"condition": "$request.body#/meta/age == 3"}],
        outputs={
            "sent": "$request.body",
            "age": "$request.body#/meta/age",
            "method": "$method",
            "location": "$response.header.location",
            "id": "$response.body#/id",
        },
    )
    listing = op_step(
        "list",
        "listPets",
        parameters=[
            _param("limit", "query", "$steps.create.outputs.id"),
            _param("tags", "query", ["x", "y"]),
        ],
        outputs={
            "limit": "$request.query.limit",
            "tags": "$request.query.tags",
            "first": "$response.body#/0/id",
        },
    )
    result = run_json(capsys, write(arazzo_doc(workflow("flow", create, listing))), server=server)
    assert result.code == 0, result.out
    assert step(result, 0)["outputs"] == {
        "sent": {"name": "Rex", "meta": {"age": 3}},
        "age": 3,
        "method": "POST",
        "location": "/pets/9",
        "id": 9,
    }
    assert step(result, 1)["outputs"] == {"limit": 9, "tags": ["x", "y"], "first": 9}
    assert server.requests[1].raw_query == "limit=9&tags=x&tags=y"


def test_a_text_body_is_a_string(capsys, write, server):
    server.reply("GET", "/pets", (200, "hello, world", {"Content-Type": "text/plain; charset=utf-8"}))
    listing = op_step(
        "list",
        "listPets",
        successCriteria=[{"context": "$response.body", "condition": "^hello, \\w+$", "type": "regex"}],
        outputs={"text": "$response.body"},
    )
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 0, result.out
    assert step(result)["outputs"] == {"text": "hello, world"}


def test_a_latin1_text_body_is_decoded_by_its_charset(capsys, write, server):
    server.reply(
        "GET", "/pets", (200, "café".encode("latin-1"), {"Content-Type": "text/plain; charset=latin-1"})
    )
    listing = op_step("list", "listPets", outputs={"text": "$response.body"})
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 0, result.out
    assert step(result)["outputs"] == {"text": "café"}


def test_an_xml_body_is_queried_with_xpath(capsys, write, server):
    xml = (
        "<?xml version='1.0'?>"
        "<pets><pet id='1'><name>Rex</name></pet><pet id='2'><name>Tom</name></pet></pets>"
    )
    server.reply("GET", "/pets", (200, xml, {"Content-Type": "application/xml"}))
    listing = op_step(
        "list",
        "listPets",
        successCriteria=[
            {"context": "$response.body", "condition": "count(/pets/pet) = 2", "type": "xpath"},
            {
                "context": "$response.body",
                "condition": "/pets/pet[@id='2']/name = 'Tom'",
                "type": {"type": "xpath", "version": "xpath-10"},
            },
        ],
        outputs={
            "raw": "$response.body",
            "second": {"context": "$response.body", "selector": "/pets/pet[2]/name/text()", "type": "xpath"},
        },
    )
    doc = arazzo_doc(workflow("flow", listing), version="1.1.0")
    result = run_json(capsys, write(doc), server=server)
    assert result.code == 0, result.out
    outputs = step(result)["outputs"]
    assert outputs["raw"] == xml
    assert outputs["second"] == "Tom"


def test_a_failing_xpath_criterion_fails_the_run(capsys, write, server):
    server.reply("GET", "/pets", (200, "<pets/>", {"Content-Type": "text/xml"}))
    listing = op_step(
        "list",
        "listPets",
        successCriteria=[{"context": "$response.body", "condition": "/pets/pet", "type": "xpath"}],
    )
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 1
    got = step(result)
    assert got["status"] == "failed"
    assert got["statusCode"] == 200
    assert got["error"].startswith("successCriteria failed: ")


def test_a_json_body_with_a_vendor_json_type_is_parsed(capsys, write, server):
    server.reply("GET", "/pets", (200, b'{"items": [1, 2]}', {"Content-Type": "application/vnd.api+json"}))
    listing = op_step("list", "listPets", outputs={"second": "$response.body#/items/1"})
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 0, result.out
    assert step(result)["outputs"] == {"second": 2}


def test_missing_response_values_become_null_with_a_warning(capsys, write, server):
    server.reply("GET", "/pets", (200, {"items": []}))
    listing = op_step(
        "list",
        "listPets",
        outputs={"nothing": "$response.body#/items/0/id", "noHeader": "$response.header.X-Absent"},
    )
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 0, result.out
    got = step(result)
    assert got["outputs"] == {"nothing": None, "noHeader": None}
    assert len(got["warnings"]) == 2
    assert got["warnings"][0].startswith("output 'nothing': ")
    assert got["warnings"][1].startswith("output 'noHeader': ")


def test_an_empty_204_response_has_a_null_body(capsys, write, server):
    server.reply("DELETE", "/pets/{petId}", (204, b""))
    delete = op_step(
        "delete",
        "deletePet",
        parameters=[_param("petId", "path", 5)],
        successCriteria=[{"condition": "$statusCode == 204"}],
        outputs={"status": "$statusCode", "method": "$method"},
    )
    result = run_json(capsys, write(arazzo_doc(workflow("flow", delete))), server=server)
    assert result.code == 0, result.out
    assert step(result)["outputs"] == {"status": 204, "method": "DELETE"}
    assert server.requests[0].method == "DELETE"
    assert server.requests[0].path == "/pets/5"


def test_a_status_of_400_or_more_without_criteria_fails_showing_the_status(capsys, write, server):
    server.reply("GET", "/pets", (404, {"error": "nope"}))
    listing = op_step("list", "listPets", outputs={"error": "$response.body#/error"})
    result = run_json(capsys, write(arazzo_doc(workflow("flow", listing))), server=server)
    assert result.code == 1
    got = step(result)
    assert got["statusCode"] == 404
    assert got["error"] == "HTTP 404 (no successCriteria: a status below 400 is required)"
    assert got["outputs"] == {"error": "nope"}
    assert only_workflow(result)["error"] == {"stepId": "list", "message": got["error"]}
