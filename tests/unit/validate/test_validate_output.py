"""Output formats (text, JSON, SARIF 2.1.0) and exit codes through `run_validate`."""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import pytest

from arazzo_runner.cli.validate import add_validate_parser, run_validate
from arazzo_runner.validate import RULES

from .conftest import Check

ROOT = Path(__file__).resolve().parents[3]
SEED = ROOT / "workflows" / "seed-chat-completion-tool-call.arazzo.yaml"
CLEAN = ROOT / "workflows" / "chat-completions-scenarios.arazzo.yaml"

BROKEN = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs: {name: $steps.s.output.name}
      - stepId: s
        operationId: listPets
"""
WARNS = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs: {first: $response.body.0}
"""


def _run(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="arazzo")
    add_validate_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["validate", *map(str, argv)])
    out = io.StringIO()
    return run_validate(args, out), out.getvalue()


@pytest.fixture
def files(write) -> dict[str, Path]:
    from .conftest import OPENAPI

    write("api.yaml", OPENAPI)
    return {
        "broken": write("broken.arazzo.yaml", BROKEN),
        "warns": write("warns.arazzo.yaml", WARNS),
        "unparsable": write("bad.arazzo.yaml", "arazzo: [1.0.1\n"),
    }


def test_text_output_is_compiler_style(files: dict[str, Path]) -> None:
    code, out = _run(files["broken"])
    assert code == 1
    lines = out.splitlines()
    pattern = re.compile(
        r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning) (?P<rule>[a-z-]+): .+$"
    )
    findings = [pattern.match(line) for line in lines[:-1]]
    assert all(findings), lines
    assert [(m["rule"], int(m["line"])) for m in findings] == [
        ("expression-syntax", 9),
        ("step-id-unique", 10),
    ]
    assert all(m["file"] == str(files["broken"]) for m in findings)
    assert lines[-1] == "2 errors, 0 warnings in 1 file"


def test_json_output(files: dict[str, Path]) -> None:
    code, out = _run(files["broken"], files["warns"], "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["valid"] is False
    assert [f["rule"] for f in data["findings"]] == [
        "expression-syntax",
        "step-id-unique",
        "expression-accessor",
    ]
    first = data["findings"][0]
    assert set(first) == {"rule", "severity", "message", "file", "path", "line", "column", "fix"}
    assert first["fix"] is None  # a syntax error has no mechanical fix
    assert first["path"] == "/workflows/0/steps/0/outputs/name"
    assert (first["line"], first["column"], first["severity"]) == (9, 25, "error")


def test_sarif_output(files: dict[str, Path]) -> None:
    code, out = _run(files["broken"], files["warns"], "--format", "sarif")
    assert code == 1
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    assert "sarif" in sarif["$schema"]
    driver = sarif["runs"][0]["tool"]["driver"]
    assert driver["name"] == "arazzo-engine"
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    assert all(r["shortDescription"]["text"] and r["defaultConfiguration"]["level"] for r in driver["rules"])
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("expression-syntax", "error"),
        ("step-id-unique", "error"),
        ("expression-accessor", "warning"),
    ]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["region"]["startLine"] >= 1 and location["region"]["startColumn"] >= 1
        assert location["artifactLocation"]["uri"].endswith(".arazzo.yaml")
        assert result["message"]["text"]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    assert (
        results[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
        == "/workflows/0/steps/0/outputs/name"
    )


def test_exit_codes(files: dict[str, Path]) -> None:
    assert _run(CLEAN)[0] == 0
    assert _run(files["warns"])[0] == 0  # warnings are allowed
    assert _run(files["warns"], "--strict")[0] == 1
    assert _run(files["broken"])[0] == 1
    assert _run(files["unparsable"])[0] == 2
    assert _run(files["broken"], files["unparsable"])[0] == 2  # unreadable wins
    assert _run(files["broken"].with_name("missing.arazzo.yaml"))[0] == 2


def test_unreadable_file_is_reported_as_a_finding(files: dict[str, Path]) -> None:
    code, out = _run(files["unparsable"], "--format", "json")
    assert code == 2
    [finding] = json.loads(out)["findings"]
    assert finding["rule"] == "document-parse" and finding["line"] >= 1


def test_schema_only(files: dict[str, Path]) -> None:
    code, out = _run(files["broken"], "--schema-only")
    assert (code, out.splitlines()[-1]) == (0, "0 errors, 0 warnings in 1 file")


def test_seed_exits_zero_with_the_braced_fix_and_one_with_strict() -> None:
    code, out = _run(SEED)
    assert code == 0
    assert "warning bare-expression: bare runtime expression $inputs.apiKey" in out
    assert "write 'Bearer {$inputs.apiKey}'" in out
    assert _run(SEED, "--strict")[0] == 1


def test_offline_skips_remote_sources(check: Check) -> None:
    report = check(
        """\
        arazzo: 1.0.1
        info: {title: t, version: '1'}
        sourceDescriptions: [{name: api, url: 'https://example.invalid/api.yaml', type: openapi}]
        workflows:
          - workflowId: w
            steps: [{stepId: s, operationId: listPets}]
        """,
        sources=True,
    )
    [finding] = report.findings
    assert finding.rule == "source-unavailable" and "not fetched" in finding.message
    assert report.valid and finding.line == 3
