"""`--server NAME=URL` names a source by its place in the family of documents, as credentials do
(issue 13, round 3; `sources/family.py`).

The top document's source `a` is `a`; the source `a` of its arazzo source `kid` is `kid/a`. `--server a=`
pins the top document's `a`, and a nested document's own `a` only when it reads the same description
(one API, whichever document names it: the Redocly museum's layout); `--server kid/a=` the nested one.
A bare name that only nested documents define keeps working when one does, and is a usage error listing
the family names when several do. Real local servers: the two origins of the two sources, and a third
that `--server` points to.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import arazzo_runner
from arazzo_runner.errors import UsageError
from arazzo_runner.executor.options import RunOptions
from tests.e2e.helpers import cli
from tests.e2e.httpkit import echo, op, openapi, step
from tests.servers.scripted import ScriptedServer


def _dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def _description(operation_id: str, server: Any) -> dict:
    api = openapi({f"/{operation_id}": {"get": op(operation_id)}})
    api["servers"] = [{"url": server.url}]
    return api


def _child(folder: Path, name: str, operation_id: str, server: Any) -> str:
    (folder / f"{operation_id}.openapi.yaml").write_text(_dump(_description(operation_id, server)))
    child = {
        "arazzo": "1.0.1",
        "info": {"title": name, "version": "1"},
        "sourceDescriptions": [{"name": "a", "url": f"./{operation_id}.openapi.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "child", "steps": [step("x", f"$sourceDescriptions.a.{operation_id}")]}],
    }
    (folder / f"{name}.arazzo.yaml").write_text(_dump(child))
    return f"./{name}.arazzo.yaml"


def _family(folder: Path, top_server: Any, kid_servers: list[Any], top: str = "a") -> Path:
    """The top document's source `top` (opTop on `top_server`), and arazzo sources `kid`, `kid2`... each
    with its own source `a` (opKid, opKid2... on `kid_servers`)."""
    (folder / "top.openapi.yaml").write_text(_dump(_description("opTop", top_server)))
    sources = [{"name": top, "url": "./top.openapi.yaml", "type": "openapi"}]
    steps = [step("one", f"$sourceDescriptions.{top}.opTop")]
    for index, server in enumerate(kid_servers):
        name = "kid" if index == 0 else f"kid{index + 1}"
        url = _child(folder, name, "opKid" if index == 0 else f"opKid{index + 1}", server)
        sources.append({"name": name, "url": url, "type": "arazzo"})
        steps.append({"stepId": f"in-{name}", "workflowId": f"$sourceDescriptions.{name}.child"})
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": sources,
        "workflows": [{"workflowId": "flow", "steps": steps}],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(_dump(doc))
    return path


@pytest.fixture
def pinned():
    with ScriptedServer() as running:
        echo(running)
        yield running


@pytest.fixture
def servers(server, other_server):
    echo(server), echo(other_server)
    return server, other_server


def _paths(server: Any) -> list[str]:
    return [request.path for request in server.requests]


def test_a_bare_name_pins_the_top_document_s_source_only(capsys, tmp_path, servers, pinned):
    top, kid = servers
    path = _family(tmp_path, top, [kid])
    result = cli(capsys, "run", path, "--server", f"a={pinned.url}", "--format", "json")
    assert result.code == 0, result.out + result.err
    assert (_paths(pinned), _paths(top), _paths(kid)) == (["/opTop"], [], ["/opKid"])
    nested = result.json["workflows"][0]["steps"][1]["workflow"]["steps"][0]
    assert nested["warnings"] == [
        "--server a=... pins the run's document's source 'a'; source 'kid/a' keeps its own servers "
        "(pin it with --server kid/a=URL)"
    ]


def test_a_bare_name_pins_a_nested_source_reading_the_same_description(capsys, tmp_path, servers, pinned):
    top, _ = servers
    path = _family(tmp_path, top, [top])
    child = tmp_path / "kid.arazzo.yaml"  # the nested document's `a` reads the top's description
    child.write_text(
        child.read_text().replace("./opKid.openapi.yaml", "./top.openapi.yaml").replace("opKid", "opTop")
    )
    result = cli(capsys, "run", path, "--server", f"a={pinned.url}", "--format", "json")
    assert result.code == 0, result.out + result.err
    assert (_paths(pinned), _paths(top)) == (["/opTop", "/opTop"], [])
    nested = result.json["workflows"][0]["steps"][1]["workflow"]["steps"][0]
    assert "warnings" not in nested
    other = ScriptedServer().start()
    try:
        echo(other)
        given = ["--server", f"a={pinned.url}", "--server", f"kid/a={other.url}", "--format", "json"]
        assert cli(capsys, "run", path, *given).code == 0  # the family name still wins
        assert (_paths(pinned)[2:], _paths(other)) == (["/opTop"], ["/opTop"])
    finally:
        other.stop()


def test_a_family_name_pins_the_nested_document_s_source(capsys, tmp_path, servers, pinned):
    top, kid = servers
    path = _family(tmp_path, top, [kid])
    result = cli(capsys, "run", path, "--server", f"kid/a={pinned.url}", "--format", "json")
    assert result.code == 0, result.out + result.err
    assert (_paths(pinned), _paths(top), _paths(kid)) == (["/opKid"], ["/opTop"], [])
    dry = cli(capsys, "run", path, "--server", f"kid/a={pinned.url}", "--dry-run", "--format", "json")
    assert dry.code == 0, dry.out + dry.err
    assert f"{pinned.url}/opKid" in dry.out and f"{top.url}/opTop" in dry.out


def test_a_bare_name_only_one_nested_document_defines_stands_for_it(capsys, tmp_path, servers, pinned):
    top, kid = servers
    path = _family(tmp_path, top, [kid], top="main")
    result = cli(capsys, "run", path, "--server", f"a={pinned.url}", "--format", "json")
    assert result.code == 0, result.out + result.err
    assert (_paths(pinned), _paths(top), _paths(kid)) == (["/opKid"], ["/opTop"], [])


def test_a_bare_name_several_nested_documents_define_is_a_usage_error(capsys, tmp_path, servers, pinned):
    top, kid = servers
    path = _family(tmp_path, top, [kid, kid], top="main")
    result = cli(capsys, "run", path, "--server", f"a={pinned.url}")
    assert result.code == 2
    assert (
        "--server a=...: several nested documents have a source named 'a' (kid/a, kid2/a): name one by "
        "its place in the family, as --server kid/a=URL"
    ) in result.err
    assert pinned.requests == top.requests == kid.requests == []
    both = ["--server", f"kid/a={pinned.url}", "--server", f"kid2/a={pinned.url}"]
    assert cli(capsys, "run", path, *both, "--format", "json").code == 0
    assert _paths(pinned) == ["/opKid", "/opKid2"]


def test_a_name_of_no_source_lists_the_family_names(capsys, tmp_path, servers, pinned):
    path = _family(tmp_path, *servers[:1], [servers[1]])
    result = cli(capsys, "run", path, "--server", f"kid/b={pinned.url}")
    assert result.code == 2
    assert "--server kid/b=...: no source description named 'kid/b' (sources: a, kid, kid/a)" in result.err


def test_the_library_follows_the_same_names(tmp_path, servers, pinned):
    top, kid = servers
    path = _family(tmp_path, top, [kid])

    def run(servers: dict[str, str]) -> str:
        result = arazzo_runner.run(path, None, {}, options=RunOptions(servers=servers, environ={}))
        return result.to_dict()["workflows"][0]["status"]

    assert run({"a": pinned.url}) == "passed"
    assert run({"kid/a": pinned.url}) == "passed"
    assert run({"other": pinned.url}) == "passed"  # a name of no source matches nothing, as before
    assert _paths(pinned) == ["/opTop", "/opKid"]
    folder = tmp_path / "many"
    folder.mkdir()
    many = _family(folder, top, [kid, kid], top="x")
    with pytest.raises(
        UsageError, match=r"several nested documents have a source named 'a' \(kid/a, kid2/a\)"
    ):
        arazzo_runner.run(many, None, {}, options=RunOptions(servers={"a": pinned.url}, environ={}))
