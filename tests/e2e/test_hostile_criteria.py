"""Criteria written to exhaust the engine (issue 13, section 2): every evaluation is bounded in time and
memory, at validation as at run time, and `--deadline` holds whatever the criterion is doing.

`(a|aa)+$` on forty `a`s and a `!` backtracks about 10^8 times before failing (minutes in Python's `re`),
`count(1 to 100000000)` builds a 4.7 GB sequence. Every test bounds the CPU time of this process
(`tests/cputime.py`), never the wall clock: the work these documents ask for must be stopped, not merely
waited for on a fast machine.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arazzo_runner.bounds import limits
from tests.cputime import cpu_bound
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import ROOT, cli, op_step, run_json, step, workflow

LONG = "a" * 40 + "!"  # `(a|aa)+$` fails on it after ~10^8 steps of backtracking
CONSTANT_BACKTRACK = f"matches('{LONG}', '(a|aa)+$')"  # XPath folds it while parsing
HUGE_SEQUENCE = "count(1 to 100000000)"  # folded while parsing too: 4.7 GB


def _criterion(condition: str, type_: object, context: str = "$response.body") -> dict:
    return {"context": context, "condition": condition, "type": type_}


def _doc(*criteria: dict) -> dict:
    listing = op_step("list", "listPets", successCriteria=list(criteria))
    return arazzo_doc(workflow("flow", listing))


@pytest.mark.parametrize("condition", [CONSTANT_BACKTRACK, HUGE_SEQUENCE])
def test_validate_stops_an_xpath_whose_constant_part_never_ends(capsys, write, condition):
    path = write(_doc(_criterion(condition, "xpath")))
    with cpu_bound(10, "arazzo validate"):
        result = cli(capsys, "validate", path)
    assert result.code == 1
    assert "error xpath-syntax: invalid xpath condition: " in result.out
    assert "too expensive to evaluate when compiled" in result.out


@pytest.mark.parametrize("condition", [CONSTANT_BACKTRACK, HUGE_SEQUENCE])
def test_run_refuses_such_an_xpath_before_sending_anything(capsys, write, server, condition):
    path = write(_doc(_criterion(condition, "xpath")))
    with cpu_bound(10, "arazzo run"):
        result = run_json(capsys, path, server=server)
    assert result.code == 2
    assert "too expensive to evaluate when compiled" in result.json["errors"][0]["message"]
    assert server.requests == []


def test_validating_a_huge_xpath_sequence_stays_within_the_memory_bound(write):
    """Peak RSS of `arazzo validate` and everything it started, measured by a parent that waits for it."""
    path = write(_doc(_criterion(HUGE_SEQUENCE, "xpath")))
    script = (
        "import json, resource, subprocess, sys\n"
        f"done = subprocess.run([sys.executable, '-m', 'arazzo_runner.cli', 'validate', {str(path)!r}],"
        " capture_output=True, text=True, timeout=120)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
        "print(json.dumps({'code': done.returncode, 'out': done.stdout, 'peak': peak}))\n"
    )
    measured = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=180, check=True
    )
    report = json.loads(measured.stdout)
    assert report["code"] == 1, report
    assert "too expensive to evaluate when compiled" in report["out"]
    assert report["peak"] < limits.QUERY_MEMORY + 200 * 2**20, f"peak RSS {report['peak'] / 2**20:.0f} MiB"


# -- at run time: the response makes the criterion expensive


XML_NAME = (200, f"<name>{LONG}</name>", {"Content-Type": "application/xml"})
JSON_NAME = (200, {"name": LONG})
RUNTIME = {
    "xpath": (XML_NAME, _criterion("matches(/name, '(a|aa)+$')", "xpath")),
    "jsonpath search()": (JSON_NAME, _criterion("$[?search(@.name, '(a|aa)+$')]", "jsonpath")),
    "jsonpath match()": (JSON_NAME, _criterion("$[?match(@.name, '(a|aa)+')]", "jsonpath")),
    "regex [[:alpha:]]": (JSON_NAME, _criterion("(a|aa)+$|[[:digit:]]", "regex", "$response.body#/name")),
    "regex &&": (JSON_NAME, _criterion("(a|aa)+$|[a&&b]", "regex", "$response.body#/name")),
}


@pytest.mark.parametrize("case", RUNTIME)
def test_an_expensive_criterion_is_stopped_and_fails_its_step(capsys, write, server, monkeypatch, case):
    reply, criterion = RUNTIME[case]
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.5)
    monkeypatch.setattr(limits, "REGEX_TIMEOUT", 0.5)
    server.reply("GET", "/pets", reply)
    with cpu_bound(8, f"a run with a {case} criterion"):
        result = run_json(capsys, write(_doc(criterion)), server=server)
    assert result.code == 1
    [failed] = step(result)["failedCriteria"]
    assert failed.startswith(f"{criterion['condition']}: ")
    assert "stopped after 0.5 s" in failed


@pytest.mark.parametrize(("case", "deadline"), [("xpath", 2), ("jsonpath search()", 2), ("regex &&", 0.5)])
def test_the_deadline_ends_a_run_stuck_in_a_criterion(capsys, write, server, case, deadline):
    """Under the default bounds (longer than the deadline here), the run still ends at its deadline."""
    reply, criterion = RUNTIME[case]
    server.reply("GET", "/pets", reply)
    with cpu_bound(8, f"a run with a {case} criterion and --deadline {deadline}"):
        result = run_json(capsys, write(_doc(criterion)), "--deadline", deadline, server=server)
    assert result.code == 1
    got = step(result)
    assert got["status"] == "failed"
    cause = f"run deadline of {deadline:g} s exceeded"
    assert got["error"].endswith(cause)
    assert result.json["workflows"][0]["error"]["message"].endswith(cause)


def test_an_expensive_selector_gives_no_output_and_says_why(capsys, write, server, monkeypatch):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.5)
    server.reply("GET", "/pets", XML_NAME)
    selector = {"context": "$response.body", "selector": "matches(/name, '(a|aa)+$')", "type": "xpath"}
    listing = op_step("list", "listPets", outputs={"long": selector})
    path = write(arazzo_doc(workflow("flow", listing), version="1.1.0"))
    with cpu_bound(8, "a run with an expensive selector"):
        result = run_json(capsys, path, server=server)
    got = step(result)
    assert got["outputs"] == {"long": None}
    stopped = "evaluation stopped after 0.5 s (too expensive)"
    assert any(stopped in warning for warning in got["warnings"]), got


@pytest.mark.parametrize("pattern", ["^[[:alpha:]]+$", "^[a-z&&[^aeiou]]+$"])
def test_a_pattern_python_warns_about_is_a_finding_not_a_python_warning(write, server, pattern):
    """`re` emits a FutureWarning for sets other engines read differently: `validate` reports it as a
    finding; neither command lets Python's own warning (a file path of the engine) reach the terminal."""
    from tests.e2e.helpers import subprocess_cli

    server.reply("GET", "/pets", (200, "abc", {"Content-Type": "text/plain"}))
    path = write(_doc(_criterion(pattern, "regex")))
    checked = subprocess_cli("validate", path)
    assert checked.code == 0
    assert "warning condition-nonstandard: regex " in checked.out
    assert "Python reads these characters literally" in checked.out
    assert "FutureWarning" not in checked.err + checked.out
    ran = subprocess_cli("run", path, "--server", f"pets={server.url}")
    assert "FutureWarning" not in ran.err + ran.out
    assert "Possible" not in ran.err
