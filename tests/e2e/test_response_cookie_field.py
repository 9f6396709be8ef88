"""The cookie values a response carries become secrets (docs/security.md): those of a `Set-Cookie` field
and those of a `Cookie` field alike (the engine reads a response's cookies only when it has one of the
two fields, `attempt_operation`), so a body echoing one is masked wherever it is printed. A real local
server."""

from __future__ import annotations

import pytest
import yaml

from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

VALUE = "c00kie-val-77"


def _write(folder):
    openapi = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {"/who": {"get": {"operationId": "who", "responses": {"200": {"description": "ok"}}}}},
    }
    document = {
        "arazzo": "1.1.0",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.yaml", "type": "openapi"}],
        "workflows": [
            {
                "workflowId": "w",
                "steps": [
                    {
                        "stepId": "s",
                        "operationId": "who",
                        "successCriteria": [{"condition": "$statusCode == 200"}],
                        "outputs": {"echo": "$response.body#/v"},
                    }
                ],
                "outputs": {"echo": "$steps.s.outputs.echo"},
            }
        ],
    }
    (folder / "api.yaml").write_text(yaml.safe_dump(openapi), encoding="utf-8")
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("field", ["Cookie", "Set-Cookie"])
def test_a_responses_cookie_value_echoed_in_its_body_is_masked(tmp_path, capsys, field):
    path = _write(tmp_path)
    with ScriptedServer() as server:
        server.route("GET", "/who")(lambda request: (200, {"v": VALUE}, {field: f"sid={VALUE}"}))
        run = cli(capsys, "run", path, "--server", f"api={server.url}", "--verbose")
    assert run.code == 0, run.out + run.err
    assert '    echo: "***"\n' in run.out
    assert VALUE not in run.out + run.err
