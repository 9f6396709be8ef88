"""Criteria stop at the end of their time (issue 13): the regex criterion's own limit or the run's
deadline, whichever comes first, whatever engine matches the pattern; messages name the bound."""

from __future__ import annotations

import time

import pytest

from arazzo_runner.bounds import budget, limits
from arazzo_runner.bounds.patterns import interruptible
from arazzo_runner.criteria import compile_criterion
from arazzo_runner.expressions import Context, SimpleMessage
from tests.cputime import cpu_bound

LONG = "a" * 40 + "!"


def check(condition, type_, body, context="$response.body#/v", **inputs):
    ctx = Context(status_code=200, response=SimpleMessage(body=body), inputs=inputs)
    return compile_criterion(condition, type_, context).evaluate(ctx)


def test_a_pattern_regex_would_unroll_too_much_is_matched_with_re_in_the_worker():
    pattern = "^(?:ab){6000}$"
    assert interruptible(pattern) is None
    assert check(pattern, "regex", {"v": "ab" * 6000}).passed
    outcome = check(pattern, "regex", {"v": "ab" * 5999})
    assert outcome.message.startswith(f"{pattern}: no match in 'ababab")


def test_a_catastrophic_pattern_matched_in_the_worker_is_stopped(monkeypatch):
    monkeypatch.setattr(limits, "REGEX_TIMEOUT", 0.3)
    pattern = "(?:a{2}){5001}|(a|aa)+$"
    assert interruptible(pattern) is None
    with cpu_bound(3, "a pattern matched in the worker"):
        outcome = check(pattern, "regex", {"v": LONG})
    stopped = "matching was stopped after 0.3 s on 41 characters (the pattern backtracks catastrophically)"
    assert outcome.message == f"{pattern}: {stopped}"


@pytest.mark.parametrize("pattern", ["(a|aa)+$", "(a|aa)+$|[[:digit:]]", "(?:a{2}){5001}|(a|aa)+$"])
def test_the_run_deadline_stops_matching_before_the_regex_limit(monkeypatch, pattern):
    monkeypatch.setattr(limits, "REGEX_TIMEOUT", 30)
    message = "run deadline of 0.3 s exceeded"
    with cpu_bound(5, pattern), budget.deadline((time.monotonic() + 0.3, message)):
        outcome = check(pattern, "regex", {"v": LONG})
    assert outcome.message == f"{pattern}: matching was stopped on 41 characters: {message}"


def test_a_regex_criterion_past_the_deadline_does_not_start():
    with budget.deadline((time.monotonic() - 1, "run deadline of 1 s exceeded")):
        outcome = check("a", "regex", {"v": "a"})
    assert outcome.message == "a: matching was stopped on 1 characters: run deadline of 1 s exceeded"


def test_an_xpath_criterion_is_stopped_with_its_cause(monkeypatch):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.3)
    outcome = check("matches(/v, '(a|aa)+$')", "xpath", f"<v>{LONG}</v>", context="$response.body")
    assert outcome.message == "matches(/v, '(a|aa)+$'): evaluation stopped after 0.3 s (too expensive)"


def test_a_jsonpath_criterion_is_stopped_by_the_deadline():
    message = "run deadline of 0.3 s exceeded"
    with cpu_bound(10, "a JSONPath criterion"), budget.deadline((time.monotonic() + 0.3, message)):
        outcome = check("$[?search(@.v, '(a|aa)+$')]", "jsonpath", {"v": LONG}, context="$response.body")
    assert outcome.message == f"$[?search(@.v, '(a|aa)+$')]: evaluation stopped: {message}"


def test_an_embedded_xpath_too_expensive_to_compile_fails_the_criterion(monkeypatch):
    """A condition with `{$...}` is compiled when evaluated: its check is bounded there too."""
    monkeypatch.setattr(limits, "COMPILE_TIMEOUT", 0.3)
    condition = "matches('{$inputs.s}', '(a|aa)+$') and true()"  # a text no other test checks
    outcome = check(condition, "xpath", "<v/>", context="$response.body", s=LONG)
    rendered = f"matches('{LONG}', '(a|aa)+$') and true()"
    expensive = "invalid XPath: too expensive to evaluate when compiled (stopped after 0.3 s)"
    assert outcome.message == f"{rendered}: {expensive} at offset 0"
    message = "run deadline of 0.3 s exceeded"
    other = "matches('{$inputs.s}', '(a|aa)+$') or true()"  # not checked before: not remembered
    with budget.deadline((time.monotonic() + 0.3, message)):
        monkeypatch.setattr(limits, "COMPILE_TIMEOUT", 30)
        outcome = check(other, "xpath", "<v/>", context="$response.body", s=LONG)
    assert outcome.message.endswith(f"or true(): evaluation stopped: {message}")
