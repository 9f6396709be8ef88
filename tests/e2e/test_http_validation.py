"""Request validation against the description (openapi-core) and the contract checks of responses
(`--validate-responses`, their older name): warnings under `warn`, failures under `error`."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.e2e.helpers import ROOT, cli
from tests.e2e.helpers import step as step_result
from tests.e2e.httpkit import op, openapi, param, run_flow, step, write_flow

PET = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
}
RESPONSES = {
    "200": {"description": "ok", "content": {"application/json": {"schema": PET}}},
    "4XX": {
        "description": "client error",
        "content": {"application/problem+json": {"schema": {"type": "object"}}},
    },
}
STREAM_ITEM = {"type": "object", "required": ["data"], "properties": {"event": {"const": "tick"}}}


def _api() -> dict:
    return openapi(
        {
            "/pets": {
                "post": op(
                    "create",
                    parameters=[
                        {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 10}}
                    ],
                    requestBody={"required": True, "content": {"application/json": {"schema": PET}}},
                    responses=RESPONSES,
                )
            },
            "/any": {
                "get": op("any", responses={"2XX": {"description": "ok"}, "default": {"description": "x"}})
            },
            "/strict": {"get": op("strict", responses={"200": {"description": "ok"}})},
            "/events": {
                "get": op(
                    "events",
                    responses={
                        "200": {
                            "description": "ok",
                            "content": {"text/event-stream": {"itemSchema": STREAM_ITEM}},
                        }
                    },
                )
            },
        }
    )


def _create(limit: Any = 5, payload: Any = None) -> dict:
    body = {"payload": payload if payload is not None else {"name": "Rex", "age": 3}}
    return step("create", "create", param("limit", "query", limit), requestBody=body)


def _reply(server: Any, status: int, body: Any, content_type: str = "application/json") -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    server.route("POST", "/pets")(lambda r: (status, text, {"Content-Type": content_type}))


def test_request_findings_are_warnings_under_warn_and_the_request_is_sent(tmp_path, server):
    _reply(server, 200, {"name": "Rex"})
    steps = [_create(limit=50, payload={"age": -1})]
    workflow = run_flow(tmp_path, server, _api(), steps, validate_requests="warn")
    assert workflow["status"] == "passed", workflow["error"]
    assert len(server.requests) == 1
    assert workflow["steps"][0]["warnings"] == [
        "request: query parameter 'limit': 50 is greater than the maximum of 10",
        'request: body: "name" is a required property; -1 is less than the minimum of 0 (at /age)',
    ]


def test_request_findings_fail_the_step_unsent_under_error(tmp_path, server):
    _reply(server, 200, {"name": "Rex"})
    workflow = run_flow(tmp_path, server, _api(), [_create(limit="many")], validate_requests="error")
    assert workflow["status"] == "failed"
    assert server.requests == []
    assert workflow["steps"][0]["error"] == (
        "request not sent: request validation failed: request: query parameter 'limit': "
        '"many" is not a valid integer'
    )


def test_a_valid_exchange_has_no_findings(tmp_path, server):
    _reply(server, 200, {"name": "Rex", "age": 3})
    options = {"validate_requests": "error", "validate_responses": "error"}
    workflow = run_flow(tmp_path, server, _api(), [_create()], **options)
    assert workflow["status"] == "passed", workflow["error"]
    assert "warnings" not in workflow["steps"][0]


def test_response_body_schema_and_content_type_findings(tmp_path, server):
    replies = iter([(200, '{"age": "x"}', "application/json"), (200, "<p/>", "text/html")])
    server.route("POST", "/pets")(lambda r: (lambda s, b, t: (s, b, {"Content-Type": t}))(*next(replies)))
    workflow = run_flow(tmp_path, server, _api(), [_create(), _create()], validate_responses="warn")
    assert workflow["status"] == "passed", workflow["error"]
    first, second = (s["warnings"] for s in workflow["steps"])
    where = f"contract: step 'create' ({tmp_path / 'flow.arazzo.yaml'}:12)"
    assert first == [
        f'{where}: response 200 application/json: body /age: wanted type integer, got string "x"',
        f"{where}: response 200 application/json: body /name: wanted a value (required), got nothing",
    ]
    where = where.replace(":12)", ":22)")
    assert second == [
        f"{where}: response 200 text/html: content-type: wanted one of application/json, got text/html"
    ]


def test_status_codes_match_exactly_by_range_or_default(tmp_path, server):
    statuses = iter([204, 299, 503])
    server.route("GET", "/any")(lambda r: (next(statuses), ""))
    server.route("GET", "/strict")(lambda r: (201, ""))
    _reply(server, 404, {"type": "about:blank"}, "application/problem+json")
    steps = [step("a", "any"), step("b", "any"), step("c", "any"), step("s", "strict"), _create()]
    for s in steps:
        s["successCriteria"] = [{"condition": "$statusCode > 0"}]
    workflow = run_flow(tmp_path, server, _api(), steps, validate_responses="warn")
    warnings = [s.get("warnings", []) for s in workflow["steps"]]
    assert warnings == [
        [],
        [],
        [],
        [
            f"contract: step 's' ({tmp_path / 'flow.arazzo.yaml'}:24): response 201: status: wanted a "
            "documented status (200), got 201"
        ],
        [],
    ]


def test_response_findings_fail_the_step_under_error_and_failure_actions_apply(tmp_path, server):
    server.route("GET", "/strict")(lambda r: (201, ""))
    server.route("GET", "/any")(lambda r: (200, ""))
    strict = step("s", "strict", onFailure=[{"name": "recover", "type": "goto", "stepId": "after"}])
    workflow = run_flow(tmp_path, server, _api(), [strict, step("after", "any")], validate_responses="error")
    failed, after = workflow["steps"]
    assert (failed["status"], failed["statusCode"]) == ("failed", 201)
    assert failed["error"] == (
        "HTTP 201: contract violated: response 201: status: wanted a documented status (200), got 201"
    )
    assert after["status"] == "passed"


def test_event_stream_items_are_checked_against_the_item_schema(tmp_path, server):
    stream = "event: tick\ndata: 1\n\nevent: tock\ndata: 2\n\n"
    server.route("GET", "/events")(lambda r: (200, stream, {"Content-Type": "text/event-stream"}))
    workflow = run_flow(tmp_path, server, _api(), [step("e", "events")], validate_responses="warn")
    assert workflow["steps"][0]["warnings"] == [
        f"contract: step 'e' ({tmp_path / 'flow.arazzo.yaml'}:12): response 200 text/event-stream: body "
        '(whole): wanted events fitting the itemSchema, got event 1: "tick" was expected (at /event)'
    ]


def test_cli_flags_switch_validation_on(tmp_path, server, capsys):
    _reply(server, 200, {"nope": 1})
    path = write_flow(tmp_path, _api(), [_create(limit=99)])
    argv = ["run", path, "--format", "json", "--server", f"api={server.url}"]
    result = cli(capsys, *argv, "--validate-requests", "warn", "--validate-responses", "error")
    assert result.code == 1
    got = step_result(result)
    assert got["warnings"] == ["request: query parameter 'limit': 99 is greater than the maximum of 10"]
    assert got["error"] == (
        "HTTP 200: contract violated: response 200 application/json: body /name: wanted a value (required), "
        "got nothing"
    )
    assert got["contract"] == [
        {
            "status": 200,
            "mediaType": "application/json",
            "part": "body",
            "pointer": "/name",
            "wanted": "a value (required)",
            "got": "nothing",
        }
    ]
    assert "note: --validate-responses error is --contract fail" in result.err
    assert cli(capsys, *argv, "--validate-responses", "sometimes").code == 2


def test_openapi_core_is_not_imported_when_validation_is_off(tmp_path, server):
    _reply(server, 200, {"name": "Rex"})
    path = write_flow(tmp_path, _api(), [_create()])
    code = (
        "import sys\n"
        "from arazzo_runner.cli import main\n"
        f"code = main(['run', {str(path)!r}, '--server', 'api={server.url}', '--format', 'json'])\n"
        "print('RESULT', code, 'openapi_core' in sys.modules, 'werkzeug' in sys.modules, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=30, check=False
    )
    assert "RESULT 0 False False" in proc.stderr, proc.stderr
    assert len(server.requests) == 1
