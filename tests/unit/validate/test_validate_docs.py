"""docs/validation.md lists every rule with its severity, as the catalogue does."""

from __future__ import annotations

import re
from pathlib import Path

from arazzo_runner.validate import RULES

DOC = Path(__file__).resolve().parents[3] / "docs" / "validation.md"


def _table(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"<!-- BEGIN {name} -->\n(.*?)<!-- END {name} -->", text, re.S)
    assert match, f"no {name} block in {DOC}"
    return match.group(1)


def test_the_rule_table_matches_the_catalogue() -> None:
    rows = re.findall(r"^\| `([a-z-]+)` \| (error|warning) \| ([a-z]+) \| (.+) \|$", _table("rules"), re.M)
    assert [(rule, severity, area) for rule, severity, area, _ in rows] == [
        (rule.id, rule.severity, rule.area) for rule in RULES.values()
    ]
    assert all(summary.strip() for *_, summary in rows)


def test_the_corpus_table_names_known_rules() -> None:
    table = _table("corpus")
    assert "| **all** |" in table
    named = set(re.findall(r"^\| `([a-z-]+)` \| (?:error|warning) \|", table, re.M))
    assert named and named <= set(RULES)


def test_the_readme_counts_the_rules() -> None:
    readme = (DOC.parents[1] / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"(\d+) rules in all", readme) == [str(len(RULES))]
