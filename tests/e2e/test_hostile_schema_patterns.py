"""JSON Schema patterns written to stall the validators (issue 13, round 3): every `pattern`,
`patternProperties` and `format: regex` the engine's validators check is matched by the bounded matcher of
the regex criteria (`arazzo_runner/bounds/patterns.py`), so `--validate-requests`, the contract checks, the
event-stream item check, workflow inputs and `arazzo validate` end within their bound and `--deadline`.

`^(a|aa)+$` on forty `a`s and a `!` backtracks about 10^8 times before failing: 10.8 s in Python's `re`
(in C, where nothing interrupts it) before this was fixed. Every test bounds the CPU time of this process
(`tests/cputime.py`), never the wall clock, and runs the real CLI against a real local server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from arazzo_runner.bounds import limits
from tests.cputime import cpu_bound
from tests.e2e.helpers import cli
from tests.e2e.httpkit import op, openapi, param, step, write_flow

LONG = "a" * 40 + "!"
SLOW = "^(a|aa)+$"
STOPPED = f"pattern '{SLOW}' could not be checked: matching was stopped after 0.5 s on 41 characters"
ON_DEADLINE = (
    f"pattern '{SLOW}' could not be checked: matching was stopped on 41 characters: run deadline of 2 s"
)
OBJECT_KEY = {LONG: 1}
D2020 = "https://json-schema.org/draft/2020-12/schema"


@pytest.fixture
def short_patterns(monkeypatch):
    """The schema patterns of one check may match for 0.5 s (5 s by default), so no test waits long."""
    monkeypatch.setattr(limits, "SCHEMA_PATTERN_TIMEOUT", 0.5)


def _api(response: dict, version: str = "3.1.0", request: dict | None = None, **extra: Any) -> dict:
    operation = op("get", responses={"200": {"description": "ok", **response}}, **extra)
    if request is not None:
        operation["requestBody"] = {"content": {"application/json": {"schema": request}}}
    return {**openapi({"/thing": {"post": operation}}), "openapi": version}


def _json(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


def _run(capsys, path, server, *argv: Any) -> Any:
    result = cli(capsys, "run", path, "--server", f"api={server.url}", "--format", "json", *argv)
    return result, result.json


def _step(capsys, path, server, what: str, *argv: Any) -> tuple[int, dict]:
    """(exit code, the first step's result) of a run, within 8 s of CPU."""
    with cpu_bound(8, what):
        result, report = _run(capsys, path, server, *argv)
    return result.code, report["workflows"][0]["steps"][0]


# -- responses: every validator class openapi-core picks, every keyword that matches a pattern ---------

NAME = {"properties": {"name": {"type": "string", "pattern": SLOW}}}
RESPONSES = {
    "pattern, OpenAPI 3.1": ("3.1.0", NAME, {"name": LONG}),
    "pattern, OpenAPI 3.0": ("3.0.3", NAME, {"name": LONG}),
    "pattern, OpenAPI 3.2": ("3.2.0", NAME, {"name": LONG}),
    "pattern, $schema 2020-12": ("3.1.0", {"$schema": D2020, **NAME}, {"name": LONG}),
    "pattern, $schema draft-07": ("3.1.0", {"$schema": "http://json-schema.org/draft-07/schema#", **NAME},
                                  {"name": LONG}),
    "pattern in an array": ("3.1.0", {"items": {"pattern": SLOW}}, ["aa", LONG]),
    "patternProperties": ("3.1.0", {"patternProperties": {SLOW: {"type": "integer"}}}, OBJECT_KEY),
    "additionalProperties": ("3.1.0", {"additionalProperties": False, "patternProperties": {SLOW: {}}},
                             OBJECT_KEY),
    "additionalProperties, OpenAPI 3.0": ("3.0.3", {"additionalProperties": False,
                                                    "patternProperties": {SLOW: {}}}, OBJECT_KEY),
    "unevaluatedProperties": ("3.1.0", {"unevaluatedProperties": False, "patternProperties": {SLOW: {}}},
                              OBJECT_KEY),
    "unevaluatedProperties, $schema 2019-09": (
        "3.1.0",
        {"$schema": "https://json-schema.org/draft/2019-09/schema", "unevaluatedProperties": False,
         "patternProperties": {SLOW: {}}},
        OBJECT_KEY,
    ),
    "unevaluatedProperties through allOf": (
        "3.1.0", {"unevaluatedProperties": False, "allOf": [{"patternProperties": {SLOW: {}}}]}, OBJECT_KEY
    ),
    "propertyNames": ("3.1.0", {"propertyNames": {"pattern": SLOW}}, OBJECT_KEY),
    "oneOf branch": ("3.1.0", {"properties": {"name": {"oneOf": [{"type": "integer"}, {"pattern": SLOW}]}}},
                     {"name": LONG}),
    "not": ("3.1.0", {"properties": {"name": {"not": {"pattern": SLOW}}}}, {"name": LONG}),
}  # fmt: skip


# jsonschema-rs matches these patterns in linear time (the Rust `regex` crate) and the body fits: no
# explanation is asked of jsonschema, whose patterns would backtrack
FITS = ("patternProperties", "not")


@pytest.mark.parametrize("case", RESPONSES)
def test_a_response_pattern_that_backtracks_fails_the_step_and_says_why(
    capsys, tmp_path, server, short_patterns, case
):
    version, schema, body = RESPONSES[case]
    server.route("POST", "/thing")(lambda request: (200, body))
    path = write_flow(tmp_path, _api(_json(schema), version), [step("s", "get")])
    with cpu_bound(8, f"a run validating a response ({case})"):
        result, report = _run(capsys, path, server, "--contract", "fail")
    got = report["workflows"][0]["steps"][0]
    if case in FITS:
        assert (result.code, got["status"], "contract" in got) == (0, "passed", False)
        return
    assert result.code == 1, result.out
    assert got["status"] == "failed"
    assert got["error"] == (
        "HTTP 200: contract violated: response 200 application/json: body (whole): wanted a body checked in "
        f"time, got {STOPPED} (the pattern backtracks catastrophically); the rest of the body was not "
        "validated"
    )


def test_under_warn_the_stopped_pattern_is_a_warning_never_a_silent_pass(
    capsys, tmp_path, server, short_patterns
):
    server.route("POST", "/thing")(lambda request: (200, {"name": LONG}))
    path = write_flow(tmp_path, _api(_json(NAME)), [step("s", "get")])
    with cpu_bound(8, "a run validating a response under warn"):
        result, report = _run(capsys, path, server)  # warn: the default
    assert result.code == 0, result.out
    [warning] = report["workflows"][0]["steps"][0]["warnings"]
    assert warning.startswith(f"contract: step 's' ({path}:")
    assert f"got {STOPPED} (the pattern backtracks catastrophically)" in warning


def test_a_response_header_pattern_is_bounded(capsys, tmp_path, server, short_patterns):
    headers = {"X-Name": {"schema": {"type": "string", "pattern": SLOW}}}
    server.route("POST", "/thing")(lambda request: (200, "", {"X-Name": LONG}))
    path = write_flow(tmp_path, _api({"headers": headers}), [step("s", "get")])
    with cpu_bound(8, "a run validating a response header"):
        result, report = _run(capsys, path, server, "--contract", "fail")
    assert result.code == 1
    assert report["workflows"][0]["steps"][0]["error"] == (
        "HTTP 200: contract violated: response 200: header X-Name: wanted a body checked in time, got "
        f"{STOPPED} (the pattern backtracks catastrophically); the rest of the body was not validated"
    )


def test_the_deadline_ends_a_run_stuck_in_a_response_pattern(capsys, tmp_path, server):
    """Under the default bound (5 s of matching per check), the run still ends at its deadline."""
    server.route("POST", "/thing")(lambda request: (200, {"name": LONG}))
    path = write_flow(tmp_path, _api(_json(NAME)), [step("s", "get"), step("t", "get")])
    with cpu_bound(8, "a run with --deadline 2 validating a response"):
        result, report = _run(capsys, path, server, "--contract", "fail", "--deadline", 2)
    assert result.code == 1
    workflow = report["workflows"][0]
    first = workflow["steps"][0]
    assert first["status"] == "failed"
    assert ON_DEADLINE in first["error"]
    assert ON_DEADLINE in workflow["error"]["message"]
    assert len(server.requests) == 1  # the second step never ran


def test_uniqueness_of_many_objects_is_decided_in_linear_time(capsys, tmp_path, server):
    """jsonschema compared the items of `uniqueItems` pairwise when they are objects: 20,000 of them were
    2 * 10^8 comparisons in pure Python (minutes), stopped only by a run deadline. The check is linear
    now (sources/schema_keywords.py, issue 38): the repeated item is found, and explained, at once."""
    items = [{"i": i} for i in range(20_000)] + [{"i": 0}]
    server.route("POST", "/thing")(lambda request: (200, items))
    path = write_flow(tmp_path, _api(_json({"type": "array", "uniqueItems": True})), [step("s", "get")])
    with cpu_bound(8, "a run validating 20,000 objects for uniqueness"):
        result, report = _run(capsys, path, server, "--contract", "fail", "--deadline", 60)
    assert result.code == 1
    error = report["workflows"][0]["steps"][0]["error"]
    assert error == (
        "HTTP 200: contract violated: response 200 application/json: body (whole): wanted unique items "
        "(uniqueItems), got item 20000 repeating item 0: an object"
    )


def test_an_event_stream_item_pattern_is_bounded(capsys, tmp_path, server, short_patterns):
    item = {"type": "object", "properties": {"data": {"pattern": SLOW}}}
    stream = f"data: aa\n\ndata: {LONG}\n\n"
    server.route("POST", "/thing")(lambda request: (200, stream, {"Content-Type": "text/event-stream"}))
    media = {"content": {"text/event-stream": {"itemSchema": item}}}
    path = write_flow(tmp_path, _api(media), [step("s", "get")])
    code, got = _step(capsys, path, server, "a run validating an event stream", "--contract", "fail")
    assert code == 1
    assert got["error"] == (
        "HTTP 200: contract violated: response 200 text/event-stream: body (whole): wanted events fitting "
        f"the itemSchema, got event 1: {STOPPED} (the pattern backtracks catastrophically); the rest of the "
        "stream was not validated"
    )


FORMAT_REGEX = {
    "nested too deeply for re": ("(" * 600, 'body /value: wanted format "regex", got "(((('),
    # a valid pattern (the last alternative is empty): jsonschema-rs reads it in linear time, and no
    # explanation is asked of jsonschema, whose `re` would take 0.7 s per MB
    "6 MB": ("ab|" * 2_000_000, None),
}  # fmt: skip


@pytest.mark.parametrize("case", FORMAT_REGEX)
def test_a_format_regex_value_is_read_within_the_bound(capsys, tmp_path, server, monkeypatch, case):
    """`format: regex` compiles the server's value: jsonschema-rs decides, and jsonschema (with `re`:
    pure Python, linear, yet 0.7 s per MB; stopped with the rest) explains a value that is not one; a
    value nested too deeply for `re` is simply not a regex."""
    monkeypatch.setattr(limits, "SCHEMA_PATTERN_TIMEOUT", 0.2)
    value, expected = FORMAT_REGEX[case]
    schema = {"properties": {"value": {"type": "string", "format": "regex"}}}
    server.route("POST", "/thing")(lambda request: (200, {"value": value}))
    path = write_flow(tmp_path, _api(_json(schema)), [step("s", "get")])
    code, got = _step(capsys, path, server, f"format: regex ({case})", "--contract", "fail")
    if expected is None:
        assert (code, got["status"], "contract" in got) == (0, "passed", False)
    else:
        assert code == 1
        assert expected in got["error"]


# -- requests ------------------------------------------------------------------------------------------


def test_a_request_parameter_pattern_fails_the_step_unsent(capsys, tmp_path, server, short_patterns):
    parameters = [{"name": "q", "in": "query", "schema": {"type": "string", "pattern": SLOW}}]
    server.route("POST", "/thing")(lambda request: (200, {}))
    api = _api({}, parameters=parameters)
    path = write_flow(tmp_path, api, [step("s", "get", param("q", "query", LONG))])
    code, got = _step(
        capsys, path, server, "a run validating a request parameter", "--validate-requests", "error"
    )
    assert code == 1
    assert got["error"] == (
        f"request not sent: request validation failed: request: {STOPPED} (the pattern backtracks "
        "catastrophically); the rest of the request was not validated"
    )
    assert server.requests == []


def test_a_request_body_pattern_is_bounded(capsys, tmp_path, server, short_patterns):
    server.route("POST", "/thing")(lambda request: (200, {}))
    body = {"contentType": "application/json", "payload": {"name": LONG}}
    path = write_flow(tmp_path, _api({}, request=NAME), [step("s", "get", requestBody=body)])
    with cpu_bound(8, "a run validating a request body"):
        result, report = _run(capsys, path, server, "--validate-requests", "error")
    assert result.code == 1
    assert STOPPED in report["workflows"][0]["steps"][0]["error"]
    assert server.requests == []


def test_a_deep_object_parameter_whose_name_is_a_pattern_is_not_handed_to_openapi_core(
    capsys, tmp_path, server
):
    """openapi-core finds a deepObject parameter by searching the query's keys with its name as a regular
    expression (in `re`): a name such as `(a|aa)+` never ends on keys of forty `a`s. Such a parameter
    is left out of the check, with a finding that says so; the others are checked."""
    parameters = [
        {"name": "(a|aa)+", "in": "query", "style": "deepObject", "explode": True,
         "schema": {"type": "object"}},
        {"name": "n", "in": "query", "schema": {"type": "integer"}},
    ]  # fmt: skip
    server.route("POST", "/thing")(lambda request: (200, {}))
    values = [param("(a|aa)+", "query", {LONG: "1"}), param("n", "query", "x")]
    steps = [step("s", "get", *values)]
    path = write_flow(tmp_path, _api({}, parameters=parameters), steps, version="1.0.1")  # no selectors
    with cpu_bound(8, "a run validating a deepObject parameter"):
        result, report = _run(capsys, path, server, "--validate-requests", "warn")
    assert result.code == 0, result.out
    assert report["workflows"][0]["steps"][0]["warnings"] == [
        "request: query parameter '(a|aa)+' (style deepObject) was not validated: openapi-core reads its "
        "name as a regular expression",
        "request: query parameter 'n': \"x\" is not a valid integer",
    ]


# -- workflow inputs -----------------------------------------------------------------------------------

INPUT_SCHEMAS = {
    "the common subset (no jsonschema)": {"type": "object", "properties": {"name": {"pattern": SLOW}}},
    "jsonschema": {"type": "object",
                   "properties": {"name": {"oneOf": [{"pattern": SLOW}, {"type": "integer"}]}}},
    "jsonschema, patternProperties": {"type": "object", "patternProperties": {SLOW: {}},
                                      "additionalProperties": False},
}  # fmt: skip


@pytest.mark.parametrize("case", INPUT_SCHEMAS)
def test_an_inputs_pattern_is_bounded_and_is_a_usage_error(capsys, tmp_path, server, short_patterns, case):
    path = write_flow(tmp_path, _api({}), [step("s", "get")], inputs=INPUT_SCHEMAS[case])
    name = LONG if "patternProperties" in case else "name"
    with cpu_bound(8, f"a run validating its inputs ({case})"):
        result, report = _run(capsys, path, server, "--input", f"{name}={LONG}")
    assert result.code == 2, result.out
    [error] = report["errors"]
    assert STOPPED in error["message"]
    assert server.requests == []


def test_the_deadline_ends_inputs_validation(capsys, tmp_path, server):
    path = write_flow(tmp_path, _api({}), [step("s", "get")], inputs=INPUT_SCHEMAS["jsonschema"])
    with cpu_bound(8, "a run with --deadline 2 validating its inputs"):
        result, report = _run(capsys, path, server, "--input", f"name={LONG}", "--deadline", 2)
    assert result.code == 2
    assert ON_DEADLINE in report["errors"][0]["message"]


# -- arazzo validate -----------------------------------------------------------------------------------


def test_validate_stops_a_payload_pattern_and_reports_it(capsys, tmp_path, short_patterns):
    body = {"contentType": "application/json", "payload": {"name": LONG}}
    path = write_flow(tmp_path, _api({}, request=NAME), [step("s", "get", requestBody=body)])
    with cpu_bound(8, "arazzo validate of a payload"):
        result = cli(capsys, "validate", path)
    assert result.code == 0, result.out  # the rule's severity: a warning, by default
    assert (
        "warning payload-schema: payload could not be checked against the application/json schema of "
        f"'get': {STOPPED}"
    ) in result.out


def test_validate_stops_an_asyncapi_message_payload_pattern(capsys, tmp_path, short_patterns):
    from tests.e2e.eventkit import events_doc, orders_asyncapi, send_step, write_events

    asyncapi = orders_asyncapi("mqtt")
    schema = asyncapi["components"]["messages"]["OrderRequest"]["payload"]
    schema["properties"]["requestId"]["pattern"] = SLOW
    path = write_events(tmp_path, events_doc(send_step("place", request_id=LONG)), asyncapi)
    with cpu_bound(8, "arazzo validate of a message payload"):
        result = cli(capsys, "validate", path)
    assert result.code == 0, result.out
    assert (
        "warning message-payload: payload could not be checked against the message schema of channel "
        f"'orderRequests': {STOPPED}"
    ) in result.out


def test_the_official_schemas_check_a_long_document_value_in_linear_time(capsys, tmp_path):
    """jsonschema-rs (the first validator of the official Arazzo schemas) matches a pattern without
    lookaround or backreferences with the Rust `regex` crate, in linear time, and the others (`^(?!\\$).+$`
    in 1.1) with fancy-regex under its backtracking limit; a document it rejects is explained by
    jsonschema, with the bounded class. A source named by 4 MB of `a`s and a `!` takes well under a second."""
    long_name = "a" * 4_000_000 + "!"
    doc = {
        "arazzo": "1.1.0",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": long_name, "url": "./api.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "w", "steps": [{"stepId": "s", "operationId": "get"}]}],
    }
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(json.dumps(doc))
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(_api({})))
    with cpu_bound(5, "arazzo validate of a document with a long name"):
        result = cli(capsys, "validate", path)
    assert result.code == 1
    assert "does not match the pattern ^[A-Za-z0-9_\\-]+$" in result.out
