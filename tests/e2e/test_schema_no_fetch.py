"""Schema validation never fetches anything (issue 13, section 1).

A schema `$ref` whose fragment is an anchor (`http://host/x#foo`, `file:///x.json#foo`) or a
`$dynamicRef` is not resolved by the engine's own `$ref` resolution; the JSON Schema validators
(`arazzo validate`'s payload check, openapi-core at run time, the event-stream item check, workflow inputs)
then used to fetch it themselves. Each must resolve only what the engine loaded and refuse the rest with
a clear message naming the reference and where it is written. Proved three ways: a local server that
counts requests (it must see none), an audit hook that records every urllib request and every opening
of the file outside the document's folder (none), and the message.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import arazzo_runner
from arazzo_runner.errors import ArazzoError
from arazzo_runner.executor.options import RunOptions
from tests.e2e.helpers import cli
from tests.e2e.httpkit import op, openapi, run_flow, step, write_flow
from tests.servers.scripted import ScriptedServer

_SEEN: dict[str, Any] = {"on": False, "events": [], "watched": ""}


def _audit(event: str, args: tuple) -> None:
    if not _SEEN["on"]:
        return
    if event == "urllib.Request":
        _SEEN["events"].append(("urllib", args[0]))
    elif event == "open" and isinstance(args[0], str) and _SEEN["watched"] and _SEEN["watched"] in args[0]:
        _SEEN["events"].append(("open", args[0]))


sys.addaudithook(_audit)  # process-wide and permanent: it does nothing unless a test switches it on


@pytest.fixture
def watch(tmp_path: Path):
    """Records urllib requests and openings of files under tmp_path/outside while the test runs."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = '{"$anchor": "foo", "type": "integer", "description": "SECRET-CONTENT"}'
    (outside / "secret.json").write_text(secret)
    _SEEN.update(on=True, events=[], watched=str(outside))
    yield _SEEN["events"]
    _SEEN.update(on=False, watched="")


@pytest.fixture
def ref_server():
    """The host a hostile schema names: it answers every GET with a schema, and counts the requests."""
    with ScriptedServer() as running:
        running.route("GET", "/.*")(lambda request: (200, {"$anchor": "foo", "type": "integer"}))
        yield running


def _outside(tmp_path: Path) -> Path:
    return tmp_path / "outside" / "secret.json"  # written by `watch`, before it watches


def _kinds(tmp_path: Path, ref_server: Any) -> dict[str, tuple[dict, str]]:
    """Each hostile reference: the schema and the text the message must quote."""
    http = f"{ref_server.url}/x#foo"
    file = _outside(tmp_path).as_uri() + "#foo"
    return {
        "http-anchor": ({"$ref": http}, f"$ref '{http}'"),
        "dynamic-ref": ({"$dynamicRef": http}, f"$dynamicRef '{http}'"),
        "file-anchor": ({"$ref": file}, f"$ref '{file}'"),
    }


KINDS = ["http-anchor", "dynamic-ref", "file-anchor"]


def _object(name_schema: dict) -> dict:
    return {"type": "object", "properties": {"name": name_schema}}


def _api(name_schema: dict, *, stream: bool = False) -> dict:
    if stream:
        content = {"text/event-stream": {"itemSchema": {"properties": {"data": name_schema}}}}
    else:
        content = {"application/json": {"schema": _object(name_schema)}}
    return openapi(
        {
            "/pets": {
                "post": op(
                    "create",
                    requestBody={"content": {"application/json": {"schema": _object(name_schema)}}},
                    responses={"200": {"description": "ok", "content": content}},
                )
            }
        }
    )


_STEP = step("create", "create", requestBody={"contentType": "application/json", "payload": {"name": "Rex"}})


def _quiet(events: list, *servers: Any) -> None:
    assert events == []
    for server in servers:
        assert server.requests == []


@pytest.mark.parametrize("kind", KINDS)
def test_validate_reports_the_reference_and_fetches_nothing(tmp_path, capsys, watch, ref_server, kind):
    schema, quoted = _kinds(tmp_path, ref_server)[kind]
    folder = tmp_path / "doc"
    folder.mkdir()
    path = write_flow(folder, _api(schema), [_STEP])
    result = cli(capsys, "validate", path, "--sandbox", folder)
    assert "warning schema-reference" in result.out, result.out
    assert quoted in result.out
    assert "api.openapi.yaml:" in result.out
    assert "never fetch" in result.out
    assert "SECRET-CONTENT" not in result.out + result.err
    _quiet(watch, ref_server)


@pytest.mark.parametrize("kind", KINDS)
def test_request_validation_refuses_the_reference_and_sends_nothing(
    tmp_path, watch, server, ref_server, kind
):
    schema, quoted = _kinds(tmp_path, ref_server)[kind]
    workflow = run_flow(tmp_path, server, _api(schema), [_STEP], validate_requests="error")
    assert workflow["status"] == "failed"
    message = workflow["steps"][0]["error"]
    assert message.startswith("request not sent: request validation failed: request: cannot resolve")
    assert quoted in message and "api.openapi.yaml:" in message and "never fetch" in message
    _quiet(watch, server, ref_server)


@pytest.mark.parametrize("kind", KINDS)
def test_response_validation_refuses_the_reference(tmp_path, watch, server, ref_server, kind):
    schema, quoted = _kinds(tmp_path, ref_server)[kind]
    server.route("POST", "/pets")(lambda request: (200, {"name": "Rex"}))
    workflow = run_flow(tmp_path, server, _api(schema), [_STEP], contract="fail")
    assert workflow["status"] == "failed"
    message = workflow["steps"][0]["error"]
    assert message.startswith(
        "HTTP 200: contract violated: response 200 application/json: body (whole): wanted a schema the body "
        "can be checked against, got cannot resolve"
    ), message
    assert quoted in message, message
    assert "api.openapi.yaml:" in message
    assert len(server.requests) == 1
    _quiet(watch, ref_server)


@pytest.mark.parametrize("kind", KINDS)
def test_event_stream_validation_refuses_the_reference(tmp_path, watch, server, ref_server, kind):
    schema, quoted = _kinds(tmp_path, ref_server)[kind]
    server.route("POST", "/pets")(lambda r: (200, "data: 1\n\n", {"Content-Type": "text/event-stream"}))
    workflow = run_flow(tmp_path, server, _api(schema, stream=True), [_STEP], contract="fail")
    assert workflow["status"] == "failed"
    message = workflow["steps"][0]["error"]
    assert message.startswith(
        "HTTP 200: contract violated: response 200 text/event-stream: body (whole): wanted events "
        "fitting the itemSchema, got cannot resolve"
    ), message
    assert quoted in message, message
    _quiet(watch, ref_server)


@pytest.mark.parametrize("kind", KINDS)
def test_an_inputs_schema_reference_outside_the_document_is_a_located_error(
    tmp_path, watch, server, ref_server, kind
):
    schema, quoted = _kinds(tmp_path, ref_server)[kind]
    with pytest.raises(ArazzoError) as caught:
        run_flow(tmp_path, server, _api({}), [_STEP], schema=_object(schema), inputs={"name": "Rex"})
    message = str(caught.value)
    keyword, _, ref = quoted.partition(" ")
    assert f"component-reference: '{keyword}: {ref[1:-1]}' names another document" in message
    assert "never fetch" in message
    assert "flow.arazzo.yaml:" in message  # where the reference is written
    _quiet(watch, server, ref_server)


@pytest.mark.parametrize("kind", KINDS)
def test_cli_run_with_an_inputs_schema_reference_is_refused(
    tmp_path, capsys, watch, server, ref_server, kind
):
    schema, quoted = _kinds(tmp_path, ref_server)[kind]
    folder = tmp_path / "doc"
    folder.mkdir()
    path = write_flow(folder, _api({}), [_STEP], inputs=_object(schema))
    argv = ["--server", f"api={server.url}", "--input", "name=Rex", "--sandbox", folder]
    result = cli(capsys, "run", path, *argv)
    assert result.code == 2
    keyword, _, ref = quoted.partition(" ")
    assert f"error component-reference: '{keyword}: {ref[1:-1]}' names another document" in result.err
    assert "never fetch" in result.err and "flow.arazzo.yaml:" in result.err
    assert "nothing was run" in result.err
    _quiet(watch, server, ref_server)


# -- what the engine loaded resolves: anchors in the description and in a document it reached ------------


def _anchored_api(tmp_path: Path) -> dict:
    (tmp_path / "common.yaml").write_text(
        yaml.safe_dump({"$defs": {"age": {"$anchor": "age", "type": "integer", "minimum": 0}}})
    )
    pet = {
        "$anchor": "pet",
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "age": {"$ref": "common.yaml#age"},
            "also": {"$ref": "common.yaml#/$defs/age"},  # a pointer ref: the engine loads common.yaml
        },
    }
    api = openapi(
        {
            "/pets": {
                "post": op(
                    "create",
                    requestBody={"content": {"application/json": {"schema": {"$ref": "#pet"}}}},
                    responses={"200": {"description": "ok"}},
                )
            }
        },
        components={"schemas": {"Pet": pet}},
    )
    return api


def test_anchors_in_loaded_documents_resolve_at_run(tmp_path, watch, server):
    server.route("POST", "/pets")(lambda request: (200, {}))
    bad = step("create", "create", requestBody={"contentType": "application/json", "payload": {"age": -1}})
    workflow = run_flow(tmp_path, server, _anchored_api(tmp_path), [bad], validate_requests="warn")
    assert workflow["status"] == "passed", workflow["error"]
    [finding] = workflow["steps"][0]["warnings"]
    assert finding == (
        'request: body: "name" is a required property; -1 is less than the minimum of 0 (at /age)'
    )
    assert watch == []


def test_anchors_in_loaded_documents_resolve_in_validate(tmp_path, capsys, watch):
    bad = step("create", "create", requestBody={"contentType": "application/json", "payload": {"age": -1}})
    path = write_flow(tmp_path, _anchored_api(tmp_path), [bad])
    result = cli(capsys, "validate", path)
    assert "schema-reference" not in result.out
    assert '"name" is required' in result.out, result.out
    assert "-1 is less than the minimum of 0" in result.out
    assert watch == []


def test_an_anchor_in_the_arazzo_document_resolves_for_inputs(tmp_path, server):
    path = write_flow(tmp_path, _api({}), [_STEP], inputs={"$ref": "#named"})
    doc = yaml.safe_load(path.read_text())
    doc["components"] = {
        "inputs": {"named": {"$anchor": "named", "type": "object", "required": ["name"], "oneOf": [{}]}}
    }
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ArazzoError) as caught:
        arazzo_runner.run(path, None, {}, options=RunOptions(servers={"api": server.url}, environ={}))
    assert 'inputs: "name" is required but was not provided' in str(caught.value)
    assert server.requests == []


# -- validate flags what the run refuses: a reference under an `$id`, a discriminator mapping ------------


def _body_api(schema: dict) -> dict:
    """`schema` as the request body's own schema (the payload is `{"name": "Rex"}`)."""
    body = {"content": {"application/json": {"schema": schema}}}
    api = openapi({"/pets": {"post": op("create", requestBody=body)}})
    api["components"] = {"schemas": {"A": {"type": "object", "required": ["name"]}}}
    return api


def _id_and_mapping_kinds(ref_server: Any) -> dict[str, tuple[dict, str]]:
    base = f"{ref_server.url}/base/"
    remote = f"{ref_server.url}/d.json#foo"
    return {
        "id-anchor": (
            {"$id": base, "type": "object", "properties": {"name": {"$ref": "#foo"}}},
            "cannot resolve $ref '#foo' (",
        ),
        "id-anchor-inside": (  # the anchor is there, inside the `$id` resource: not where refs resolve
            {
                "$id": base,
                "type": "object",
                "properties": {"name": {"$ref": "#named"}},
                "$defs": {"named": {"$anchor": "named", "type": "string"}},
            },
            f"the $id '{base}' around it does not change that: it resolves against the description",
        ),
        "remote-mapping": (
            {
                "oneOf": [{"$ref": "#/components/schemas/A"}],
                "discriminator": {"propertyName": "name", "mapping": {"Rex": remote}},
            },
            f"discriminator mapping '{remote}': the engine did not load that document",
        ),
    }


@pytest.mark.parametrize("kind", ["id-anchor", "id-anchor-inside", "remote-mapping"])
def test_validate_flags_what_the_run_refuses_under_an_id_or_in_a_mapping(
    tmp_path, capsys, watch, server, ref_server, kind
):
    schema, quoted = _id_and_mapping_kinds(ref_server)[kind]
    server.route("POST", "/pets")(lambda request: (200, {"name": "Rex"}))
    path = write_flow(tmp_path, _body_api(schema), [_STEP])
    result = cli(capsys, "validate", path)
    assert "warning schema-reference" in result.out, result.out
    assert quoted in result.out, result.out
    assert "--validate-requests and the contract checks fail on it" in result.out
    workflow = run_flow(tmp_path, server, _body_api(schema), [_STEP], validate_requests="error")
    message = workflow["steps"][0]["error"]  # the run refuses it too, unsent
    assert message.startswith("request not sent: request validation failed: request: "), message
    assert "resolve" in message, message
    _quiet(watch, server, ref_server)


def test_anchors_and_mappings_that_resolve_are_not_flagged(tmp_path, capsys, watch, server, ref_server):
    anchored = {
        "type": "object",
        "properties": {"name": {"$ref": "#named"}},
        "$defs": {"named": {"$anchor": "named", "type": "string"}},
    }
    mapped = {
        "oneOf": [{"$ref": "#/components/schemas/A"}],
        "discriminator": {"propertyName": "name", "mapping": {"Rex": "#/components/schemas/A"}},
    }
    server.route("POST", "/pets")(lambda request: (200, {"name": "Rex"}))
    for schema in (anchored, mapped):
        path = write_flow(tmp_path, _body_api(schema), [_STEP])
        assert "schema-reference" not in cli(capsys, "validate", path).out
        workflow = run_flow(tmp_path, server, _body_api(schema), [_STEP], validate_requests="error")
        assert workflow["status"] == "passed", workflow["steps"][0].get("error")
    assert ref_server.requests == [] and watch == []
