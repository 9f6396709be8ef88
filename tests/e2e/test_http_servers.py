"""Choosing the base URL: OpenAPI servers and their variables, --server and --server-var."""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urlsplit

import yaml

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, step, workflow

CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens there


def _openapi(servers: list[dict] | None, operation_servers: list[dict] | None = None) -> dict[str, Any]:
    openapi = copy.deepcopy(PETS_OPENAPI)
    if servers is None:
        del openapi["servers"]
    else:
        openapi["servers"] = servers
    if operation_servers is not None:
        openapi["paths"]["/pets"]["get"]["servers"] = operation_servers
    return openapi


def _list_doc() -> dict:
    return arazzo_doc(workflow("flow", op_step("list", "listPets", outputs={"url": "$url"})))


def _port(server: Any) -> int:
    return urlsplit(server.url).port


def test_server_variables_default_into_the_url_template(capsys, write, server):
    server.reply("GET", "/v1/pets", (200, []))
    variables = {"port": {"default": str(_port(server))}, "version": {"default": "v1", "enum": ["v1", "v2"]}}
    path = write(
        _list_doc(), openapi=_openapi([{"url": "http://127.0.0.1:{port}/{version}", "variables": variables}])
    )
    result = run_json(capsys, path)
    assert result.code == 0, result.out
    assert server.requests[0].path == "/v1/pets"
    assert step(result)["outputs"] == {"url": f"{server.url}/v1/pets"}


def test_server_var_overrides_a_default_by_name_or_source_dot_name(capsys, write, server):
    server.reply("GET", "/v2/pets", (200, []))
    variables = {"port": {"default": "9"}, "version": {"default": "v1"}}
    path = write(
        _list_doc(), openapi=_openapi([{"url": "http://127.0.0.1:{port}/{version}", "variables": variables}])
    )
    result = run_json(
        capsys, path, "--server-var", f"port={_port(server)}", "--server-var", "pets.version=v2"
    )
    assert result.code == 0, result.out
    assert [r.path for r in server.requests] == ["/v2/pets"]


def test_server_var_selects_the_server_that_declares_it(capsys, write, server):
    server.reply("GET", "/v1/pets", (200, []))
    servers = [
        {"url": f"{CLOSED}/prod"},
        {"url": "{baseUrl}", "variables": {"baseUrl": {"default": f"{CLOSED}/local"}}},
    ]
    path = write(_list_doc(), openapi=_openapi(servers))
    result = run_json(capsys, path, "--server-var", f"baseUrl={server.url}/v1")
    assert result.code == 0, result.out
    assert server.requests[0].path == "/v1/pets"


def test_server_flag_replaces_the_base_url_of_that_source_only(capsys, write, server, tmp_path):
    server.reply("GET", "/api/pets", (200, []))
    server.reply("GET", "/other/pets", (200, []))
    other = copy.deepcopy(PETS_OPENAPI)
    other["servers"] = [{"url": f"{server.url}/other"}]
    (tmp_path / "other.openapi.yaml").write_text(yaml.safe_dump(other))
    sources = [
        {"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"},
        {"name": "other", "url": "./other.openapi.yaml", "type": "openapi"},
    ]
    doc = arazzo_doc(
        workflow(
            "flow",
            op_step("one", "$sourceDescriptions.pets.listPets"),
            op_step("two", "$sourceDescriptions.other.listPets"),
        ),
        sources=sources,
    )
    path = write(doc, openapi=_openapi([{"url": f"{CLOSED}/v9"}]))
    result = run_json(capsys, path, "--server", f"pets={server.url}/api/")
    assert result.code == 0, result.out
    assert [r.path for r in server.requests] == ["/api/pets", "/other/pets"]


def test_server_flag_also_replaces_operation_level_servers(capsys, write, server):
    server.reply("GET", "/pets", (200, []))
    path = write(_list_doc(), openapi=_openapi([{"url": CLOSED}], [{"url": f"{CLOSED}/op"}]))
    result = run_json(capsys, path, server=server)
    assert result.code == 0, result.out
    assert server.requests[0].path == "/pets"


def test_operation_level_servers_win_over_document_level(capsys, write, server):
    server.reply("GET", "/op-level/pets", (200, []))
    openapi = _openapi([{"url": f"{CLOSED}/doc-level"}], [{"url": f"{server.url}/op-level"}])
    path = write(_list_doc(), openapi=openapi)
    result = run_json(capsys, path)
    assert result.code == 0, result.out
    assert server.requests[0].path == "/op-level/pets"


def test_path_item_servers_win_over_document_level(capsys, write, server):
    server.reply("GET", "/path-level/pets", (200, []))
    openapi = _openapi([{"url": f"{CLOSED}/doc-level"}])
    openapi["paths"]["/pets"]["servers"] = [{"url": f"{server.url}/path-level"}]
    path = write(_list_doc(), openapi=openapi)
    result = run_json(capsys, path)
    assert result.code == 0, result.out
    assert server.requests[0].path == "/path-level/pets"


def test_a_relative_server_url_with_a_file_source_asks_for_server(capsys, write, server):
    # Checked before anything is sent: a usage error (exit 2), not a failed run.
    path = write(_list_doc(), openapi=_openapi([{"url": "/api/v1"}]))
    result = run_json(capsys, path)
    assert result.code == 2
    assert server.requests == []
    (error,) = result.json["errors"]  # --format json: the error as JSON on stdout, the message on stderr
    assert error["kind"] == "usage" and "'/api/v1'" in error["message"]
    assert "'/api/v1'" in result.err
    assert "relative" in result.err
    assert "--server pets=URL" in result.err


def test_no_servers_at_all_asks_for_server(capsys, write):
    path = write(_list_doc(), openapi=_openapi(None))
    result = run_json(capsys, path)
    assert result.code == 2
    assert "--server pets=URL" in result.err


def test_a_server_variable_without_value_is_reported(capsys, write):
    path = write(_list_doc(), openapi=_openapi([{"url": "http://{host}/v1", "variables": {}}]))
    result = run_json(capsys, path)
    assert result.code == 2
    assert "server variable 'host'" in result.err
    assert "--server-var host=VALUE" in result.err


def test_server_flag_for_an_unknown_source_is_a_usage_error(capsys, write, server):
    path = write(_list_doc())
    result = cli(capsys, "run", path, "--server", f"petz={server.url}")
    assert result.code == 2
    assert result.out == ""
    assert "petz" in result.err
    assert "pets" in result.err.replace("petz", "")
    assert server.requests == []


def test_server_flag_without_a_url_is_a_usage_error(capsys, write):
    result = cli(capsys, "run", write(_list_doc()), "--server", "pets")
    assert result.code == 2
    assert "--server expects NAME=VALUE, got 'pets'" in result.err


def test_server_flag_with_a_relative_url_is_a_usage_error(capsys, write):
    result = cli(capsys, "run", write(_list_doc()), "--server", "pets=/api")
    assert result.code == 2
    assert "--server pets=/api: expected an absolute http:// or https:// URL" in result.err


def test_a_relative_server_url_resolves_against_a_fetched_description(capsys, write, server):
    openapi = _openapi([{"url": "/api/v1"}])
    server.reply(
        "GET", "/specs/pets.yaml", (200, yaml.safe_dump(openapi), {"Content-Type": "application/yaml"})
    )
    server.reply("GET", "/api/v1/pets", (200, []))
    doc = _list_doc()
    doc["sourceDescriptions"] = [{"name": "pets", "url": f"{server.url}/specs/pets.yaml", "type": "openapi"}]
    result = run_json(capsys, write(doc, openapi=None))
    assert result.code == 0, result.out
    assert [r.path for r in server.requests] == ["/specs/pets.yaml", "/api/v1/pets"]
    assert step(result)["outputs"] == {"url": f"{server.url}/api/v1/pets"}
