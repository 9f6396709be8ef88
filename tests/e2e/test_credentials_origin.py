"""Credentials stay with the source they were given for (issue 13, section 4), over real sockets.

Two local servers are two origins; each source's description names a security scheme `auth`. A credential
given for one source never reaches the other, even with `--server` pinning both; a bare scheme name that
two sources define is ambiguous (a usage error on the command line, unused with a warning otherwise).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

import arazzo_runner
from arazzo_runner.executor.options import RunOptions
from tests.e2e.helpers import cli
from tests.e2e.httpkit import echo, op, openapi, step

BEARER = {"type": "http", "scheme": "bearer"}


def _description(operation_id: str, scheme: dict) -> dict:
    return openapi(
        {f"/{operation_id}": {"get": op(operation_id, security=[{"auth": []}])}},
        components={"securitySchemes": {"auth": scheme}},
    )


def _two_sources(folder: Path, steps: list[dict], scheme: dict = BEARER, inputs: dict | None = None) -> Path:
    """Sources `a` (operation `opA`) and `b` (operation `opB`), each with a scheme named `auth`."""
    for name in ("a", "b"):
        description = _description(f"op{name.upper()}", scheme)
        (folder / f"{name}.openapi.yaml").write_text(yaml.safe_dump(description, sort_keys=False))
    workflow: dict[str, Any] = {"workflowId": "flow", "steps": steps}
    if inputs is not None:
        workflow["inputs"] = inputs
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [
            {"name": "a", "url": "./a.openapi.yaml", "type": "openapi"},
            {"name": "b", "url": "./b.openapi.yaml", "type": "openapi"},
        ],
        "workflows": [workflow],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


STEPS = [step("one", "$sourceDescriptions.a.opA"), step("two", "$sourceDescriptions.b.opB")]


def _run(path: Path, a: Any, b: Any, inputs: dict | None = None, **options: Any) -> dict[str, Any]:
    options.setdefault("environ", {})
    opts = RunOptions(servers={"a": a.url, "b": b.url}, **options)
    [workflow] = arazzo_runner.run(path, None, inputs or {}, options=opts).to_dict()["workflows"]
    return workflow


def _authorization(server: Any) -> list[str | None]:
    return [r.headers.get("authorization") for r in server.requests]


def test_a_qualified_credential_goes_only_to_its_source(tmp_path, server, other_server):
    echo(server), echo(other_server)
    path = _two_sources(tmp_path, STEPS)
    workflow = _run(path, server, other_server, auth={"a:auth": "secret-of-a"})
    assert _authorization(server) == ["Bearer secret-of-a"]
    assert _authorization(other_server) == [None]
    warnings = workflow["steps"][1]["warnings"]
    assert any("no credentials for the operation's security (auth)" in w for w in warnings), warnings
    both = {"a:auth": "secret-of-a", "b:auth.token": "secret-of-b"}
    workflow = _run(path, server, other_server, auth=both)
    assert workflow["status"] == "passed", workflow["error"]
    assert _authorization(server)[1:] == ["Bearer secret-of-a"]
    assert _authorization(other_server)[1:] == ["Bearer secret-of-b"]


def test_a_bare_scheme_name_two_sources_define_is_a_usage_error_and_nothing_is_sent(
    tmp_path, capsys, server, other_server
):
    echo(server), echo(other_server)
    path = _two_sources(tmp_path, STEPS)
    pins = ["--server", f"a={server.url}", "--server", f"b={other_server.url}"]
    result = cli(capsys, "run", path, *pins, "--auth", "auth=the-secret")
    assert result.code == 2
    assert "--auth auth=...: security scheme 'auth' is defined by sources a and b" in result.err
    assert "--auth a:auth=" in result.err
    assert "the-secret" not in result.out + result.err
    assert server.requests == [] and other_server.requests == []
    result = cli(capsys, "run", path, *pins, "--auth", "b:auth=the-secret", "--format", "json")
    assert result.code == 0, result.out + result.err
    assert (_authorization(server), _authorization(other_server)) == ([None], ["Bearer the-secret"])


def test_a_library_caller_s_bare_ambiguous_credential_is_unused_and_said(tmp_path, server, other_server):
    echo(server), echo(other_server)
    path = _two_sources(tmp_path, STEPS)
    workflow = _run(path, server, other_server, auth={"auth": "lib-secret"})
    assert (_authorization(server), _authorization(other_server)) == ([None], [None])
    for entry in workflow["steps"]:
        assert any("'auth' is defined by sources a and b" in w for w in entry["warnings"]), entry
        assert all("lib-secret" not in w for w in entry["warnings"])


def test_environment_variables_are_keyed_by_source_and_scheme(tmp_path, server, other_server):
    echo(server), echo(other_server)
    path = _two_sources(tmp_path, STEPS)
    _run(path, server, other_server, environ={"ARAZZO_AUTH_AUTH_TOKEN": "env-bare"})
    assert (_authorization(server), _authorization(other_server)) == ([None], [None])
    _run(path, server, other_server, environ={"ARAZZO_AUTH_B__AUTH_TOKEN": "env-of-b"})
    assert (_authorization(server)[1:], _authorization(other_server)[1:]) == ([None], ["Bearer env-of-b"])


def test_an_input_feeding_a_scheme_stays_with_its_source(tmp_path, server, other_server):
    echo(server), echo(other_server)
    schema = {"type": "object", "properties": {"auth": {"type": "string"}, "a:auth": {"type": "string"}}}
    path = _two_sources(tmp_path, STEPS, inputs=schema)
    _run(path, server, other_server, inputs={"auth": "input-bare"})
    assert (_authorization(server), _authorization(other_server)) == ([None], [None])
    _run(path, server, other_server, inputs={"a:auth": "input-of-a"})
    assert (_authorization(server)[1:], _authorization(other_server)[1:]) == (["Bearer input-of-a"], [None])


def test_a_scheme_name_unique_across_sources_still_takes_the_bare_forms(tmp_path, server, other_server):
    echo(server), echo(other_server)
    path = _two_sources(tmp_path, [STEPS[0]])
    (tmp_path / "b.openapi.yaml").write_text(yaml.safe_dump(openapi({}), sort_keys=False))
    for options in ({"auth": {"auth": "bare-flag"}}, {"environ": {"ARAZZO_AUTH_AUTH_TOKEN": "bare-env"}}):
        workflow = _run(path, server, other_server, **options)
        assert workflow["status"] == "passed", workflow["error"]
    assert _authorization(server) == ["Bearer bare-flag", "Bearer bare-env"]


def test_a_nested_arazzo_source_s_scheme_of_the_same_name_is_another_source(tmp_path, server, other_server):
    """The child document's source `b` defines `auth` too: the parent's bare credential is ambiguous."""
    echo(server), echo(other_server)
    path = _two_sources(tmp_path, STEPS)
    child = yaml.safe_load(path.read_text())
    child["sourceDescriptions"] = [child["sourceDescriptions"][1]]
    child["workflows"] = [{"workflowId": "child", "steps": [STEPS[1]]}]
    (tmp_path / "child.arazzo.yaml").write_text(yaml.safe_dump(child, sort_keys=False))
    parent = yaml.safe_load(path.read_text())
    parent["sourceDescriptions"] = [
        parent["sourceDescriptions"][0],
        {"name": "kid", "url": "./child.arazzo.yaml", "type": "arazzo"},
    ]
    parent["workflows"][0]["steps"] = [
        STEPS[0],
        {"stepId": "two", "workflowId": "$sourceDescriptions.kid.child"},
    ]
    path.write_text(yaml.safe_dump(parent, sort_keys=False))
    _run(path, server, other_server, auth={"auth": "parent-secret"})
    assert (_authorization(server), _authorization(other_server)) == ([None], [None])
    _run(path, server, other_server, auth={"a:auth": "parent-secret"})
    assert (_authorization(server)[1:], _authorization(other_server)[1:]) == (
        ["Bearer parent-secret"],
        [None],
    )


def test_the_auth_listing_names_the_qualified_keys_of_an_ambiguous_scheme(tmp_path, capsys):
    path = _two_sources(tmp_path, STEPS)
    lines = cli(capsys, "auth", path).out.splitlines()
    assert "    env: ARAZZO_AUTH_A__AUTH_TOKEN" in lines
    assert "    env: ARAZZO_AUTH_B__AUTH_TOKEN" in lines
    assert (
        "    or:  --auth a:auth=VALUE (or an input named a:auth; 'auth' is also a scheme of source b)"
        in lines
    )
    assert not any(line.strip() == "env: ARAZZO_AUTH_AUTH_TOKEN" for line in lines)
