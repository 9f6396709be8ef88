"""Server variables from the environment, their precedence, and enum violations (a warning)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tests.e2e.helpers import cli, step
from tests.e2e.httpkit import op, openapi, run_flow, write_flow


def _api(server: Any, variables: dict[str, Any]) -> dict:
    api = openapi({"/things": {"get": op("list")}})
    api["servers"] = [{"url": "http://127.0.0.1:{port}/{version}", "variables": variables}]
    return api


def _port(server: Any) -> str:
    return str(urlsplit(server.url).port)


def _run(tmp_path, server, variables, **options) -> dict:
    api = _api(server, variables)
    return run_flow(tmp_path, None, api, [{"stepId": "s", "operationId": "list"}], **options)


def test_environment_variables_fill_server_variables(tmp_path, server):
    server.route("GET", "/.*")(lambda r: (200, []))
    environ = {"ARAZZO_SERVER_VAR_PORT": _port(server), "ARAZZO_SERVER_VAR_API__VERSION": "v3"}
    workflow = _run(
        tmp_path, server, {"port": {"default": "9"}, "version": {"default": "v1"}}, environ=environ
    )
    assert workflow["status"] == "passed", workflow["error"]
    assert server.requests[0].path == "/v3/things"


def test_flags_win_over_the_environment_which_wins_over_defaults(tmp_path, server):
    server.route("GET", "/.*")(lambda r: (200, []))
    environ = {
        "ARAZZO_SERVER_VAR_PORT": _port(server),
        "ARAZZO_SERVER_VAR_VERSION": "from-env",
        "ARAZZO_SERVER_VAR_API__VERSION": "from-env-source",
    }
    variables = {"port": {"default": "9"}, "version": {"default": "v1"}}
    workflow = _run(tmp_path, server, variables, environ=environ, server_variables={"version": "from-flag"})
    assert workflow["status"] == "passed", workflow["error"]
    _run(tmp_path, server, variables, environ=environ)
    _run(tmp_path, server, variables, environ={"ARAZZO_SERVER_VAR_PORT": _port(server)})
    assert [r.path for r in server.requests] == ["/from-flag/things", "/from-env-source/things", "/v1/things"]


def test_a_value_outside_the_enum_is_used_with_a_warning(tmp_path, server):
    server.route("GET", "/.*")(lambda r: (200, []))
    variables = {"port": {"default": "9"}, "version": {"default": "v1", "enum": ["v1", "v2"]}}
    workflow = _run(
        tmp_path,
        server,
        variables,
        environ={"ARAZZO_SERVER_VAR_PORT": _port(server)},
        server_variables={"version": "v9"},
    )
    assert workflow["status"] == "passed", workflow["error"]
    assert server.requests[0].path == "/v9/things"
    assert workflow["steps"][0]["warnings"] == [
        "server variable 'version' = 'v9' (--server-var version) is not one of its enum values (v1, v2)"
    ]


def test_the_server_flag_still_wins_over_variables(tmp_path, server, capsys, monkeypatch):
    server.route("GET", "/.*")(lambda r: (200, []))
    api = _api(server, {"port": {"default": "9"}, "version": {"default": "v1"}})
    path = write_flow(tmp_path, api, [{"stepId": "s", "operationId": "list"}])
    monkeypatch.setenv("ARAZZO_SERVER_VAR_VERSION", "from-env")
    result = cli(capsys, "run", path, "--format", "json", "--server", f"api={server.url}/base")
    assert result.code == 0, result.out
    assert server.requests[0].path == "/base/things"
    assert "warnings" not in step(result)


def test_a_swagger_2_source_is_refused_with_a_clear_message(tmp_path, capsys):
    swagger = {"swagger": "2.0", "info": {"title": "x", "version": "1"}, "paths": {}}
    path = write_flow(tmp_path, swagger, [{"stepId": "s", "operationId": "list"}])
    result = cli(capsys, "run", path)
    assert result.code == 2
    assert "Swagger 2.0 descriptions are not supported; convert to OpenAPI 3" in result.err
