"""Where the tests find the team's shared folder, `../shared` beside the repository (not part of it):
the Arazzo specification texts, the official JSON Schemas with their test fixtures and examples, and a
corpus of real-world documents. Tests that read it skip, or are not made, without it.

`ARAZZO_SHARED=PATH` points the tests elsewhere; a path that does not exist hides the folder, which is
what a clone without it sees (the README's *Tests* section counts those tests, and a test checks the
counts by collecting and running the suite so)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ARAZZO_SHARED") or ROOT.parent / "shared").resolve()
# the reason every test that needs it gives when it skips; "NOT TESTED here" lists it at the end of the
# run (tests/untested.py), since those tests are the conformance claims over the official texts
MISSING = (
    "../shared is not available: the claims over the specification's schemas, fixtures, examples and "
    "the corpus are NOT TESTED here"
)
