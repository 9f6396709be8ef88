"""--dry-run and `plan_requests`: the requests of the linear path, built by the real request code, masked
when printed, and nothing sent (not even an OAuth2 token request)."""

from __future__ import annotations

import copy
import json

import arazzo_runner
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow

SECRET = "hunter2-pass"
INPUTS = {"type": "object", "properties": {"password": {"type": "string", "format": "password"}}}


def _login_flow() -> dict:
    login = op_step(
        "login",
        "login",
        requestBody={
            "contentType": "application/x-www-form-urlencoded",
            "payload": {"user": "bob", "password": "$inputs.password"},
        },
        outputs={"token": "$response.body#/token", "id": "$response.body#/id"},
    )
    get = op_step(
        "get",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": "$steps.login.outputs.id"},
            {"name": "X-Trace", "in": "header", "value": "trace {$steps.login.outputs.token#/a}"},
        ],
        outputs={"owner": "$response.body#/owner"},
    )
    create = op_step("create", "createPet", requestBody={"payload": {"owner": "$steps.get.outputs.owner"}})
    return arazzo_doc(workflow("flow", login, get, create, inputs=INPUTS))


def test_plan_requests_builds_every_request_and_sends_none(write, server):
    doc = arazzo_runner.load(write(_login_flow()))
    planned = arazzo_runner.plan_requests(doc, "flow", {"password": SECRET}, servers={"pets": server.url})
    assert server.requests == []
    assert [(p.step_id, p.method, p.display_url) for p in planned] == [
        ("login", "POST", f"{server.url}/login"),
        ("get", "GET", f"{server.url}/pets/<$steps.login.outputs.id>"),
        ("create", "POST", f"{server.url}/pets"),
    ]
    assert planned[0].body == f"user=bob&password={SECRET}".encode()  # raw: the library user masks
    assert ("X-Trace", "trace <$steps.login.outputs.token#/a>") in planned[1].headers
    assert json.loads(planned[2].body) == {"owner": "<$steps.get.outputs.owner>"}
    assert all(p.error is None for p in planned)


def test_cli_dry_run_prints_masked_requests(capsys, write, server):
    path = write(_login_flow())
    result = cli(
        capsys, "run", path, "--server", f"pets={server.url}", "--input", f"password={SECRET}", "--dry-run"
    )
    assert result.code == 0, result.out
    assert server.requests == []
    assert result.out.startswith("dry run: nothing is sent")
    assert "  login  POST " in result.out
    assert "> user=bob&password=***" in result.out
    assert f"  get  GET {server.url}/pets/<$steps.login.outputs.id>" in result.out
    assert "> X-Trace: trace <$steps.login.outputs.token#/a>" in result.out
    assert SECRET not in result.out


def test_cli_dry_run_as_json(capsys, write, server):
    path = write(_login_flow())
    argv = ["--input", f"password={SECRET}", "--dry-run", "--format", "json"]
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", *argv)
    assert result.code == 0
    data = result.json
    assert data["dryRun"] is True
    first = data["requests"][0]
    assert first["request"]["body"] == "user=bob&password=***"
    assert [r["stepId"] for r in data["requests"]] == ["login", "get", "create"]
    assert server.requests == []


def test_a_request_that_cannot_be_built_is_shown_and_exits_1(capsys, write, server):
    get = op_step("get", "getPet", parameters=[{"name": "petId", "in": "path", "value": "$inputs.petId"}])
    after = op_step("list", "listPets")
    path = write(arazzo_doc(workflow("flow", get, after)))
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--dry-run")
    assert result.code == 1
    assert "get  request cannot be built: required parameter 'petId' (in path) has no value" in result.out
    assert f"list  GET {server.url}/pets" in result.out  # the plan goes on
    assert server.requests == []


def test_nested_workflows_and_oauth_tokens_are_planned_offline(capsys, write, server):
    api = copy.deepcopy(PETS_OPENAPI)
    flows = {"clientCredentials": {"tokenUrl": "/oauth/token", "scopes": {}}}
    api["components"] = {"securitySchemes": {"oauth": {"type": "oauth2", "flows": flows}}}
    api["security"] = [{"oauth": []}]
    child = workflow("child", op_step("list", "listPets"))
    parent = workflow("parent", {"stepId": "call", "workflowId": "child"}, op_step("after", "flaky"))
    path = write(arazzo_doc(parent, child), openapi=api)
    argv = ["--auth", "oauth.client_id=app", "--auth", "oauth.client_secret=very-secret", "-w", "parent"]
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--dry-run", *argv)
    assert result.code == 0, result.out
    assert server.requests == []  # no token request either
    lines = result.out.splitlines()
    assert "  call  -> workflow child" in lines
    assert "  workflow child" in lines
    assert f"    list  GET {server.url}/pets" in lines
    assert "> Authorization: Bearer ***" in result.out
    assert f"an OAuth2 token would be fetched from {server.url}/oauth/token (not in a dry run)" in result.out
    assert "very-secret" not in result.out


def test_dry_run_refuses_report_files(capsys, write, server, tmp_path):
    path = write(_login_flow())
    result = cli(capsys, "run", path, "--dry-run", "--junit", tmp_path / "j.xml")
    assert result.code == 2
    assert "--dry-run sends nothing" in result.err
