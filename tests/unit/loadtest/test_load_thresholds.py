"""Thresholds: their forms and units, the names they resolve to in a document, and the verdicts on
statistics entries (a stand-in with the attributes of Locust's `StatsEntry`: Locust itself is never
imported in the pytest process; tests/e2e/test_load_cli.py judges real ones)."""

from __future__ import annotations

import pytest

import arazzo_runner
from arazzo_runner.errors import UsageError
from arazzo_runner.loadtest.thresholds import judge, parse, resolve, rows_of

DOC = """
arazzo: 1.0.1
info: {title: t, version: "1"}
sourceDescriptions: [{name: api, url: ./api.yaml, type: openapi}]
workflows:
  - workflowId: checkout
    steps:
      - {stepId: createOrder, operationId: create}
      - {stepId: pay, operationId: pay}
  - workflowId: refund
    steps:
      - {stepId: pay, operationId: pay}
      - {stepId: checkout, operationId: create}
"""


@pytest.fixture(scope="module")
def workspace():
    return arazzo_runner.loads(DOC)


class Entry:
    """The part of Locust's StatsEntry that thresholds read."""

    def __init__(self, stats=None, name="", method="", times=(), failures=0, seconds=10.0) -> None:
        self.stats, self.name, self.method = stats, name, method
        self.times, self.num_failures, self.seconds = list(times), failures, seconds

    @property
    def num_requests(self) -> int:
        return len(self.times)

    @property
    def total_rps(self) -> float:
        return self.num_requests / self.seconds

    def get_response_time_percentile(self, fraction: float) -> float:
        ordered = sorted(self.times)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    @property
    def median_response_time(self) -> float:
        return self.get_response_time_percentile(0.5)

    @property
    def avg_response_time(self) -> float:
        return sum(self.times) / len(self.times)

    @property
    def max_response_time(self) -> float:
        return max(self.times)

    @property
    def min_response_time(self) -> float:
        return min(self.times)

    def extend(self, other: Entry) -> None:
        self.times += other.times
        self.num_failures += other.num_failures


@pytest.mark.parametrize(
    ("text", "metric", "limit", "share"),
    [
        ("p95(createOrder)<300ms", "p95", 300.0, False),
        ("p99.9(pay) <= 1.5s", "p99.9", 1500.0, False),
        ("avg(pay)<20", "avg", 20.0, False),
        ("failures(checkout)<1%", "failures", 0.01, True),
        ("failures(checkout)==0", "failures", 0.0, False),
        ("rps(checkout)>=50", "rps", 50.0, False),
        ("rps(checkout) >= 50/s", "rps", 50.0, False),
        ("requests(*)>100", "requests", 100.0, False),
        ("MAX(pay)<1S", "max", 1000.0, False),
    ],
)
def test_forms_and_units(text, metric, limit, share) -> None:
    threshold = parse(text)
    assert (threshold.metric, threshold.limit, threshold.share) == (metric, limit, share)
    assert threshold.text == text.strip()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p95(pay)<3%", "p95 is a time: give ms or s"),
        ("failures(pay)<3ms", "failures is a count, or a share with %"),
        ("rps(pay)>3ms", "rps takes no unit"),
        ("p0(pay)<3", "between p0 (excluded) and p100"),
        ("p101(pay)<3", "between p0 (excluded) and p100"),
        ("p95 pay < 3", "expected METRIC(NAME) OP LIMIT"),
        ("p95(pay)=3", "expected METRIC(NAME) OP LIMIT"),
        ("p95(pay)<-3", "expected METRIC(NAME) OP LIMIT"),
    ],
)
def test_malformed_thresholds_are_usage_errors(text, message) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(text)


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        ("createOrder", ("checkout.createOrder",)),  # a step only one workflow has
        ("refund.pay", ("refund.pay",)),
        ("refund", ("workflow refund",)),
        ("workflow checkout", ("workflow checkout",)),
        ("refund.checkout", ("refund.checkout",)),
    ],
)
def test_names_resolve_to_statistics_rows(workspace, name, rows) -> None:
    assert resolve(parse(f"p95({name})<1s"), workspace).rows == rows


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("pay", "several workflows have a step 'pay'; write one of: checkout.pay, refund.pay"),
        ("checkout", "'checkout' is a workflow and a step; write one of: workflow checkout, refund.checkout"),
        ("nothing", "no step or workflow 'nothing' in <string> (workflows: checkout, refund)"),
        ("workflow nothing", "no workflow 'nothing'"),
        ("checkout.nothing", "no step or workflow 'checkout.nothing'"),
    ],
)
def test_unclear_or_unknown_names_are_usage_errors(workspace, name, message) -> None:
    with pytest.raises(UsageError) as caught:
        resolve(parse(f"p95({name})<1s"), workspace)
    assert message in str(caught.value)


def test_every_step_merges_the_step_rows_and_leaves_the_workflow_rows_out(workspace) -> None:
    threshold = resolve(parse("max(*)<100ms"), workspace)
    entries = {
        ("checkout.createOrder", "POST"): Entry(name="checkout.createOrder", times=[10, 20]),
        ("checkout.pay", "POST"): Entry(name="checkout.pay", times=[150]),
        ("workflow checkout", "WORKFLOW"): Entry(name="workflow checkout", times=[500]),
    }
    chosen = rows_of(threshold, entries)
    assert len(chosen) == 2
    verdict = judge(threshold, chosen)
    assert (verdict.passed, verdict.value) == (False, 150.0)
    assert verdict.message == "max(*)<100ms: 150 ms (every step)"
    assert [e.num_requests for e in chosen] == [2, 1]  # merged into a new entry, the rows untouched


def test_verdicts_say_what_was_measured(workspace) -> None:
    def verdict(text, entry):
        threshold = resolve(parse(text), workspace)
        return judge(threshold, [entry] if entry else [])

    slow = Entry(times=[100] * 94 + [400] * 6, failures=3)
    assert (
        verdict("p95(createOrder)<300ms", slow).message
        == "p95(createOrder)<300ms: 400 ms (checkout.createOrder)"
    )
    assert not verdict("p95(createOrder)<300ms", slow).passed
    assert verdict("p90(createOrder)<300ms", slow).passed
    assert verdict("failures(refund)<5%", slow).message == "failures(refund)<5%: 3.00% (workflow refund)"
    assert verdict("failures(refund)<5%", slow).passed
    assert not verdict("failures(workflow checkout)==0", slow).passed
    assert verdict("failures(workflow checkout)<=3", slow).passed
    assert verdict("rps(refund)>=10", slow).message == "rps(refund)>=10: 10.0/s (workflow refund)"
    assert verdict("rps(refund)>=10", slow).passed and not verdict("rps(refund)>10", slow).passed


def test_nothing_ran_nothing_to_judge_except_counts_and_rates(workspace) -> None:
    for text in ("p95(createOrder)<300ms", "failures(refund)<1%", "avg(refund.pay)<1s"):
        verdict = judge(resolve(parse(text), workspace), [])
        assert not verdict.passed and verdict.value is None
        assert "no requests of" in verdict.message
    assert judge(resolve(parse("requests(refund)==0"), workspace), []).passed
    assert not judge(resolve(parse("rps(refund)>0"), workspace), []).passed
