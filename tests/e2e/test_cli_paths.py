"""Run from anywhere (issue 12): a local document reads the local files it references wherever they are,
whatever the working directory; a document fetched over http(s) reads none (its paths resolve against its
URL); `--sandbox DIR` confines a document one does not trust. Every case is `arazzo` in a real child
process started in a chosen folder, against real local servers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import PETS_OPENAPI
from tests.e2e.helpers import ROOT, CliRun

CHAT = ROOT / "workflows" / "chat-completion-tool-call.arazzo.yaml"
CHAT_OPENAPI = ROOT / "openapi" / "chatgpt-chat-completions-api-openapi.yml"
REMOTE_REFUSAL = "a document fetched over http(s) may not read local files"


def arazzo_in(cwd: Path | str, *argv: Any) -> CliRun:
    """`python -m arazzo_runner.cli ARGV...` started in `cwd`, importing this checkout's engine."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env["ARAZZO_NO_CACHE"] = "1"  # every run validates, sources included
    proc = subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in proc.stderr
    return CliRun(proc.returncode, proc.stdout, proc.stderr)


def chat_flags(server: Any) -> list[str]:
    return [
        "--server", f"chatCompletionsApi={server.url}",
        "--format", "json",
        "--input", "apiKey=sk-test",
        "--input", "model=agentaus",
        "--input", "userMessage=What's the weather in Sydney today?",
        "--input", "toolName=get_weather",
        "--input", "toolResult=Sunny, 22 C",
    ]  # fmt: skip


# -- the project's own workflow, from anywhere ----------------------------------------------------------


@pytest.mark.parametrize(
    ("cwd", "document"),
    [(ROOT / "workflows", CHAT.name), (Path("/"), CHAT)],
    ids=["inside-workflows", "from-root-by-absolute-path"],
)
def test_the_projects_workflow_runs_from_anywhere(reference_server, cwd: Path, document: Any) -> None:
    result = arazzo_in(cwd, "run", document, *chat_flags(reference_server))
    assert result.code == 0, result.err
    [flow] = result.json["workflows"]
    assert [(s["stepId"], s["status"], s["statusCode"]) for s in flow["steps"]] == [
        ("createCompletion", "passed", 200),
        ("resolveToolCall", "passed", 200),
    ]
    assert flow["outputs"]["finalContent"] == "Based on the tool result: Sunny, 22 C"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["describe", "--format", "json"], '"path": "/chat/completions"'),
        (["graph"], "createCompletion</b><br/>POST /chat/completions"),
        (["auth"], "bearerAuth (http): Authorization: Bearer <token>"),
    ],
    ids=["describe", "graph", "auth"],
)
def test_commands_read_the_sources_from_another_folder(tmp_path: Path, command: list, expected: str) -> None:
    result = arazzo_in(tmp_path, *command, CHAT)
    assert result.code == 0, result.err
    assert expected in result.out
    assert "outside" not in result.out + result.err


def test_validate_checks_against_the_openapi_description_from_another_folder(tmp_path: Path) -> None:
    clean = arazzo_in(tmp_path, "validate", "--format", "json", CHAT)
    assert clean.code == 0, clean.out
    assert [f["rule"] for f in clean.json["findings"] if f["rule"].startswith("source")] == []

    project = tmp_path / "project"  # the same layout, with an operationId only the description can refute
    for folder, original in (("workflows", CHAT), ("openapi", CHAT_OPENAPI)):
        (project / folder).mkdir(parents=True)
        shutil.copy(original, project / folder / original.name)
    broken = project / "workflows" / CHAT.name
    broken.write_text(
        broken.read_text().replace("operationId: createChatCompletion", "operationId: createChat")
    )
    (tmp_path / "elsewhere").mkdir()
    result = arazzo_in(tmp_path / "elsewhere", "validate", "--format", "json", broken)
    assert result.code == 1
    errors = [f for f in result.json["findings"] if f["severity"] == "error"]
    assert {f["rule"] for f in errors} == {"operation-exists"}
    assert "operationId 'createChat' was not found in source 'chatCompletionsApi'" in errors[0]["message"]


# -- a document fetched over http(s) --------------------------------------------------------------------


def _doc(sources: list[dict], steps: list[dict], workflow_id: str = "flow") -> str:
    return yaml.safe_dump(
        {
            "arazzo": "1.0.1",
            "info": {"title": "t", "version": "1"},
            "sourceDescriptions": sources,
            "workflows": [{"workflowId": workflow_id, "steps": steps}],
        },
        sort_keys=False,
    )


def _parent_of(tmp_path: Path, child_url: str) -> Path:
    """A local document whose one step runs workflow `child` of the remote Arazzo document `child_url`."""
    path = tmp_path / "flows" / "parent.arazzo.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    source = {"name": "remote", "url": child_url, "type": "arazzo"}
    path.write_text(_doc([source], [{"stepId": "call", "workflowId": "$sourceDescriptions.remote.child"}]))
    return path


def _error_kinds(result: CliRun) -> list[str]:
    document = json.loads(result.out)
    assert (document["status"], document["exitCode"]) == ("error", 2)
    return [error["kind"] for error in document["errors"]]


@pytest.mark.parametrize(
    "form", ["file:///{tmp}/pets.openapi.yaml", "{tmp}/pets.openapi.yaml"], ids=["file-url", "path"]
)
def test_a_remote_document_may_not_read_a_local_file(tmp_path: Path, server, form: str) -> None:
    (tmp_path / "pets.openapi.yaml").write_text(yaml.safe_dump(PETS_OPENAPI))
    url = form.format(tmp=tmp_path).replace("////", "///")
    child = _doc([{"name": "pets", "url": url}], [pet_list()], "child")
    server.reply("GET", "/flows/child.arazzo.yaml", (200, child, {"Content-Type": "application/yaml"}))
    parent = _parent_of(tmp_path, server.url + "/flows/child.arazzo.yaml")

    result = arazzo_in(tmp_path, "run", parent, "--format", "json")
    assert result.code == 2
    assert _error_kinds(result) == ["source"]  # --format json: the error document, nothing run
    line = child.splitlines().index("sourceDescriptions:") + 2  # the `- name: pets` entry below it
    assert f"{server.url}/flows/child.arazzo.yaml:{line}:" in result.err
    assert f"cannot read {url}: {REMOTE_REFUSAL} ({tmp_path}/pets.openapi.yaml)" in result.err
    assert [r.path for r in server.requests] == ["/flows/child.arazzo.yaml"]


def test_a_remote_documents_relative_paths_resolve_against_its_url(tmp_path: Path, server) -> None:
    """`../specs/x` in a remote document names a file on its server, even where a local file of that
    name exists next to the local parent document."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "pets.openapi.yaml").write_text("not: the one to read\n")
    sources = [{"name": "pets", "url": "../specs/pets.openapi.yaml"}]
    served = (200, yaml.safe_dump(PETS_OPENAPI), {"Content-Type": "application/yaml"})
    server.reply("GET", "/flows/child.arazzo.yaml", (200, _doc(sources, [pet_list()], "child")))
    server.reply("GET", "/specs/pets.openapi.yaml", served)
    server.reply("GET", "/pets", (200, []))
    parent = _parent_of(tmp_path, server.url + "/flows/child.arazzo.yaml")

    argv = ["--server", f"pets={server.url}", "--format", "json"]
    result = arazzo_in(tmp_path / "flows", "run", parent, *argv)
    assert result.code == 0, result.err
    assert result.json["status"] == "passed"
    fetched = [r.path for r in server.requests if r.path != "/pets"]
    assert set(fetched) == {"/flows/child.arazzo.yaml", "/specs/pets.openapi.yaml"}
    assert [r.path for r in server.requests].count("/pets") == 1


def pet_list(step_id: str = "list") -> dict:
    return {
        "stepId": step_id,
        "operationId": "listPets",
        "successCriteria": [{"condition": "$statusCode == 200"}],
    }


# -- the sandbox ----------------------------------------------------------------------------------------


@pytest.fixture
def split(tmp_path: Path) -> Path:
    """<tmp>/flows/flow.arazzo.yaml reads ../specs/pets.openapi.yaml; <tmp>/specs-evil/ exists too."""
    for folder in ("flows", "specs", "specs-evil", "elsewhere"):
        (tmp_path / folder).mkdir()
    (tmp_path / "specs" / "pets.openapi.yaml").write_text(yaml.safe_dump(PETS_OPENAPI))
    source = {"name": "pets", "url": "../specs/pets.openapi.yaml"}
    (tmp_path / "flows" / "flow.arazzo.yaml").write_text(_doc([source], [pet_list()]))
    return tmp_path


def test_the_sandbox_refuses_a_read_outside_it_with_a_located_message(split: Path, server) -> None:
    flow = split / "flows" / "flow.arazzo.yaml"
    result = arazzo_in(split / "elsewhere", "run", flow, "--sandbox", split / "flows", "--format", "json")
    assert result.code == 2
    assert _error_kinds(result) == ["source"]
    target = os.path.realpath(split / "specs" / "pets.openapi.yaml")
    line = flow.read_text().splitlines().index("sourceDescriptions:") + 2  # the entry of source pets
    assert result.err.startswith(
        f"{flow}:{line}:3: source 'pets' (../specs/pets.openapi.yaml) cannot be loaded"
    )
    assert f"{target} is outside the sandbox ({os.path.realpath(split / 'flows')})" in result.err
    assert "--sandbox DIR" in result.err
    assert server.requests == []

    server.reply("GET", "/pets", (200, []))
    sandbox = ["--sandbox", split / "flows", "--sandbox", split / "specs"]
    allowed = arazzo_in(split / "elsewhere", "run", flow, *sandbox, "--server", f"pets={server.url}")
    assert allowed.code == 0, allowed.err
    assert [r.path for r in server.requests] == ["/pets"]


def test_a_sandbox_folder_must_exist(split: Path) -> None:
    result = arazzo_in(split, "validate", "flows/flow.arazzo.yaml", "--sandbox", "nowhere")
    assert result.code == 2
    assert "argument --sandbox: 'nowhere' is not an existing folder" in result.err


def test_allow_path_is_a_deprecated_alias_of_sandbox(split: Path) -> None:
    result = arazzo_in(
        split / "elsewhere", "describe", split / "flows/flow.arazzo.yaml", "--allow-path", split / "specs"
    )
    assert result.code == 0, result.err
    assert "GET /pets" in result.out
    assert "warning: --allow-path is deprecated" in result.err

    refused = arazzo_in(split, "validate", "flows/flow.arazzo.yaml", "--allow-path", "specs-evil")
    assert refused.code == 0  # an unreadable source is a warning of validate; its checks are skipped
    assert "is outside the sandbox" in refused.out
    assert "warning: --allow-path is deprecated" in refused.err
