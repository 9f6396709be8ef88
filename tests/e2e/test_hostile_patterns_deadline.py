"""`--deadline` holds for RFC 9535 `search()`/`match()` and `regex` criteria whatever the machine's load
(issue 23, point 7).

The `regex` module's timeout counts CPU time: given the time left before the deadline, a backtracking
match on a busy machine ran twice as long as the clock allowed (`$[?search(@.name,'(a|aa)+$')]` on a
45-character name: 5.8-6.6 s under `--deadline 3`). Every such match now goes through the one bounded
matcher (`patterns.py`): a short slice of CPU time here, then the evaluation worker, which the clock
stops. So this process no longer spends the deadline's time matching: the tests bound this process's
CPU time (`tests/cputime.py`), never the wall clock, well below the deadline the run is given.
"""

from __future__ import annotations

import pytest

from arazzo_runner.bounds import budget, limits, patterns
from tests.cputime import cpu_bound
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import op_step, run_json, step, workflow

LONG = "a" * 44 + "!"  # 45 characters: `(a|aa)+$` backtracks for minutes before failing
DEADLINE = 3
CASES = {
    "jsonpath search()": ("$.items[?search(@.name, '(a|aa)+$')]", "jsonpath", "$response.body"),
    "jsonpath match()": ("$.items[?match(@.name, '(a|aa)+')]", "jsonpath", "$response.body"),
    "regex": ("(a|aa)+$", "regex", "$response.body#/items/0/name"),
}


@pytest.mark.parametrize("case", CASES)
def test_the_deadline_ends_the_match_not_this_process_s_cpu(capsys, write, server, monkeypatch, case):
    condition, kind, context = CASES[case]
    monkeypatch.setattr(limits, "REGEX_TIMEOUT", 30.0)  # the deadline comes first for every case
    server.reply("GET", "/pets", (200, {"items": [{"name": LONG}]}))
    criterion = {"context": context, "condition": condition, "type": kind}
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets", successCriteria=[criterion]))))
    with cpu_bound(DEADLINE / 2, f"a run with a {case} criterion and --deadline {DEADLINE}"):
        result = run_json(capsys, path, "--deadline", DEADLINE, server=server)
    assert result.code == 1
    got = step(result)
    assert got["status"] == "failed"
    assert got["error"].endswith(f"run deadline of {DEADLINE} s exceeded"), got["error"]


def test_a_selector_s_search_is_stopped_at_the_deadline_too(capsys, write, server):
    server.reply("GET", "/pets", (200, {"items": [{"name": LONG}]}))
    selector = {
        "context": "$response.body",
        "selector": "$.items[?search(@.name, '(a|aa)+$')]",
        "type": "jsonpath",
    }
    listing = op_step("list", "listPets", outputs={"long": selector})
    path = write(arazzo_doc(workflow("flow", listing), version="1.1.0"))
    with cpu_bound(DEADLINE / 2, "a run with an expensive search() selector"):
        result = run_json(capsys, path, "--deadline", DEADLINE, server=server)
    got = step(result)
    assert got["outputs"] == {"long": None}
    assert any(f"run deadline of {DEADLINE} s exceeded" in w for w in got["warnings"]), got


def test_a_slow_match_that_ends_gets_its_answer_from_the_worker():
    """Past its slice here, a match that does end is answered by the worker: the same answer, with this
    process's CPU time bounded by the slice, not by the match."""
    slow = "a" * 32 + "b"  # `^(a|aa)+c|b` backtracks ~0.5 s of CPU before `b` matches at the end
    with cpu_bound(0.8, "a slow search"):  # here: 4 slices of 0.05 s; the matches themselves: ~2 s
        assert patterns.search(r"^(a|aa)+c|b", slow, budget.budget(30)) is True
        assert patterns.bounded(r"^(a|aa)+c|b", slow, budget.budget(30), version1=True) is True
        assert patterns.bounded(r"(a|aa)+c|a+b", slow, budget.budget(30), full=True) is True
        assert patterns.search(r"^(a|aa)+c|x", slow, budget.budget(30)) is False


def test_ordinary_patterns_are_answered_here_as_before():
    spent = budget.budget(5)
    assert patterns.search(r"^\d{3}-\d{4}$", "555-1234", spent) is True
    assert patterns.bounded(r"\p{Lu}\w+", "Hello", spent, version1=True) is True
    assert patterns.bounded("ab", "xaby", spent, full=True) is False
    assert patterns.bounded("ab", "ab", spent, full=True) is True
    with pytest.raises(ValueError):
        patterns.bounded("(", "x", spent)
