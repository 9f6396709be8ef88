"""Respect's `x-security` (docs/semantics.md, *Extensions*) on an operation that declares no security
requirement of its own, over a real local server, without the corpus's fixtures: the step's entry and
its workflow's are applied (a step that awaits nothing while preparing is built by `prepared_now`,
which must leave such a step to `prepare_request`), and the value is a secret from then on."""

from __future__ import annotations

import yaml

from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

API_KEY = {
    "scheme": {"type": "apiKey", "name": "X-API-KEY", "in": "header"},
    "values": {"apiKey": "$inputs.key"},
}
BEARER = {"scheme": {"type": "http", "scheme": "bearer"}, "values": {"token": "$inputs.key"}}


def _write(folder, step_entries, workflow_entries):
    openapi = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {"/menu": {"get": {"operationId": "menu", "responses": {"200": {"description": "ok"}}}}},
    }
    step = {"stepId": "s", "operationId": "menu", "successCriteria": [{"condition": "$statusCode == 200"}]}
    if step_entries:
        step["x-security"] = step_entries
    workflow = {
        "workflowId": "w",
        "inputs": {"type": "object", "properties": {"key": {"type": "string"}}},
        "steps": [step],
    }
    if workflow_entries:
        workflow["x-security"] = workflow_entries
    document = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.yaml", "type": "openapi"}],
        "workflows": [workflow],
    }
    (folder / "api.yaml").write_text(yaml.safe_dump(openapi), encoding="utf-8")
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def _run(tmp_path, capsys, step_entries, workflow_entries):
    path = _write(tmp_path, step_entries, workflow_entries)
    with ScriptedServer() as server:
        server.route("GET", "/menu")(lambda request: (200, {"ok": True}))
        run = cli(capsys, "run", path, "--server", f"api={server.url}", "--input", "key=k3y-value-9")
        requests = list(server.requests)
    assert run.code == 0, run.out + run.err
    assert "k3y-value-9" not in run.out + run.err
    return requests


def test_a_steps_x_security_applies_on_an_operation_without_a_security_requirement(tmp_path, capsys):
    [request] = _run(tmp_path, capsys, [API_KEY], None)
    assert request.headers["x-api-key"] == "k3y-value-9"


def test_a_workflows_x_security_applies_to_its_step(tmp_path, capsys):
    [request] = _run(tmp_path, capsys, None, [BEARER])
    assert request.headers["authorization"] == "Bearer k3y-value-9"
