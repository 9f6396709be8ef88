"""Credentials the engine adds are not readable by expressions (issue 13, section 4), over real sockets.

A document could otherwise copy the credential the engine put on one request (`$request.header.
Authorization`, an apiKey's `$request.header.X` / `$request.query.x`, `$url`) into an output, and send it
to another host in a later step. What `$request` and `$url` show is what the document wrote itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

import arazzo_runner
from tests.e2e.httpkit import echo, op, openapi, param, step

SECRET = "s3cret-credential"
REASON = "credentials the engine adds are not readable by expressions"


def _write(
    folder: Path, scheme: dict, outputs: dict, leak_params: list[dict], required: bool = False
) -> Path:
    """Source `a`: operation `opA` secured by `scheme`; source `b` (another server): `opB`, unsecured, with
    optional (or required) parameters `X-Leak` (header) and `leak` (query)."""
    a = openapi(
        {"/opA": {"get": op("opA", security=[{"auth": []}])}},
        components={"securitySchemes": {"auth": scheme}},
    )
    declared = [
        {"name": "X-Leak", "in": "header", "required": required, "schema": {"type": "string"}},
        {"name": "leak", "in": "query", "schema": {"type": "string"}},
    ]
    b = openapi({"/opB": {"get": op("opB", parameters=declared)}})
    for name, description in (("a", a), ("b", b)):
        (folder / f"{name}.openapi.yaml").write_text(yaml.safe_dump(description, sort_keys=False))
    steps = [
        step("one", "$sourceDescriptions.a.opA", outputs=outputs),
        step("two", "$sourceDescriptions.b.opB", *leak_params),
    ]
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [
            {"name": "a", "url": "./a.openapi.yaml", "type": "openapi"},
            {"name": "b", "url": "./b.openapi.yaml", "type": "openapi"},
        ],
        "workflows": [{"workflowId": "flow", "steps": steps}],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _run(path: Path, a: Any, b: Any, **options: Any) -> dict[str, Any]:
    options.setdefault("environ", {})
    result = arazzo_runner.run(path, servers={"a": a.url, "b": b.url}, **options)
    [workflow] = result.to_dict()["workflows"]
    return workflow


def _received(server: Any) -> str:
    """Everything a server received, as one text (headers, query, body)."""
    return repr([(r.raw_headers, r.path, r.raw_query, r.body) for r in server.requests])


def test_an_engine_added_authorization_cannot_be_copied_to_another_host(tmp_path, server, other_server):
    echo(server), echo(other_server)
    outputs = {"leak": "$request.header.Authorization"}
    leak = [
        param("X-Leak", "header", "$steps.one.outputs.leak"),
        param("leak", "query", "{$steps.one.outputs.leak}"),
    ]
    path = _write(tmp_path, {"type": "http", "scheme": "bearer"}, outputs, leak)
    workflow = _run(path, server, other_server, auth={"auth": SECRET})
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"  # still sent where it belongs
    assert len(other_server.requests) == 1
    assert SECRET not in _received(other_server)
    one, two = workflow["steps"]
    assert one["request"]["url"] == f"{server.url}/opA"
    assert one["outputs"]["leak"] is None
    assert any(REASON in w and "'auth'" in w for w in one["warnings"]), one["warnings"]
    assert two["status"] == "passed"  # the output is null: nothing secret to send


def test_an_api_key_in_a_header_or_the_query_and_the_url_are_not_readable(tmp_path, server, other_server):
    echo(server), echo(other_server)
    for where, name, read in [
        ("header", "X-API-Key", "$request.header.X-API-Key"),
        ("query", "api_key", "$request.query.api_key"),
        ("query", "api_key", "$url"),
    ]:
        outputs = {"leak": read}
        leak = [param("X-Leak", "header", "$steps.one.outputs.leak")]
        scheme = {"type": "apiKey", "in": where, "name": name}
        path = _write(tmp_path, scheme, outputs, leak)
        workflow = _run(path, server, other_server, environ={"ARAZZO_AUTH_AUTH_API_KEY": SECRET})
        assert SECRET in _received(server)
        assert SECRET not in _received(other_server), read
        one = workflow["steps"][0]
        if read == "$url":  # the URL the document built: the engine's query credential left out
            assert one["outputs"]["leak"] == f"{server.url}/opA", read
        else:
            assert one["outputs"]["leak"] is None, read
            assert any(REASON in w for w in one["warnings"]), (read, one["warnings"])


def test_a_required_parameter_fed_by_a_credential_fails_the_step_unsent(tmp_path, server, other_server):
    echo(server), echo(other_server)
    outputs = {"leak": "$request.header.Authorization"}
    path = _write(
        tmp_path,
        {"type": "http", "scheme": "bearer"},
        outputs,
        [param("X-Leak", "header", "$steps.one.outputs.leak")],
        required=True,
    )
    workflow = _run(path, server, other_server, auth={"auth": SECRET})
    assert other_server.requests == []
    two = workflow["steps"][1]
    assert two["status"] == "failed"
    assert "required parameter 'X-Leak' (in header) has no value" in two["error"]
    assert REASON in two["error"]


def test_a_credential_the_document_wrote_itself_stays_readable(tmp_path, server, other_server):
    """The document's own `Authorization` parameter is its value: `$request` shows it (the engine adds
    nothing then)."""
    echo(server), echo(other_server)
    path = _write(
        tmp_path, {"type": "http", "scheme": "bearer"}, {"mine": "$request.header.Authorization"}, []
    )
    doc = yaml.safe_load(path.read_text())
    doc["workflows"][0]["steps"][0]["parameters"] = [param("Authorization", "header", "Bearer own-token")]
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    workflow = _run(path, server, other_server, auth={"auth": SECRET})
    assert server.requests[0].headers["authorization"] == "Bearer own-token"
    assert workflow["steps"][0]["outputs"]["mine"] == "Bearer own-token"
