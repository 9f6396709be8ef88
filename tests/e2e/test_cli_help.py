"""Help and usage errors: every command's `--help` has a description, examples that parse and name files
of the repository, and its exit codes; a misspelt flag, command or choice gets the sub-command's usage
line and a did-you-mean, in text and in the JSON error document."""

from __future__ import annotations

import glob
import re
import shlex

import pytest

from arazzo_runner.cli import COMMANDS, build_parser
from arazzo_runner.cli.help_text import COMMANDS as HELP
from tests.e2e.helpers import ROOT, cli, subprocess_cli

PETSTORE = "examples/petstore/petstore.arazzo.yaml"


def _example_words(example: str) -> list[str]:
    """An example as the shell would split it: continuation lines joined, the comment, an environment
    assignment before the command and a pipe after it left out."""
    line = example.replace("\\\n", " ")
    words = shlex.split(line, comments=True)
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        words.pop(0)
    return words[: words.index("|")] if "|" in words else words


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_a_description_examples_and_exit_codes(capsys, command):
    result = cli(capsys, command, "--help")
    assert result.code == 0
    text = result.out
    assert text.startswith(f"usage: arazzo {command} ")
    assert HELP[command].description in " ".join(text.split("\n\n", 2)[1].split())
    examples = re.search(r"\nexamples:\n(.*?)\n\n", text, re.S).group(1)
    listed = [e for e in re.split(r"\n(?=  arazzo |  [A-Z_]+=)", examples)]
    assert 2 <= len(listed) <= 3, listed
    codes = re.search(r"\nexit codes:\n(.*)$", text, re.S).group(1)
    found = re.findall(r"^  (\d+) +\S", codes, re.M)
    assert found[0] == "0" and set(found) <= {"0", "1", "2", "130"}, codes
    assert found == sorted(found, key=int)
    if command in ("run", "demo", "agent", "load", "mcp"):
        assert "130" in found


@pytest.mark.parametrize(
    ("command", "example"), [(c, e) for c, h in HELP.items() for e in h.examples], ids=lambda v: v[:40]
)
def test_each_example_parses_and_names_files_of_the_repository(command, example):
    words = _example_words(example)
    assert words[:2] == ["arazzo", command]
    args = build_parser(command).parse_args(words[1:])
    named = [args.file] if hasattr(args, "file") else list(getattr(args, "files", []))
    named += getattr(args, "descriptions", [])
    for flag in ("inputs", "inputs_file"):
        if getattr(args, flag, None):
            named.append(getattr(args, flag))
    assert named or command in (
        "demo",
        "lsp",
        "worker",
    )  # they take no document (the editor gives lsp its own)
    for path in named:
        assert glob.glob(str(ROOT / path)), f"{path} does not exist"


def test_the_top_level_help_shows_examples_and_points_to_the_commands(capsys):
    text = cli(capsys, "--help").out
    assert "arazzo COMMAND --help" in text
    assert "\nexamples:\n  arazzo demo\n" in text
    assert "130  interrupted (Ctrl-C)" in text


def test_a_misspelt_flag_gets_the_commands_usage_and_the_closest_flags(capsys):
    result = cli(capsys, "run", PETSTORE, "--inptus", "in.json")
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("usage: arazzo run [-h]")
    assert result.err.endswith(
        "arazzo run: error: unrecognized arguments: --inptus in.json; --inptus: did you mean --inputs or "
        "--input?\n"
    )
    result = cli(capsys, "validate", PETSTORE, "--strcit")
    assert result.err.startswith("usage: arazzo validate ")
    assert result.err.endswith("unrecognized arguments: --strcit; --strcit: did you mean --strict?\n")
    result = cli(capsys, "tools", PETSTORE, "--fromat=mcp")
    assert result.err.endswith("unrecognized arguments: --fromat=mcp; --fromat: did you mean --format?\n")


def test_a_word_with_nothing_close_gets_no_guess(capsys):
    result = cli(capsys, "list", PETSTORE, "--zzz", "extra.yaml")
    assert result.code == 2
    assert result.err.startswith("usage: arazzo list ")
    assert result.err.endswith("arazzo list: error: unrecognized arguments: --zzz extra.yaml\n")


def test_a_misspelt_command_or_choice_gets_the_closest_one(capsys):
    result = cli(capsys, "rnu", PETSTORE)
    assert result.code == 2
    assert result.err.startswith("usage: arazzo [-h]")
    assert result.err.rstrip().endswith("did you mean 'run'?")
    result = cli(capsys, "run", PETSTORE, "--format", "jsno")
    assert result.err.startswith("usage: arazzo run ")
    assert result.err.rstrip().endswith(
        "argument --format: invalid choice: 'jsno' (choose from 'text', 'json'); did you mean 'json'?"
    )


def test_the_hint_is_in_the_json_error_document_too(capsys):
    result = cli(capsys, "run", PETSTORE, "--format", "json", "--inptus", "in.json")
    assert result.code == 2
    (error,) = result.json["errors"]
    assert error["message"].endswith("--inptus: did you mean --inputs or --input?")


def test_a_real_process_prints_the_same():
    result = subprocess_cli("describe", PETSTORE, "--workflw", "pet_status")
    assert result.code == 2
    assert result.err.startswith("usage: arazzo describe ")
    assert "--workflw: did you mean --workflow?" in result.err
