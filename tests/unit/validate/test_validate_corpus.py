"""Every Arazzo document under ../shared validates without a crash; the known real mistakes are found; the
project's own workflows validate as documented in docs/validation.md."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from arazzo_runner.errors import ArazzoError
from arazzo_runner.loader import load_path
from arazzo_runner.validate import RULES, Report, validate_path
from tests.shared import MISSING, SHARED

ROOT = Path(__file__).resolve().parents[3]
WORKFLOWS = ROOT / "workflows"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=MISSING)


def _documents(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
            continue
        try:
            data = load_path(path).data
        except ArazzoError:
            continue
        if isinstance(data, dict) and "arazzo" in data:
            found.append(path)
    return found


CORPUS = _documents(SHARED / "corpus")


@cache
def _report(path: Path) -> Report:
    return validate_path(path, remote=False)


@needs_shared
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(SHARED / "corpus")))
def test_corpus_document_validates_without_a_crash(path: Path) -> None:
    report = _report(path)
    assert report.readable
    for finding in report.findings:
        assert finding.rule in RULES
        assert finding.severity in ("error", "warning")
        assert finding.line >= 1 and finding.column >= 1
        assert finding.file == str(path)
        assert finding.path == "" or finding.path.startswith("/")
        assert finding.message


@needs_shared
def test_the_corpus_is_all_there() -> None:
    assert len(CORPUS) > 90


def _rules_at(relative: str) -> dict[str, list[int]]:
    report = _report(SHARED / relative)
    found: dict[str, list[int]] = {}
    for finding in report.findings:
        found.setdefault(finding.rule, []).append(finding.line)
    return found


@needs_shared
@pytest.mark.parametrize(
    ("relative", "rule", "line"),
    [
        # plain operationIds with several sources
        (
            "corpus/api-evangelist-stripe/arazzo/stripe-launch-subscription-workflow.yml",
            "plain-operation-id",
            56,
        ),
        # `$.x == "y"` JSONPath forms
        (
            "corpus/api-evangelist-stripe/arazzo/stripe-authorize-and-capture-payment-workflow.yml",
            "jsonpath-comparison-form",
            85,
        ),
        # missing action names
        ("corpus/strefethen-arazzo-cli/error-handling-retry.arazzo.yaml", "schema", 32),
        # the specification's own examples: a source name with the wrong case, a missing step
        ("arazzo/schema-tests/1.1/pass/openapi-success-criteria.arazzo.yaml", "source-reference", 13),
        (
            "arazzo/schema-tests/1.1/pass/payload-replacement-using-selector.arazzo.yaml",
            "output-reference",
            19,
        ),
        ("arazzo/examples/1.0.0/FAPI-PAR.arazzo.yaml", "operation-exists", 102),
        ("arazzo/examples/1.0.0/bnpl-arazzo.yaml", "step-output-shorthand", 260),
        ("arazzo/examples/1.0.0/pet-coupons.arazzo.yaml", "parameter-required", 39),
    ],
)
def test_known_real_mistakes_are_found(relative: str, rule: str, line: int) -> None:
    assert line in _rules_at(relative).get(rule, []), _rules_at(relative)


def test_the_seed_workflow_warns_about_the_bare_expression_and_has_no_errors() -> None:
    report = validate_path(WORKFLOWS / "seed-chat-completion-tool-call.arazzo.yaml")
    assert report.errors == [], [str(f) for f in report.errors]
    bare = [f for f in report.warnings if f.rule == "bare-expression"]
    assert [f.line for f in bare] == [58, 109]
    assert all("write 'Bearer {$inputs.apiKey}'" in f.message for f in bare)
    assert report.valid
    assert not validate_path(WORKFLOWS / "seed-chat-completion-tool-call.arazzo.yaml", strict=True).valid


def test_the_scenarios_workflow_is_clean() -> None:
    report = validate_path(WORKFLOWS / "chat-completions-scenarios.arazzo.yaml")
    assert report.findings == [], [str(f) for f in report.findings]


def test_the_tool_call_workflow_is_clean_under_strict() -> None:
    # the flagship: its branch criteria are RFC 9535 filters, not the seed's `$.x == "y"` form
    report = validate_path(WORKFLOWS / "chat-completion-tool-call.arazzo.yaml", strict=True)
    assert report.findings == [], [str(f) for f in report.findings]
    assert report.valid
