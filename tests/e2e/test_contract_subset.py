"""A one-step `arazzo run` whose response schema is of the common subset checks the body without importing
jsonschema-rs (`http/contract_subset.py`), and a body that does not fit is reported in the words the
general path uses (tests/unit/test_simple_schema_responses.py holds the two paths to the same output)."""

from __future__ import annotations

import json

from tests.e2e.test_import_costs import _modules_after

PET = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": {"type": "integer", "format": "int64"}, "name": {"type": "string"}},
}


def _project(folder, schema: dict) -> None:
    api = {
        "openapi": "3.0.3",
        "info": {"title": "pets", "version": "1"},
        "paths": {
            "/pets/{petId}": {
                "get": {
                    "operationId": "getPet",
                    "parameters": [
                        {"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {
                        "200": {"description": "ok", "content": {"application/json": {"schema": schema}}}
                    },
                }
            }
        },
    }
    (folder / "pets.openapi.json").write_text(json.dumps(api))
    step = {
        "stepId": "get",
        "operationId": "getPet",
        "parameters": [{"name": "petId", "in": "path", "value": "1"}],
        "successCriteria": [{"condition": "$statusCode == 200"}],
    }
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "pets", "url": "./pets.openapi.json", "type": "openapi"}],
        "workflows": [{"workflowId": "w", "steps": [step]}],
    }
    (folder / "flow.arazzo.json").write_text(json.dumps(doc))


def _run(folder, server) -> dict:
    code = (
        "import contextlib, io, os\n"
        f"os.environ['ARAZZO_CACHE_DIR'] = {str(folder / 'cache')!r}\n"
        "from arazzo_runner.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):\n"
        f"    code = main(['run', 'flow.arazzo.json', '--server', 'pets={server.url}'])\n"
        "report = {'code': code, 'out': out.getvalue()}\n"
    )
    return _modules_after(code, folder)


def test_a_response_of_the_subset_is_checked_without_jsonschema_rs(tmp_path, server, other_server) -> None:
    _project(tmp_path, PET)
    rex = (200, {"id": 1, "name": "Rex"})
    server.reply("GET", "/pets/{petId}", rex, rex, (200, {"id": "one"}))
    assert _run(tmp_path, server)["code"] == 0  # validates the document: the validation cache filled
    fits = _run(tmp_path, server)
    assert fits["code"] == 0 and "wanted" not in fits["out"]
    assert "jsonschema_rs" not in fits["modules"] and "jsonschema" not in fits["modules"]
    drifts = _run(tmp_path, server)  # warn (the default): reported, the step passes
    assert drifts["code"] == 0
    assert 'response 200 application/json: body /id: wanted type integer, got string "one"' in drifts["out"]
    assert (
        "response 200 application/json: body /name: wanted a value (required), got nothing" in drifts["out"]
    )
    assert "jsonschema_rs" not in drifts["modules"]
    assert len(server.requests) == 3
    # a schema outside the subset (a pattern) still goes the general way
    other = tmp_path / "other"
    other.mkdir()
    _project(other, {**PET, "properties": {**PET["properties"], "name": {"type": "string", "pattern": "^R"}}})
    other_server.reply("GET", "/pets/{petId}", (200, {"id": 1, "name": "Max"}))
    found = _run(other, other_server)
    assert 'body /name: wanted a string matching "^R", got "Max"' in found["out"]
    assert "jsonschema_rs" in found["modules"]
