"""Malformed documents (exit 2, located message, no traceback), `arazzo list`, `arazzo --version`, and the
command run as a real child process."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

from arazzo_runner import __version__
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import ROOT, cli, op_step, subprocess_cli, workflow
from tests.untested import skip_untested

HEAD = """\
arazzo: 1.0.1
info:
  title: Broken
  version: '1'
sourceDescriptions:
  - name: pets
    url: ./pets.openapi.yaml
workflows:
  - workflowId: flow
    steps:
      - stepId: list
"""  # the next line is line 12


def _document_error(capsys, write, text: str, server=None) -> str:
    path = write(text)
    argv = ["run", path] + (["--server", f"pets={server.url}"] if server else [])
    result = cli(capsys, *argv)
    assert result.code == 2, result.out
    assert result.out == ""
    assert "Traceback" not in result.err
    lines = result.err.splitlines()
    if len(lines) == 2:  # refused by validation: the finding, then a summary line
        assert lines[1] == f"error: {path} has 1 error(s); nothing was run"
    else:
        assert len(lines) == 1  # one line, no stack
    if server is not None:
        assert server.requests == []
    prefix = f"{path}:"
    assert lines[0].startswith(prefix)
    return lines[0][len(prefix) :].strip()


def test_bad_yaml(capsys, write):
    message = _document_error(capsys, write, "arazzo: 1.0.1\ninfo: {title: t\n  version: 1\nworkflows: []\n")
    assert re.match(r"\d+:\d+: did not find expected ',' or '}'", message), message


def test_a_tab_indented_yaml_document(capsys, write):
    message = _document_error(capsys, write, "arazzo: 1.0.1\ninfo:\n\ttitle: t\n")
    assert message.startswith("3:1: "), message


def test_a_bad_runtime_expression_in_a_parameter(capsys, write, server):
    text = HEAD + (
        "        operationId: listPets\n"
        "        parameters:\n"
        "          - name: limit\n"
        "            in: query\n"
        "            value: $inputs.\n"
    )
    message = _document_error(capsys, write, text, server)
    assert message == (
        "16:20: error expression-syntax: invalid runtime expression: expected an input name after "
        "'$inputs.', found the end in '$inputs.' at offset 8"
    )


def test_a_bad_embedded_expression_in_a_payload(capsys, write, server):
    text = HEAD.replace("stepId: list", "stepId: create") + (
        "        operationId: createPet\n"
        "        requestBody:\n"
        "          payload:\n"
        "            name: 'pet {$steps.other}'\n"
    )
    message = _document_error(capsys, write, text, server)
    assert message.startswith(
        "15:19: error expression-syntax: invalid embedded expression: expected '.' after '$steps.other'"
    )


def test_a_bad_success_criterion(capsys, write, server):
    text = (
        HEAD
        + "        operationId: listPets\n        successCriteria:\n          - condition: $statusCode ==\n"
    )
    message = _document_error(capsys, write, text, server)
    assert message.startswith("14:24: error condition-syntax: invalid simple condition: "), message
    assert message.endswith("in '$statusCode ==' at offset 14")


def test_an_unknown_operation_id_suggests_the_closest(capsys, write, server):
    message = _document_error(capsys, write, HEAD + "        operationId: listPet\n", server)
    assert message == (
        "12:22: error operation-exists: operationId 'listPet' was not found in source 'pets'; "
        "did you mean listPets?"
    )


def test_a_missing_source_file(capsys, write, tmp_path):
    text = HEAD.replace("./pets.openapi.yaml", "./missing.openapi.yaml") + "        operationId: listPets\n"
    message = _document_error(capsys, write, text)
    assert message.startswith("6:5: source 'pets' (./missing.openapi.yaml) cannot be loaded: ")
    assert "file not found" in message
    assert str(tmp_path / "missing.openapi.yaml") in message


def test_a_missing_document(capsys, tmp_path):
    result = cli(capsys, "run", tmp_path / "nope.yaml")
    assert result.code == 2
    assert result.err.strip() == f"{tmp_path / 'nope.yaml'}: cannot read the file: No such file or directory"


def test_a_document_that_is_not_arazzo(capsys, write):
    message = _document_error(capsys, write, "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n")
    assert re.match(r"\d+:\d+: ", message), message


# -- arazzo list -------------------------------------------------------------------------------------

LIST_DOC = arazzo_doc(
    workflow(
        "adopt",
        op_step("list", "listPets"),
        op_step("create", "createPet"),
        summary="Adopt a pet",
        inputs={
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "description": "The pet's name"},
                "limit": {"type": "integer", "default": 10},
                "dryRun": {"type": "boolean", "default": False},
                "tag": {"type": ["string", "null"], "default": None},
                "sort": {"type": "string", "default": "name"},
            },
        },
        outputs={"id": "$steps.create.outputs.id", "count": "$steps.list.outputs.count"},
    ),
    workflow("plain", op_step("list", "listPets")),
)


def test_list_as_text(capsys, write):
    path = write(LIST_DOC)
    result = cli(capsys, "list", path)
    assert result.code == 0
    assert result.out == (
        f"{path} (Arazzo 1.0.1): test\n"
        "\n"
        "adopt - Adopt a pet\n"
        "  steps: list, create\n"
        "  inputs:\n"
        "    name: string (required)\n"
        "    limit: integer (optional, default 10)\n"
        "    dryRun: boolean (optional, default false)\n"  # JSON, as written: not Python's False
        "    tag: string/null (optional, default null)\n"
        '    sort: string (optional, default "name")\n'
        "  outputs: id, count\n"
        "\n"
        "plain\n"
        "  steps: list\n"
    )


def test_list_as_json(capsys, write):
    path = write(LIST_DOC)
    result = cli(capsys, "list", path, "--format", "json")
    assert result.code == 0
    assert result.json == {
        "file": str(path),
        "arazzo": "1.0.1",
        "title": "test",
        "workflows": [
            {
                "workflowId": "adopt",
                "summary": "Adopt a pet",
                "steps": ["list", "create"],
                "inputs": [
                    {"name": "name", "type": "string", "required": True, "description": "The pet's name"},
                    {"name": "limit", "type": "integer", "required": False, "default": 10},
                    {"name": "dryRun", "type": "boolean", "required": False, "default": False},
                    {"name": "tag", "type": ["string", "null"], "required": False, "default": None},
                    {"name": "sort", "type": "string", "required": False, "default": "name"},
                ],
                "outputs": ["id", "count"],
            },
            {"workflowId": "plain", "summary": None, "steps": ["list"], "inputs": [], "outputs": []},
        ],
    }


def test_list_of_a_bad_document_exits_2(capsys, write):
    result = cli(capsys, "list", write("arazzo: [\n"))
    assert result.code == 2
    assert result.out == ""
    assert re.search(r"flow\.arazzo\.yaml:\d+:\d+: ", result.err)


def test_version_in_process(capsys):
    result = cli(capsys, "--version")
    assert result.code == 0
    assert result.out == f"arazzo {__version__}\n"


# -- as a real child process -------------------------------------------------------------------------


def test_subprocess_version_via_module_and_console_script():
    assert subprocess_cli("--version").out == f"arazzo {__version__}\n"
    script = shutil.which("arazzo")
    if script is None:
        skip_untested("the `arazzo` console script is not on PATH", "the installed `arazzo` command")
    proc = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=20, check=False)
    assert (proc.returncode, proc.stdout) == (0, f"arazzo {__version__}\n")


def test_subprocess_run_json_against_a_real_server(write, server):
    server.reply("GET", "/pets", (200, {"count": 3}))
    doc = arazzo_doc(
        workflow("flow", op_step("list", "listPets", outputs={"count": "$response.body#/count"}))
    )
    result = subprocess_cli("run", write(doc), "--server", f"pets={server.url}", "--format", "json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == "passed"
    assert data["workflows"][0]["steps"][0]["outputs"] == {"count": 3}
    assert result.err == ""


def test_subprocess_text_output_is_plain_when_piped(write, server):
    server.reply("GET", "/pets", (500, {}))
    doc = arazzo_doc(workflow("flow", op_step("list", "listPets")))
    for env in ({}, {"NO_COLOR": "1"}):
        result = subprocess_cli("run", write(doc), "--server", f"pets={server.url}", env=env)
        assert result.code == 1
        assert "\x1b[" not in result.out
        assert re.search(rf"✗  list  GET {re.escape(server.url)}/pets  500  \d+ ms", result.out)
        assert result.out.endswith("0 of 1 workflows passed\n")


def test_subprocess_document_error_exits_2_without_traceback(write):
    result = subprocess_cli("run", write(HEAD + "        operationId: listPet\n"))
    assert result.code == 2
    assert result.out == ""
    expected = ":12:22: error operation-exists: operationId 'listPet' was not found in source 'pets'"
    assert expected + "; did you mean listPets?" in result.err


def test_subprocess_lists_the_bundled_workflow():
    result = subprocess_cli(
        "list", ROOT / "workflows" / "chat-completion-tool-call.arazzo.yaml", "--format", "json"
    )
    assert result.code == 0, result.err
    [flow] = json.loads(result.out)["workflows"]
    assert flow["workflowId"] == "chat-completion-tool-call"
    assert flow["steps"] == ["createCompletion", "resolveToolCall"]
    assert [i["name"] for i in flow["inputs"] if i["required"]] == [
        "apiKey",
        "model",
        "userMessage",
        "toolName",
        "toolResult",
    ]
