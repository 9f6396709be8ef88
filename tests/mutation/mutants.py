"""The recorded mutation audit's table (issue 41): small, realistic bugs, each written by hand where a
developer could make it, with the tests that should catch it.

A mutant is one exact snippet of one file replaced by another. The snippet must occur exactly once in
the file, so a mutant that no longer applies (the code moved on) is noticed: tests/unit/
test_mutation_table.py checks every mutant against the tree without running any, and
tests/mutation/audit.py runs them (docs/mutation.md holds its last results).

`equivalent` is the reason a mutant cannot change what a user sees: it still runs, and if its tests
kill it after all, the audit counts it killed and says the reason is stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutant:
    """One bug: `original` (exactly once in `path`) replaced by `mutated`, caught by `tests`."""

    id: str
    package: str
    path: str
    original: str
    mutated: str
    tests: tuple[str, ...]
    note: str
    equivalent: str = ""

    def apply(self, text: str) -> str:
        """The mutated text of the file; ValueError when the snippet is not there exactly once."""
        count = text.count(self.original)
        if count != 1:
            raise ValueError(f"{self.id}: the snippet occurs {count} times in {self.path}, not once")
        return text.replace(self.original, self.mutated)


@dataclass(frozen=True)
class Package:
    """The mutants of one package (a module or a few of one concern) and the tests that cover it."""

    name: str
    tests: tuple[str, ...]
    mutants: tuple[tuple, ...]  # (path, original, mutated, note[, tests or equivalent-reason...])


def build(packages: list[Package]) -> list[Mutant]:
    """The packages' rows as mutants, numbered within their package (`masking-3`). A row is
    `(path, original, mutated, note)`, optionally followed by `tests=(...)` as a tuple of test ids
    (replacing the package's) and/or an `equivalent` reason string."""
    found = []
    for package in packages:
        for number, row in enumerate(package.mutants, 1):
            path, original, mutated, note, *extra = row
            tests = next((e for e in extra if isinstance(e, tuple)), package.tests)
            equivalent = next((e for e in extra if isinstance(e, str)), "")
            found.append(
                Mutant(
                    id=f"{package.name}-{number}",
                    package=package.name,
                    path=path,
                    original=original,
                    mutated=mutated,
                    tests=tests,
                    note=note,
                    equivalent=equivalent,
                )
            )
    return found


def tables() -> tuple:
    """The table modules, one per round of the audit, oldest first."""
    from tests.mutation import (
        table_clients,
        table_engine,
        table_issues_22_30,
        table_own_wire,
        table_round49,
        table_round50,
        table_round51,
        table_round52,
        table_round53,
        table_wire,
    )

    return (
        table_issues_22_30,
        table_clients,
        table_engine,
        table_wire,
        table_own_wire,
        table_round49,
        table_round50,
        table_round51,
        table_round52,
        table_round53,
    )


def all_mutants() -> list[Mutant]:
    """Every mutant of the audit, in table order."""
    return build([package for table in tables() for package in table.PACKAGES])
