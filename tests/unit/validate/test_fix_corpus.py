"""`--fix` over every Arazzo document of `../shared` (the corpus, the official examples, the schema tests):
every fix is made in place, the result has no fixable finding left, a second pass changes nothing, and
only the lines holding an edited scalar differ: every other line is byte for byte the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from arazzo_runner.loader import load_path
from arazzo_runner.loader.spans import scalar_spans
from arazzo_runner.validate.core import validate_loaded
from arazzo_runner.validate.fix import fix_path, fix_text
from tests.shared import MISSING, SHARED
from tests.unit.test_corpus_documents import FILES

DOCUMENTS = FILES  # every Arazzo document of ../shared (tests/unit/test_corpus_documents.py)


def test_the_corpus_has_fixable_documents() -> None:
    if not DOCUMENTS:
        pytest.skip(MISSING)
    fixed = [p for p in DOCUMENTS[:: max(1, len(DOCUMENTS) // 40)] if fix_path(p, remote=False).changed]
    assert fixed, "no document of the sample needed a fix: the round trip would prove nothing"


@pytest.mark.skipif(not DOCUMENTS, reason=MISSING)
@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(SHARED)))
def test_fix_round_trips(path: Path) -> None:
    result = fix_path(path, remote=False)
    assert result.problems == []
    assert [f for f in result.report.findings if f.fix] == []
    if not result.changed:
        assert not result.fixed
        return
    location = str(path.resolve())
    again = fix_text(result.after, str(path), lambda loaded: validate_loaded(loaded, location, remote=False))
    assert not again.changed, [f"{f.rule} {f.path}" for f in again.fixed]
    before, after = result.before.splitlines(keepends=True), result.after.splitlines(keepends=True)
    assert len(before) == len(after)
    spans = scalar_spans(result.before, load_path(path).format)
    edited: set[int] = set()
    for finding in result.fixed:
        for edit in finding.fix:
            scalar = (spans.keys if edit.key else spans.values)[edit.path]
            first = result.before.count("\n", 0, scalar.start)
            edited.update(range(first, first + result.before.count("\n", scalar.start, scalar.end) + 1))
    changed = {i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b}
    assert changed and changed <= edited
