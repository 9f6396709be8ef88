"""Request bodies over a real socket: the bytes and Content-Type the server receives."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import op_step, run_json, step, workflow

PET_INPUTS = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "weight": {"type": "number"},
        "vaccinated": {"type": "boolean"},
        "tags": {"type": "array"},
        "owner": {"type": "object"},
        "nick": {"type": "string"},
        "x": {"type": "string"},
    },
}
PET_ARGS = [
    "--input",
    "name=Rex",
    "--input",
    "age=3",
    "--input",
    "weight=4.5",
    "--input",
    "vaccinated=true",
    "--input",
    'tags=["good","boy"]',
    "--input",
    'owner={"id": 7, "name": "Ann"}',
]


def _create(request_body: dict, **fields: Any) -> dict:
    return op_step("create", "createPet", requestBody=request_body, **fields)


def _doc(*steps: dict, version: str = "1.0.1", **fields: Any) -> dict:
    return arazzo_doc(workflow("flow", *steps, inputs=PET_INPUTS, **fields), version=version)


def test_json_payload_substitutes_typed_values_in_nested_objects_and_templates(capsys, write, server):
    server.reply("POST", "/pets", (201, {"id": 1}))
    payload = {
        "name": "$inputs.name",
        "age": "$inputs.age",
        "weight": "$inputs.weight",
        "vaccinated": "$inputs.vaccinated",
        "tags": "$inputs.tags",
        "details": {"owner": "$inputs.owner", "ownerId": "$inputs.owner#/id", "list": ["$inputs.age", 1]},
        "greeting": "Hello {$inputs.name}, age {$inputs.age}, owner {$inputs.owner}",
        "literal": "no $ expression here",
    }
    path = write(_doc(_create({"contentType": "application/json", "payload": payload})))
    result = run_json(capsys, path, *PET_ARGS, server=server)
    assert result.code == 0, result.out
    sent = server.requests[0]
    assert sent.headers["content-type"] == "application/json"
    assert sent.json() == {
        "name": "Rex",
        "age": 3,
        "weight": 4.5,
        "vaccinated": True,
        "tags": ["good", "boy"],
        "details": {"owner": {"id": 7, "name": "Ann"}, "ownerId": 7, "list": [3, 1]},
        "greeting": 'Hello Rex, age 3, owner {"id":7,"name":"Ann"}',
        "literal": "no $ expression here",
    }
    assert sent.body.startswith(b'{"name":"Rex","age":3,"weight":4.5,"vaccinated":true,')


def test_a_whole_payload_expression_sends_the_value_itself(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    path = write(_doc(_create({"payload": "$inputs.owner"}, outputs={"sent": "$request.body#/name"})))
    result = run_json(capsys, path, "--input", 'owner={"name": "Zoë", "ids": [1, 2]}', server=server)
    assert result.code == 0, result.out
    assert server.requests[0].body == '{"name":"Zoë","ids":[1,2]}'.encode()
    assert step(result)["outputs"] == {"sent": "Zoë"}


def test_a_string_payload_is_a_template_sent_verbatim(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    text = '{"name": "{$inputs.name}", "age": {$inputs.age}}'
    path = write(_doc(_create({"contentType": "application/json", "payload": text})))
    result = run_json(capsys, path, "--input", "name=Rex", "--input", "age=3", server=server)
    assert result.code == 0, result.out
    assert server.requests[0].body == b'{"name": "Rex", "age": 3}'


def test_replacements_by_json_pointer(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    body = {
        "payload": {"pet": {"name": "placeholder", "tags": ["a", "b"]}, "a/b": 0, "m~n": 0},
        "replacements": [
            {"target": "/pet/name", "value": "$inputs.name"},
            {"target": "/pet/tags/1", "value": "$inputs.age"},
            {"target": "/pet/tags/-", "value": "$inputs.owner"},
            {"target": "/pet/new", "value": True},
            {"target": "/a~1b", "value": 1},
            {"target": "/m~0n", "value": 2},
        ],
    }
    path = write(_doc(_create(body)))
    result = run_json(capsys, path, *PET_ARGS, server=server)
    assert result.code == 0, result.out
    assert server.requests[0].json() == {
        "pet": {"name": "Rex", "tags": ["a", 3, {"id": 7, "name": "Ann"}], "new": True},
        "a/b": 1,
        "m~n": 2,
    }


def test_replacements_apply_to_a_json_string_payload(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    body = {
        "contentType": "application/json",
        "payload": '{"name": "x", "age": 0}',
        "replacements": [{"target": "/age", "value": "$inputs.age"}],
    }
    path = write(_doc(_create(body)))
    result = run_json(capsys, path, "--input", "age=5", server=server)
    assert result.code == 0, result.out
    assert server.requests[0].json() == {"name": "x", "age": 5}


def test_replacements_by_jsonpath_when_target_selector_type_says_so(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    body = {
        "payload": {"items": [{"sku": "ABC123", "quantity": 1}, {"sku": "XYZ", "quantity": 1, "note": ""}]},
        "replacements": [
            {"target": "$.items[?(@.sku=='ABC123')].quantity", "targetSelectorType": "jsonpath", "value": 10},
            {
                "target": "$.items[*].note",
                "targetSelectorType": {"type": "jsonpath", "version": "rfc9535"},
                "value": "{$inputs.name}!",
            },
            {"target": "/items/1/quantity", "targetSelectorType": "jsonpointer", "value": "$inputs.age"},
        ],
    }
    path = write(_doc(_create(body), version="1.1.0"))
    result = run_json(capsys, path, "--input", "name=Rex", "--input", "age=4", server=server)
    assert result.code == 0, result.out
    assert server.requests[0].json() == {
        "items": [{"sku": "ABC123", "quantity": 10}, {"sku": "XYZ", "quantity": 4, "note": "Rex!"}]
    }


def test_a_jsonpath_replacement_that_selects_nothing_fails_the_step_unsent(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    body = {
        "payload": {"items": []},
        "replacements": [{"target": "$.items[*].note", "targetSelectorType": "jsonpath", "value": 1}],
    }
    path = write(_doc(_create(body), version="1.1.0"))
    result = run_json(capsys, path, server=server)
    assert result.code == 1
    assert server.requests == []
    assert step(result)["error"] == (
        "request not sent: replacement target '$.items[*].note' matches nothing in the payload"
    )


def test_a_replacement_target_that_does_not_exist_fails_the_step_unsent(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    body = {"payload": {"pet": {}}, "replacements": [{"target": "/owner/name", "value": "x"}]}
    path = write(_doc(_create(body)))
    result = run_json(capsys, path, server=server)
    assert result.code == 1
    assert server.requests == []
    assert step(result)["error"] == (
        "request not sent: replacement target '/owner/name' does not exist in the payload (at 'owner')"
    )


def test_form_urlencoded_body_from_the_operation_media_type(capsys, write, server):
    server.reply("POST", "/login", (200, {"token": "t"}))
    payload = {"user": "ann smith", "password": "p&s=w+d", "scopes": ["read", "write"], "age": "$inputs.age"}
    login = op_step("login", "login", requestBody={"payload": payload})  # no contentType
    path = write(_doc(login))
    result = run_json(capsys, path, "--input", "age=30", server=server)
    assert result.code == 0, result.out
    sent = server.requests[0]
    assert sent.headers["content-type"] == "application/x-www-form-urlencoded"
    assert sent.body == b"user=ann+smith&password=p%26s%3Dw%2Bd&scopes=read&scopes=write&age=30"


def test_form_urlencoded_body_given_as_a_template_string(capsys, write, server):
    server.reply("POST", "/login", (200, {}))
    body = {
        "contentType": "application/x-www-form-urlencoded",
        "payload": "user={$inputs.name}&remember=true",
    }
    path = write(_doc(op_step("login", "login", requestBody=body)))
    result = run_json(capsys, path, "--input", "name=Rex", server=server)
    assert result.code == 0, result.out
    assert server.requests[0].body == b"user=Rex&remember=true"


def test_content_type_omitted_uses_the_operation_json_media_type(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    path = write(_doc(_create({"payload": {"name": "$inputs.name"}})))
    result = run_json(capsys, path, "--input", "name=Rex", server=server)
    assert result.code == 0, result.out
    sent = server.requests[0]
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["content-length"] == str(len(b'{"name":"Rex"}'))
    assert sent.body == b'{"name":"Rex"}'


def test_a_step_content_type_wins_over_the_operation_media_type(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    body = {"contentType": "application/merge-patch+json; charset=utf-8", "payload": {"n": "$inputs.age"}}
    path = write(_doc(_create(body)))
    result = run_json(capsys, path, "--input", "age=2", server=server)
    assert result.code == 0, result.out
    assert server.requests[0].headers["content-type"] == "application/merge-patch+json; charset=utf-8"
    assert server.requests[0].body == b'{"n":2}'


def test_a_missing_member_is_omitted_with_a_warning_never_sent_as_none(capsys, write, server):
    server.reply("POST", "/pets", (201, {}))
    path = write(
        _doc(_create({"payload": {"name": "$inputs.name", "nick": "$inputs.nick", "list": ["$inputs.x"]}}))
    )
    result = run_json(capsys, path, "--input", "name=Rex", server=server)
    assert result.code == 0, result.out
    assert json.loads(server.requests[0].body) == {"name": "Rex", "list": [None]}
    assert b"None" not in server.requests[0].body
    warnings = step(result)["warnings"]
    assert len(warnings) == 2
    assert warnings[0].startswith("requestBody payload/nick: ")
    assert warnings[0].endswith("; member omitted")
    assert warnings[1].startswith("requestBody payload/list/0: ")
