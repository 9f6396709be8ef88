"""Hostile source families: an `arazzo` source that points to another without end (in depth or in
breadth) ends with a bound error naming the chain, `--deadline` bounds the loading of sources too, and
a source that fails is fetched once per run (not once by the validation, the masker, the preflight...).

A test server serves the documents: `/chain?n=N` names `chain?n=N+1`, `/tree?at=I` eight children;
every workflow calls the next document's, so a run reaches all of them."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
import yaml

import arazzo_runner
from arazzo_runner.bounds.limits import MAX_SOURCE_DEPTH, MAX_SOURCE_DOCUMENTS
from arazzo_runner.errors import SourceError
from tests.cputime import cpu_bound
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import cli, run_json, workflow
from tests.servers.scripted import Recorded, ScriptedServer

YAML = {"Content-Type": "application/yaml"}


def _document(*names: str, pause: float = 0) -> Any:
    """An Arazzo document whose one workflow calls workflow `w` of each of the `arazzo` sources `names`
    (relative URLs), after `pause` seconds (a slow server)."""
    sources = [{"name": f"s{i}", "url": url, "type": "arazzo"} for i, url in enumerate(names)]
    steps = [{"stepId": f"call{i}", "workflowId": f"$sourceDescriptions.s{i}.w"} for i in range(len(names))]
    doc = arazzo_doc({"workflowId": "w", "steps": steps}, sources=sources)
    time.sleep(pause)
    return 200, yaml.safe_dump(doc, sort_keys=False), YAML


def _chain(server: ScriptedServer, pause: float = 0) -> None:
    @server.route("GET", "/chain")
    def chain(request: Recorded) -> Any:
        n = int(request.query["n"][0])
        return _document(f"chain?n={n + 1}", pause=pause)


def _tree(server: ScriptedServer) -> None:
    """`/tree?at=1.5.2` names eight children, three levels deep: 584 documents, each within the depth."""

    @server.route("GET", "/tree")
    def tree(request: Recorded) -> Any:
        at = request.query["at"][0]
        depth = at.count(".") + 1
        return _document(*(f"tree?at={at}.{i}" for i in range(8) if depth < 3))


def _root(write: Any, server: ScriptedServer, url: str) -> Any:
    sources = [{"name": "next", "url": f"{server.url}/{url}", "type": "arazzo"}]
    doc = arazzo_doc(
        workflow("flow", {"stepId": "go", "workflowId": "$sourceDescriptions.next.w"}), sources=sources
    )
    return write(doc, openapi=None)


def _fetched(server: ScriptedServer) -> Counter:
    return Counter(f"{r.path}?{r.raw_query}" for r in server.requests)


@pytest.fixture
def endless():
    with ScriptedServer() as running:
        _chain(running)
        _tree(running)
        yield running


def _source_error(result: Any) -> str:
    assert result.code == 2, result.out
    [error] = result.json["errors"]
    assert error["kind"] == "source"
    return error["message"]


def test_an_endless_chain_of_arazzo_sources_ends_at_the_depth_bound(capsys, write, endless):
    path = _root(write, endless, "chain?n=1")
    with cpu_bound(10, "a run against an endless chain"):
        result = run_json(capsys, path)
    message = _source_error(result)
    assert f"nested deeper than {MAX_SOURCE_DEPTH} documents" in message
    # the chain is named: the document itself, the first and the last links
    assert "flow.arazzo.yaml -> " + endless.url + "/chain?n=1 -> " in message
    assert message.rstrip(")").endswith(f"chain?n={MAX_SOURCE_DEPTH + 1}")
    fetched = _fetched(endless)
    assert len(fetched) == MAX_SOURCE_DEPTH  # n=1..16: the 17th is never asked for
    assert set(fetched.values()) == {1}  # each document once per run


def test_a_fan_out_of_arazzo_sources_ends_at_the_count_bound(capsys, write, endless):
    path = _root(write, endless, "tree?at=0")
    with cpu_bound(20, "a run against an endless tree"):
        result = run_json(capsys, path)
    message = _source_error(result)
    assert f"more than {MAX_SOURCE_DOCUMENTS} Arazzo documents" in message
    fetched = _fetched(endless)
    assert len(fetched) == MAX_SOURCE_DOCUMENTS
    assert set(fetched.values()) == {1}


@pytest.mark.parametrize("command", [("auth",), ("validate",), ("list",), ("describe",)])
def test_other_commands_end_on_an_endless_chain_too(capsys, write, endless, command):
    path = _root(write, endless, "chain?n=1")
    with cpu_bound(10, f"arazzo {command[0]} of an endless chain"):
        result = cli(capsys, *command, path)
    assert len(_fetched(endless)) <= MAX_SOURCE_DEPTH
    if command[0] == "auth":  # it lists every source: the bound is its error
        assert result.code == 2
        assert f"nested deeper than {MAX_SOURCE_DEPTH} documents" in result.err


def test_the_deadline_bounds_the_loading_of_sources(capsys, write):
    """Each document of the chain takes 0.4 s: without the deadline armed before the first fetch, the
    run would load 16 of them (6 s) before its first step; with `--deadline 1` it stops after a few."""
    with ScriptedServer() as slow:
        _chain(slow, pause=0.4)
        path = _root(write, slow, "chain?n=1")
        result = run_json(capsys, path, "--deadline", "1")
        fetched = _fetched(slow)
    message = _source_error(result)
    assert "run deadline of 1 s exceeded" in message
    assert 1 <= len(fetched) <= 4


def _openapi_root(write: Any, url: str) -> Any:
    sources = [{"name": "pets", "url": url, "type": "openapi"}]
    steps = [{"stepId": "list", "operationId": "listPets"}]
    return write(arazzo_doc(workflow("flow", *steps), sources=sources), openapi=None)


@pytest.mark.parametrize("kind", ["openapi", "arazzo"])
@pytest.mark.parametrize("extra", [(), ("--server", "pets=http://127.0.0.1:9")])
def test_a_failing_remote_source_is_fetched_once_per_run(capsys, write, server, kind, extra):
    server.reply("GET", "/broken.yaml", (500, {"error": "down"}))
    url = f"{server.url}/broken.yaml"
    if kind == "openapi":
        path = _openapi_root(write, url)
    else:
        sources = [{"name": "pets", "url": url, "type": "arazzo"}]
        steps = [{"stepId": "go", "workflowId": "$sourceDescriptions.pets.w"}]
        path = write(arazzo_doc(workflow("flow", *steps), sources=sources), openapi=None)
    result = run_json(capsys, path, *extra)
    message = _source_error(result)
    assert "HTTP 500" in message
    assert [r.path for r in server.requests] == ["/broken.yaml"]


@pytest.mark.parametrize("flag", [False, True])
def test_a_source_no_selected_workflow_reaches_is_not_fetched(capsys, write, endless, server, flag):
    """The masker reads the apiKey names of the sources the run loaded, and `--server` names are looked
    up in the document first: neither walks into an `arazzo` source the run does not use."""
    server.reply("GET", "/pets", (200, []))
    sources = [
        {"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"},
        {"name": "unused", "url": f"{endless.url}/chain?n=1", "type": "arazzo"},
    ]
    doc = arazzo_doc(workflow("flow", {"stepId": "list", "operationId": "listPets"}), sources=sources)
    path = write(doc, openapi={**PETS_OPENAPI, "servers": [{"url": server.url}]})
    argv = ["--server", f"pets={server.url}"] if flag else []
    result = cli(capsys, "run", path, "--format", "json", *argv)
    assert result.code == 0, result.out
    assert [r.path for r in server.requests] == ["/pets"]
    assert endless.requests == []


@pytest.mark.parametrize("variable", ["ARAZZO_AUTH_PETSTORE", "ARAZZO_AUTH_API_KEY"])
def test_the_check_of_auth_variables_fetches_no_source_the_run_does_not_use(
    capsys, monkeypatch, write, endless, server, variable
):
    """The `ARAZZO_AUTH_*` variables' check runs before anything is selected: it reads the sources that
    need no network and names no variable unread that a remote source not fetched may read (issue 37,
    point 8, after the review)."""
    server.reply("GET", "/pets", (200, []))
    monkeypatch.setenv(variable, "not-shown")
    sources = [
        {"name": "pets", "url": "./pets.openapi.yaml", "type": "openapi"},
        {"name": "unused", "url": f"{endless.url}/chain?n=1", "type": "arazzo"},
    ]
    doc = arazzo_doc(workflow("flow", {"stepId": "list", "operationId": "listPets"}), sources=sources)
    path = write(doc, openapi={**PETS_OPENAPI, "servers": [{"url": server.url}]})
    result = cli(capsys, "run", path, "--format", "json")
    assert result.code == 0, result.out
    assert [r.path for r in server.requests] == ["/pets"]
    assert endless.requests == []
    assert variable not in result.err and "not-shown" not in result.err


def test_the_library_arms_the_deadline_and_does_not_remember_what_it_cut_short(write):
    """`arazzo_runner.run(..., deadline=1)` counts the loading of sources too; a source the deadline cut
    short is not remembered as failing: the next run of the same loaded document loads it."""
    with ScriptedServer() as slow:

        @slow.route("GET", "/child")
        def child(request: Recorded) -> Any:
            time.sleep(0.6)
            return 200, yaml.safe_dump(arazzo_doc({"workflowId": "w", "steps": []}, sources=[])), YAML

        workspace = arazzo_runner.load(_root(write, slow, "child"))
        # cut while the run's admission reads it, or before the preflight reads it again
        with pytest.raises(SourceError, match=r"run deadline of 0\.2 s exceeded (while reading|before) "):
            arazzo_runner.run(workspace, deadline=0.2)
        result = arazzo_runner.run(workspace)
    assert result.status == "passed"
    assert [r.path for r in slow.requests] == ["/child", "/child"]
