"""`--format json` prints one JSON document on every exit code, exit 2 included: CI that parses stdout
never gets an empty one. Errors are entries `{kind, message, rule, file, path, line, column}`; a command
that stops before its result prints `{"status": "error", "exitCode": 2, "errors": [...]}`."""

from __future__ import annotations

import json

import pytest

from arazzo_runner import cli as cli_module
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, subprocess_cli, workflow

ENTRY_KEYS = {"kind", "message", "rule", "file", "path", "line", "column"}
DOCUMENT_COMMANDS = ("run", "list", "describe", "graph", "auth")
BAD_YAML = "arazzo: 1.0.1\ninfo: {title: t\n  version: 1\nworkflows: []\n"


def _error(result) -> dict:
    """The one error of an error document, after checking the document's shape."""
    assert result.code == 2, result.out + result.err
    data = result.json  # exactly one JSON document on stdout
    assert data["status"] == "error" and data["exitCode"] == 2, data
    (error,) = data["errors"]
    assert set(error) == ENTRY_KEYS
    assert "Traceback" not in result.err and result.err  # the human message is on stderr, as in text
    return error


@pytest.mark.parametrize("command", [*DOCUMENT_COMMANDS, "validate"])
def test_a_usage_error_of_argparse(capsys, command):
    error = _error(cli(capsys, command, "--format", "json"))  # no FILE
    assert error["kind"] == "usage"
    assert "the following arguments are required" in error["message"]


@pytest.mark.parametrize("argv", [["--format=json", "--bogus"], ["--form", "json", "--max-steps", "0"]])
def test_flag_errors_with_the_format_spelt_otherwise(capsys, write, argv):
    error = _error(
        cli(capsys, "run", write(arazzo_doc(workflow("flow", op_step("list", "listPets")))), *argv)
    )
    assert error["kind"] == "usage"
    assert "--bogus" in error["message"] or "must be at least 1" in error["message"]


def test_an_invalid_format_choice_is_text(capsys):
    # `--format xml` did not ask for JSON: the usage error is on stderr only
    result = cli(capsys, "run", "flow.yaml", "--format", "xml")
    assert result.code == 2 and result.out == "" and "invalid choice: 'xml'" in result.err


@pytest.mark.parametrize("command", DOCUMENT_COMMANDS)
def test_an_unreadable_file(capsys, tmp_path, command):
    missing = tmp_path / "missing.arazzo.yaml"
    error = _error(cli(capsys, command, missing, "--format", "json"))
    assert error["kind"] == "document"
    assert error["file"] == str(missing)
    assert "cannot read the file" in error["message"]


@pytest.mark.parametrize("command", DOCUMENT_COMMANDS)
def test_a_document_error_is_located(capsys, write, command):
    path = write(BAD_YAML)
    result = cli(capsys, command, path, "--format", "json")
    error = _error(result)
    assert error["kind"] == "document"
    assert error["file"] == str(path)
    assert (error["line"], error["column"]) == (3, 10)
    assert error["message"].startswith("did not find expected ',' or '}'")
    assert result.err.startswith(f"{path}:3:10: did not find expected")  # stderr as in text format


def test_missing_inputs(capsys, write, server):
    schema = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"), inputs=schema)))
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--format", "json", "--no-dotenv")
    error = _error(result)
    assert error["kind"] == "usage"
    assert "workflow 'flow' needs inputs that were not given" in error["message"]
    assert "--input name=..." in error["message"]
    assert server.requests == []


def test_an_unknown_workflow(capsys, write, server):
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))))
    for command in ("run", "describe", "graph"):
        error = _error(cli(capsys, command, path, "--workflow", "nope", "--format", "json"))
        assert error["kind"] == "usage" and "no workflow 'nope'" in error["message"]
    assert server.requests == []


def test_a_document_refused_by_validation_gives_each_finding_with_its_rule(capsys, write, server):
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPet"))))  # no such operationId
    error = _error(cli(capsys, "run", path, "--server", f"pets={server.url}", "--format", "json"))
    assert error["kind"] == "validation"
    assert error["rule"] == "operation-exists"
    assert error["file"] == str(path) and error["line"] and error["column"]
    assert error["path"].endswith("/operationId")
    assert "did you mean listPets?" in error["message"]
    assert server.requests == []


@pytest.mark.parametrize("rows", [False, True], ids=["run", "inputs-file"])
def test_a_report_that_cannot_be_written_adds_errors_to_the_result(capsys, write, server, tmp_path, rows):
    server.reply("GET", "/pets", (200, []))
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))))
    extra = ["--inputs-file", _rows(tmp_path)] if rows else []
    junit = tmp_path  # a folder: the report file cannot be written there
    result = cli(
        capsys, "run", path, "--server", f"pets={server.url}", "--format", "json", "--junit", junit, *extra
    )
    assert result.code == 2
    data = result.json
    assert data["status"] == "passed"  # the run itself passed and its result is all there
    assert ("rows" in data) is rows
    (error,) = data["errors"]
    assert set(error) == ENTRY_KEYS
    assert error["kind"] == "report" and error["message"].startswith(f"--junit {tmp_path}: cannot write")


def _rows(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("{}\n{}\n")
    return path


def test_validate_adds_the_unreadable_files_to_its_document(capsys, write, tmp_path):
    good = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))))
    bad = tmp_path / "bad.arazzo.yaml"
    bad.write_text(BAD_YAML)
    result = cli(capsys, "validate", good, bad, "--format", "json")
    assert result.code == 2
    data = result.json
    assert data["valid"] is False
    (error,) = data["errors"]
    assert error == {
        "kind": "document",
        "message": error["message"],
        "rule": "document-parse",
        "file": str(bad),
        "path": None,
        "line": 3,
        "column": 10,
    }
    assert "errors" not in cli(capsys, "validate", good, "--format", "json").json  # only on exit 2


def test_a_bug_still_prints_a_document_and_its_traceback(capsys, monkeypatch, write):
    def broken(args):
        raise KeyError("sk-secret-in-a-message")

    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))))
    monkeypatch.setattr(cli_module, "_register", _registering_list_with(broken))
    with pytest.raises(KeyError):
        cli_module.main(["list", str(path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["exitCode"] == 1
    assert data["errors"][0]["kind"] == "internal"
    assert "KeyError" in data["errors"][0]["message"] and "sk-secret" not in data["errors"][0]["message"]


def _registering_list_with(handler):
    from arazzo_runner.cli import listing

    def register(name, commands):
        listing.register(commands)
        commands.choices["list"].set_defaults(handler=handler)

    return register


def test_a_real_process_prints_the_document(tmp_path):
    result = subprocess_cli("describe", tmp_path / "missing.arazzo.yaml", "--format", "json")
    assert result.code == 2
    (error,) = result.json["errors"]
    assert error["kind"] == "document" and error["file"].endswith("missing.arazzo.yaml")
