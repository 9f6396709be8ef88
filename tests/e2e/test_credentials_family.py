"""Credentials are keyed by the source's place in the family of documents (issue 13 audit, point 4a).

A nested `arazzo` source (local or fetched) chooses its own source names: it may name its OpenAPI source
`a` like the parent's, with the same scheme name, on another origin. The parent's `a` is `a`; the child's
is `kid/a` (the chain of source names from the top document). `--auth a:bt` is for the top document's `a`
only; a bare `bt` both define is a usage error naming `a:bt` and `kid/a:bt`; the environment variables
follow (`ARAZZO_AUTH_A__BT_TOKEN`, `ARAZZO_AUTH_KID__A__BT_TOKEN`); `arazzo auth` lists the qualified names.
Two real local servers are the two origins; a third serves the remote child.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import arazzo_runner
from arazzo_runner.executor.options import RunOptions
from tests.e2e.helpers import cli
from tests.e2e.httpkit import echo, op, openapi, step
from tests.servers.scripted import ScriptedServer

BEARER = {"type": "http", "scheme": "bearer"}


def _description(operation_id: str, server: Any) -> dict:
    api = openapi(
        {f"/{operation_id}": {"get": op(operation_id, security=[{"bt": []}])}},
        components={"securitySchemes": {"bt": BEARER}},
    )
    api["servers"] = [{"url": server.url}]
    return api


def _dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def _child(name: str = "a") -> dict:
    return {
        "arazzo": "1.0.1",
        "info": {"title": "child", "version": "1"},
        "sourceDescriptions": [{"name": name, "url": "./b.openapi.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "child", "steps": [step("x", f"$sourceDescriptions.{name}.opB")]}],
    }


def _family(folder: Path, a: Any, b: Any, child_url: str = "./child.arazzo.yaml", top: str = "a") -> Path:
    """The top document's source `top` (operation opA on server `a`), its arazzo source `kid` whose own
    source `a` is on server `b`; both with a bearer scheme named `bt`."""
    (folder / "a.openapi.yaml").write_text(_dump(_description("opA", a)))
    (folder / "b.openapi.yaml").write_text(_dump(_description("opB", b)))
    (folder / "child.arazzo.yaml").write_text(_dump(_child()))
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [
            {"name": top, "url": "./a.openapi.yaml", "type": "openapi"},
            {"name": "kid", "url": child_url, "type": "arazzo"},
        ],
        "workflows": [
            {
                "workflowId": "flow",
                "steps": [
                    step("one", f"$sourceDescriptions.{top}.opA"),
                    {"stepId": "two", "workflowId": "$sourceDescriptions.kid.child"},
                ],
            }
        ],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(_dump(doc))
    return path


def _auth(server: Any) -> list[str | None]:
    return [r.headers.get("authorization") for r in server.requests if r.path.startswith("/op")]


def _run(path: Path, **options: Any) -> dict[str, Any]:
    options.setdefault("environ", {})
    [workflow] = arazzo_runner.run(path, None, {}, options=RunOptions(**options)).to_dict()["workflows"]
    return workflow


def _warnings(workflow: dict) -> list[str]:
    found = [w for s in workflow["steps"] for w in s.get("warnings", [])]
    for entry in workflow["steps"]:
        if "workflow" in entry:
            found += _warnings(entry["workflow"])
    return found


@pytest.fixture
def family(tmp_path, server, other_server):
    echo(server), echo(other_server)
    return _family(tmp_path, server, other_server)


def test_the_top_document_s_qualified_credential_never_reaches_a_nested_source_of_that_name(
    family, capsys, server, other_server
):
    result = cli(capsys, "run", family, "--auth", "a:bt=top-secret", "--format", "json")
    assert result.code == 0, result.out + result.err
    assert (_auth(server), _auth(other_server)) == (["Bearer top-secret"], [None])
    result = cli(capsys, "run", family, "--auth", "kid/a:bt=kid-secret", "--format", "json")
    assert result.code == 0, result.out + result.err
    assert (_auth(server)[1:], _auth(other_server)[1:]) == ([None], ["Bearer kid-secret"])
    both = ["--auth", "a:bt.token=top-secret", "--auth", "kid/a:bt.token=kid-secret"]
    assert cli(capsys, "run", family, *both, "--format", "json").code == 0
    assert (_auth(server)[2:], _auth(other_server)[2:]) == (["Bearer top-secret"], ["Bearer kid-secret"])


def test_a_bare_scheme_name_of_the_family_is_a_usage_error_naming_the_qualified_names(
    family, capsys, server, other_server
):
    result = cli(capsys, "run", family, "--auth", "bt=the-secret")
    assert result.code == 2
    assert "--auth bt=...: security scheme 'bt' is defined by sources a and kid/a" in result.err
    assert "--auth a:bt=..., --auth kid/a:bt=..." in result.err
    assert "the-secret" not in result.out + result.err
    assert server.requests == [] and other_server.requests == []
    result = cli(capsys, "run", family, "--auth", "kid/b:bt=x")
    assert result.code == 2 and "no security scheme named so" in result.err


def test_environment_variables_and_library_keys_follow_the_family_names(family, server, other_server):
    workflow = _run(family, environ={"ARAZZO_AUTH_BT_TOKEN": "env-bare"})
    assert (_auth(server), _auth(other_server)) == ([None], [None])
    said = [w for w in _warnings(workflow) if "ARAZZO_AUTH_BT_TOKEN not used" in w]
    assert len(said) == 2, _warnings(workflow)  # once per source
    assert "defined by sources a and kid/a" in said[0]
    assert any("ARAZZO_AUTH_KID__A__BT_TOKEN" in w for w in said), said
    _run(family, environ={"ARAZZO_AUTH_A__BT_TOKEN": "env-top"})
    _run(family, environ={"ARAZZO_AUTH_KID__A__BT_TOKEN": "env-kid"})
    _run(family, auth={"kid/a:bt": "lib-kid"})
    assert _auth(server)[1:] == ["Bearer env-top", None, None]
    assert _auth(other_server)[1:] == [None, "Bearer env-kid", "Bearer lib-kid"]


def test_the_auth_listing_names_each_source_by_its_place_in_the_family(family, capsys):
    result = cli(capsys, "auth", family)
    assert result.code == 0
    lines = result.out.splitlines()
    assert "source a (./a.openapi.yaml)" in lines
    assert "source kid/a (./b.openapi.yaml)" in lines
    assert "    env: ARAZZO_AUTH_A__BT_TOKEN" in lines
    assert "    env: ARAZZO_AUTH_KID__A__BT_TOKEN" in lines
    assert (
        "    or:  --auth kid/a:bt=VALUE (or an input named kid/a:bt; 'bt' is also a scheme of source a)"
        in (lines)
    )
    data = cli(capsys, "auth", family, "--format", "json").json
    keys = {(entry["source"], s["key"]) for entry in data for s in entry["schemes"]}
    assert keys == {("a", "a:bt"), ("kid/a", "kid/a:bt")}


def test_a_remote_child_choosing_the_parent_s_source_name_gets_no_credential(
    tmp_path, capsys, server, other_server
):
    """The audit's reproduction: the child is fetched over http and names its source `a` too."""
    echo(server), echo(other_server)
    with ScriptedServer() as documents:
        documents.route("GET", "/child.arazzo.yaml")(lambda r: (200, _dump(_child())))
        description = _dump(_description("opB", other_server))
        documents.route("GET", "/b.openapi.yaml")(lambda r: (200, description))
        path = _family(tmp_path, server, other_server, child_url=f"{documents.url}/child.arazzo.yaml")
        result = cli(capsys, "run", path, "--auth", "a:bt=top-secret", "--format", "json")
        assert result.code == 0, result.out + result.err
        assert (_auth(server), _auth(other_server)) == (["Bearer top-secret"], [None])
        result = cli(capsys, "run", path, "--auth", "bt=top-secret")
        assert result.code == 2 and "defined by sources a and kid/a" in result.err
        lines = cli(capsys, "auth", path).out.splitlines()
        assert any(line.startswith("source kid/a (") for line in lines), lines


def test_a_variable_name_two_sources_map_to_is_used_for_neither(tmp_path, capsys, server, other_server):
    """`kid__a` (a source of the top document) and `kid/a` both give ARAZZO_AUTH_KID__A__BT_TOKEN."""
    echo(server), echo(other_server)
    path = _family(tmp_path, server, other_server, top="kid__a")
    workflow = _run(path, environ={"ARAZZO_AUTH_KID__A__BT_TOKEN": "env-both"})
    assert (_auth(server), _auth(other_server)) == ([None], [None])
    said = [w for w in _warnings(workflow) if "ARAZZO_AUTH_KID__A__BT_TOKEN not used" in w]
    assert said and "it is the variable of kid/a:bt and kid__a:bt" in said[0], _warnings(workflow)
    _run(path, auth={"kid__a:bt": "flag-top"})
    assert (_auth(server)[1:], _auth(other_server)[1:]) == (["Bearer flag-top"], [None])
    listed = cli(capsys, "auth", path).out.splitlines()
    assert (
        "    env: ARAZZO_AUTH_KID__A__BT_TOKEN (not used: also the variable of kid/a:bt; use --auth)"
        in listed
    )


def test_tool_commands_take_the_family_names_too(family, capsys):
    """`arazzo agent` (and `arazzo mcp`) check their `--auth` items the same way, before anything starts."""
    result = cli(capsys, "agent", family, "--auth", "bt=kid-secret", "--prompt", "hi")
    assert result.code == 2 and "defined by sources a and kid/a" in result.err, result.err
    result = cli(capsys, "agent", family, "--auth", "kid/b:bt=kid-secret", "--prompt", "hi")
    assert result.code == 2 and "no security scheme named so" in result.err, result.err
    assert "kid-secret" not in result.out + result.err
