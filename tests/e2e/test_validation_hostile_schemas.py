"""A schema the validators cannot use is a finding of the step, never a traceback (issue 13 audit).

openapi-core and jsonschema raise, rather than report, on many schemas a description may hold: a
`$schema` naming an unknown dialect, `allOf: "x"`, an invalid `pattern`, an unknown `type`, a `$ref` to a
string. Each must end the check with a finding (a failure under `error`, a warning under `warn`), on the
request side, the response side (the contract checks) and for event-stream items, and the JSON report
must still be written.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.helpers import cli
from tests.e2e.httpkit import op, openapi, run_flow, step, write_flow

NOT_CHECKED = "cannot be used to validate"
HOSTILE = {
    "allOf-string": ({"allOf": "string"}, NOT_CHECKED),
    "pattern": ({"properties": {"name": {"pattern": "("}}}, "pattern '(' is not a regular expression"),
    "pattern-object": ({"properties": {"name": {"pattern": {"a": 1}}}}, NOT_CHECKED),
    "unknown-type": ({"type": "pet"}, "unknown type 'pet'"),
    "schema-object": ({"$schema": {"a": 1}}, NOT_CHECKED),
    "ref-to-string": ({"properties": {"name": {"$ref": "#/info/title"}}}, NOT_CHECKED),
    "properties-list": ({"properties": [1]}, NOT_CHECKED),
    "maxLength-string": ({"properties": {"name": {"maxLength": "x"}}}, NOT_CHECKED),
    "mapping-number": ({"oneOf": [{}], "discriminator": {"propertyName": "name", "mapping": 5}}, NOT_CHECKED),
    "not-number": ({"not": {"not": {"not": 5}}}, NOT_CHECKED),
}
_STEP = step("s", "create", requestBody={"contentType": "application/json", "payload": {"name": "Rex"}})


def _api(schema: dict, *, stream: bool = False) -> dict:
    if stream:
        content = {"text/event-stream": {"itemSchema": schema}}
    else:
        content = {"application/json": {"schema": schema}}
    return openapi(
        {
            "/pets": {
                "post": op(
                    "create",
                    requestBody={"content": {"application/json": {"schema": schema}}},
                    responses={"200": {"description": "ok", "content": content}},
                )
            }
        },
        info={"title": "integer", "version": "1"},  # `#/info/title`: a $ref to a string
    )


def test_an_unknown_dialect_fails_the_step_with_a_finding_and_the_report_is_written(tmp_path, capsys, server):
    """The audit's reproduction: `$schema: http://host/meta` on a response schema."""
    server.route("POST", "/pets")(lambda request: (200, {"name": "Rex"}))
    dialect = f"{server.url}/meta"
    api = openapi(
        {
            "/pets": {
                "post": op(
                    "create",
                    requestBody={"content": {"application/json": {"schema": {"type": "object"}}}},
                    responses={
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"$schema": dialect}}},
                        }
                    },
                )
            }
        }
    )
    path = write_flow(tmp_path, api, [_STEP])
    report = tmp_path / "report.json"
    server_flag = ["--server", f"api={server.url}"]
    result = cli(capsys, "run", path, *server_flag, "--validate-responses", "error", "--report-json", report)
    assert result.code == 1, result.out + result.err
    [step_report] = json.loads(report.read_text())["workflows"][0]["steps"]
    assert step_report["status"] == "failed"
    assert step_report["error"] == (
        "HTTP 200: contract violated: response 200 application/json: body (whole): wanted a schema the body "
        "can be checked against, got a schema names a dialect the validator does not know "
        f"($schema '{dialect}'): not checked"
    )
    assert [r.path for r in server.requests] == ["/pets"]  # the dialect was never fetched
    # under `warn` the same finding is a warning and the step passes
    result = cli(capsys, "run", path, *server_flag, "--validate-responses", "warn", "--format", "json")
    assert result.code == 0, result.out + result.err
    [warning] = result.json["workflows"][0]["steps"][0]["warnings"]
    assert warning.startswith(f"contract: step 's' ({path}:12): response 200 application/json: body (whole)")
    assert warning.endswith(
        f"got a schema names a dialect the validator does not know ($schema '{dialect}'): not checked"
    )


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_schema_the_validator_cannot_use_is_a_request_finding(tmp_path, server, kind):
    schema, quoted = HOSTILE[kind]
    server.route("POST", "/pets")(lambda request: (200, {"name": "Rex"}))
    workflow = run_flow(tmp_path, server, _api(schema), [_STEP], validate_requests="error")
    message = workflow["steps"][0]["error"]
    assert message.startswith("request not sent: request validation failed: request: "), message
    assert quoted in message and "not checked" in message, message
    assert server.requests == []


# the contract checks' words where they differ from openapi-core's (they read the meta-schema first)
IN_RESPONSES = {"unknown-type": 'not JSON Schema: "pet" is not valid under any of the schemas listed in'}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_schema_the_validator_cannot_use_is_a_response_finding(tmp_path, server, kind):
    schema, quoted = HOSTILE[kind]
    quoted = IN_RESPONSES.get(kind, quoted)
    server.route("POST", "/pets")(lambda request: (200, {"name": "Rex"}))
    workflow = run_flow(tmp_path, server, _api(schema), [_STEP], contract="fail")
    message = workflow["steps"][0]["error"]
    assert message.startswith(
        "HTTP 200: contract violated: response 200 application/json: body (whole): wanted a schema the "
        "body can be checked against, got "
    ), message
    assert quoted in message and "not checked" in message, message
    assert "Rex" not in message  # the instance checked is not quoted


STREAM_ITEMS = {
    "pattern": ({"properties": {"data": {"pattern": "("}}}, "pattern '(' is not a regular expression"),
    "unknown-type": ({"type": "pet"}, "unknown type 'pet'"),
    "not-number": ({"not": {"not": {"not": 5}}}, NOT_CHECKED),
}


@pytest.mark.parametrize("kind", sorted(STREAM_ITEMS))
def test_an_event_stream_item_schema_the_validator_cannot_use_is_a_finding(tmp_path, server, kind):
    schema, quoted = STREAM_ITEMS[kind]
    server.route("POST", "/pets")(lambda r: (200, "data: 1\n\n", {"Content-Type": "text/event-stream"}))
    api = _api(schema, stream=True)
    api["paths"]["/pets"]["post"].pop("requestBody")
    workflow = run_flow(tmp_path, server, api, [step("s", "create")], contract="fail")
    message = workflow["steps"][0]["error"]
    assert message.startswith(
        "HTTP 200: contract violated: response 200 text/event-stream: body (whole): wanted events fitting "
        "the itemSchema, got "
    ), message
    assert quoted in message and "not checked" in message, message
