"""An inputs schema that refers to itself more than once (a tree: `left` and `right` are trees), or that
shares a schema down many levels (each level's two members the next level's schema), still runs: the
secret members found by name (`executor.inputs.secret_input_members`) are looked for within a bound of
work, shallow ones first, rather than along every path of the schema, which doubles at each level.

Before the bound, `arazzo run` of such a document walked 2^32 paths before its first request (it never
ended); an earlier tree, which marked only the inputs secret whole, ran it at once. The run is a real
child process against a real local server, its CPU time capped (`RLIMIT_CPU`) so that the walk fails
the test rather than hangs it; what it must do: send the values as given, show the secret members it
reads whole as `***`.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.servers.scripted import ScriptedServer

ROOT = Path(__file__).resolve().parents[2]
SECRET_NUMBER = {"type": "integer", "format": "password"}
CPU_SECONDS = 20  # the child's CPU time, far above a run's (under a second): the walk takes ~forever


def _tree() -> dict[str, Any]:
    tree = {"$ref": "#/components/inputs/Tree"}
    node = {"type": "object", "properties": {"pin": SECRET_NUMBER, "left": tree, "right": tree}}
    return {"inputs": {"Tree": node}}


def _shared() -> dict[str, Any]:
    levels: dict[str, Any] = {"L40": {"type": "object", "properties": {"pin": SECRET_NUMBER}}}
    for level in range(39, -1, -1):  # no cycle: each level's two members share the next level
        below = {"$ref": f"#/components/inputs/L{level + 1}"}
        members = {"pin": SECRET_NUMBER, "left": below, "right": below}
        levels[f"L{level}"] = {"type": "object", "properties": members}
    return {"inputs": {**levels, "Tree": levels["L0"]}}


def _write(folder: Path, components: dict[str, Any], url: str) -> Path:
    openapi = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": url}],
        "paths": {
            "/echo": {
                "post": {
                    "operationId": "echo",
                    "requestBody": {"content": {"application/json": {"schema": {}}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    step = {
        "stepId": "s",
        "operationId": "echo",
        "requestBody": {"contentType": "application/json", "payload": "$inputs.t"},
        "successCriteria": [{"condition": "$statusCode == 200"}],
    }
    flow = {
        "workflowId": "flow",
        "inputs": {"type": "object", "properties": {"t": {"$ref": "#/components/inputs/Tree"}}},
        "steps": [step],
        "outputs": {"all": "$inputs"},
    }
    document = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.json", "type": "openapi"}],
        "workflows": [flow],
        "components": components,
    }
    (folder / "api.json").write_text(json.dumps(openapi))
    path = folder / "flow.arazzo.json"
    path.write_text(json.dumps(document))
    return path


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


@pytest.mark.parametrize("components", [_tree(), _shared()], ids=["recursive", "shared"])
def test_an_inputs_schema_with_paths_doubling_at_each_level_runs(tmp_path, components):
    given = {"pin": 4321, "left": {"pin": 8765, "right": {"pin": 5555}}}
    with ScriptedServer() as server:
        server.route("POST", "/echo")(lambda request: (200, {"ok": True}))
        path = _write(tmp_path, components, server.url)
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        proc = subprocess.run(
            [sys.executable, "-m", "arazzo_runner.cli", "run", str(path), "--no-cache", "--no-dotenv",
             "--format", "json", "--input", f"t={json.dumps(given)}"],
            capture_output=True, text=True, env=env, cwd=ROOT, preexec_fn=_capped, check=False,
        )  # fmt: skip
        sent = [request.json() for request in server.requests]
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert sent == [given]  # the server gets the values as given
    (workflow,) = json.loads(proc.stdout)["workflows"]
    # the secret members read whole are masked by name, shallow ones first
    shown = {"pin": "***", "left": {"pin": "***", "right": {"pin": "***"}}}
    assert workflow["outputs"]["all"] == {"t": shown}


def _branches_doubling(kind: str) -> dict[str, Any]:
    """30 levels of `kind` (anyOf, allOf, oneOf) naming the next level twice, none secret: a walk along
    every branch looks at 2^30 schemas before it can say that nothing in it is secret."""
    levels: dict[str, Any] = {"L30": {"type": "object", "properties": {"pin": {"type": "integer"}}}}
    for level in range(29, -1, -1):
        below = {"$ref": f"#/components/inputs/L{level + 1}"}
        levels[f"L{level}"] = {kind: [below, below]}
    return {"inputs": {**levels, "Tree": levels["L0"]}}


FINDS = """
import json, sys
from arazzo_runner.executor.inputs import secret_input_members, secret_input_names, secret_values
document = json.loads(sys.stdin.read())
schema = {"type": "object", "properties": {"t": {"$ref": "#/components/inputs/Tree"}}}
print(json.dumps([sorted(secret_input_names(schema, document)), secret_input_members(schema, document),
                  secret_values(schema, {"t": {"pin": 1}}, document)]))
"""


@pytest.mark.parametrize("kind", ["anyOf", "allOf", "oneOf"])
def test_secrets_are_found_in_a_schema_whose_branches_name_one_schema_twice_at_each_level(kind):
    """What the run and a row's header ask of an inputs schema (`secret_input_names`, `_members`,
    `secret_values`) is answered looking at each schema once (before: 2^30 branches, never ending)."""
    document = {"components": _branches_doubling(kind)}
    proc = subprocess.run(
        [sys.executable, "-c", FINDS], input=json.dumps(document), capture_output=True, text=True,
        cwd=ROOT, preexec_fn=_capped, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert json.loads(proc.stdout) == [[], {}, []]
    secret = _branches_doubling(kind)
    secret["inputs"]["L30"]["properties"]["pin"] = SECRET_NUMBER  # the one secret, at the bottom
    document = {"components": secret}
    proc = subprocess.run(
        [sys.executable, "-c", FINDS.replace('{"pin": 1}', '{"pin": "12345678"}')],
        input=json.dumps(document), capture_output=True, text=True, cwd=ROOT, preexec_fn=_capped,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert json.loads(proc.stdout) == [[], {"t": [["pin"]]}, ["12345678"]]
