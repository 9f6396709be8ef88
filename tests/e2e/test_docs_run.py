"""Docs run: every code block of README.md, docs/*.md and examples/README.md is run as `dockit.py`
describes (python scripts, console commands against servers the test starts, MCP configurations, data
that must parse), or skipped with its reason printed, or named as covered by another test; a block no
rule classifies fails. The commands run in a copy of the repository, so what they write stays there."""

from __future__ import annotations

import configparser
import json
import re

import pytest
import yaml

from tests.e2e import docrun
from tests.e2e.dockit import Block, collect, matches, parse_marker, substitute
from tests.e2e.helpers import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

BLOCKS = collect()


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory):
    return docrun.repository_copy(tmp_path_factory.mktemp("repository"))


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_the_block_runs_as_documented(block: Block, repository, tmp_path) -> None:
    kind = block.kind
    assert not kind.startswith("unclassified"), f"{block.id}: {kind}\n{block.text}"
    if kind == "skip":
        pytest.skip(f"{block.id}: {block.marker['skip'][0]}")
    if kind == "covered-by":
        (node,) = block.marker["covered-by"]
        path, _, name = node.partition("::")
        assert re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), node
        return
    if kind == "text":
        return
    if kind == "data":
        _parse(block)
        return
    runners = {
        "python": lambda: docrun.run_python(block, repository, tmp_path / "block.py"),
        "console": lambda: docrun.run_console(block, repository),
        "serves": lambda: docrun.run_serving(block, repository),
        "mcp-config": lambda: docrun.run_mcp_config(block, repository),
        "signatures": lambda: docrun.check_signatures(block),
    }
    problems = runners[kind]()
    assert problems == [], f"{block.id}:\n" + "\n\n".join(problems)


def _parse(block: Block) -> None:
    if block.language == "json":
        json.loads(block.text)
    elif block.language == "toml":
        tomllib.loads(block.text)
    elif block.language == "ini":
        configparser.ConfigParser().read_string(block.text)
    else:
        yaml.safe_load(block.text)


def test_every_document_has_blocks_and_every_kind_is_used() -> None:
    files = {b.file for b in BLOCKS}
    assert {"README.md", "docs/library.md", "docs/load.md", "docs/validation.md"} <= files
    kinds = {b.kind for b in BLOCKS}
    assert {"python", "console", "serves", "mcp-config", "data", "text"} <= kinds
    assert {"skip", "covered-by", "signatures"} <= kinds


def test_the_rules_classify_and_match_as_said() -> None:
    """The collector's own rules, on blocks made here: what it refuses, what it matches."""
    assert Block("x.md", 1, "console", "$ arazzo demo\n").kind == "console"
    assert Block("x.md", 1, "", "$ arazzo demo\n").kind.startswith("unclassified: a `$ ` command")
    assert Block("x.md", 1, "mermaid", "graph TD\n").kind.startswith("unclassified: a `mermaid` block")
    assert Block("x.md", 1, "console", "master$ arazzo load\n").kind.startswith("unclassified: lines")
    assert Block("x.md", 1, "python", "x\n", {"needs": ["nope"]}).kind.startswith("unclassified: unknown")
    assert Block("x.md", 1, "python", "x\n", {"wait": []}).kind.startswith("unclassified: unknown marker")
    assert parse_marker("needs a b; exit 0 1") == {"needs": ["a", "b"], "exit": ["0", "1"]}
    assert parse_marker("skip needs a key: none here") == {"skip": ["needs a key: none here"]}
    block = Block("x.md", 1, "console", "$ a \\\n    --b\nout 1\n...\nlast\n$ c &\n")
    assert [(c.text, c.expected, c.background) for c in block.commands()] == [
        ("a \\\n    --b", ["out 1", "...", "last"], False),
        ("c &", [], True),
    ]
    assert matches(["out 1", "...", "last"], ["out 1", "x", "y", "last"])
    assert matches(["out 1", "...", "last"], ["out 1", "last"])
    assert not matches(["out 1", "last"], ["out 1", "x", "last"])
    assert matches(["took ... ms"], ["took 12 ms"]) and not matches(["took ... ms"], ["took 12 s"])
    signatures = Block("x.md", 1, "python", "load_text(text) -> X\nLoadedDocument.data  # ...\nnope_fn(x)\n")
    assert docrun.check_signatures(signatures) == ["nope_fn: not defined in arazzo_runner"]
    assert substitute("--server a=http://127.0.0.1:8765/v1 --port 8765", {8765: 40001}) == (
        "--server a=http://127.0.0.1:40001/v1 --port 40001"
    )


def _quietness(args: list[str]) -> int:
    """How many `-q` a pytest command line gives (`-q`, `-qq`, `--quiet`), `-v` taking one back."""
    level = 0
    for arg in args:
        if arg == "--quiet":
            level += 1
        elif arg == "--verbose":
            level -= 1
        elif re.fullmatch(r"-[qv]+", arg):
            level += arg.count("q") - arg.count("v")
    return level


def test_documented_pytest_commands_end_with_the_summary_line() -> None:
    """pyproject's `addopts` already has `-q`; a documented `-q` on top makes `-qq`, which ends without
    the "N passed" line a reader looks for (issue 37, item 19)."""
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    base = _quietness(addopts.split())
    assert base == 1
    too_quiet = [
        f"{block.file}:{block.line}: {command.text}"
        for block in BLOCKS
        if block.language == "console"
        for command in block.commands()
        if "pytest" in command.text.split()[:3] and base + _quietness(command.text.split()) > 1
    ]
    assert too_quiet == []
