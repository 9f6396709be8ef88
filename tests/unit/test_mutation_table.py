"""The recorded mutation audit's table (tests/mutation/, docs/mutation.md) still fits the code: every
mutant's snippet is in its file exactly once, its mutated file still compiles, its tests exist, and the
committed results name every mutant. No mutant is run here (`python -m tests.mutation.audit` runs them)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.mutation.audit import OUTCOMES, RESULTS
from tests.mutation.mutants import ROOT, Mutant, all_mutants

MUTANTS = all_mutants()


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.id for m in MUTANTS])
def test_the_mutant_applies_to_the_current_code(mutant: Mutant) -> None:
    text = (ROOT / mutant.path).read_text(encoding="utf-8")
    assert text.count(mutant.original) == 1, f"{mutant.id}: its snippet is no longer in {mutant.path} once"
    assert mutant.mutated != mutant.original
    compile(mutant.apply(text), mutant.path, "exec")  # a bug, not a syntax error
    assert mutant.note and mutant.tests
    for test in mutant.tests:
        assert (ROOT / test.split("::")[0]).exists(), f"{mutant.id}: no {test}"


def test_mutant_ids_are_unique_and_every_package_has_several() -> None:
    assert len({m.id for m in MUTANTS}) == len(MUTANTS)
    per_package = Counter(m.package for m in MUTANTS)
    assert min(per_package.values()) >= 5, per_package


def test_the_committed_results_are_those_of_the_current_table() -> None:
    """A mutant added, removed or renumbered without a run of the audit leaves docs/mutation.md stale."""
    outcomes = json.loads(OUTCOMES.read_text(encoding="utf-8"))
    assert set(outcomes) == {m.id for m in MUTANTS}
    assert set(outcomes.values()) <= {"killed", "survived", "equivalent"}
    listed = RESULTS.read_text(encoding="utf-8")
    for mutant in MUTANTS:
        assert f"| {mutant.id} | {mutant.path} |" in listed, mutant.id
    for mutant in MUTANTS:
        if outcomes[mutant.id] == "equivalent":
            assert mutant.equivalent, f"{mutant.id} survives with no reason why it is equivalent"
