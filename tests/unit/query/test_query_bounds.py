"""Selector evaluation within bounds (issue 13): XPath and Goessner JSONPath in the evaluation worker
(`bounds/isolated.py`), RFC 9535 JSONPath under a time budget in this process, payload replacements too.

Bounds are lowered here so that each stop comes quickly; the CPU time of this process is bounded
(`tests/cputime.py`), never the wall clock.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arazzo_runner.bounds import budget, isolated, limits
from arazzo_runner.errors import ExpressionError
from arazzo_runner.executor.payload import _replace_jsonpath
from arazzo_runner.executor.xml_payload import XmlPayload
from arazzo_runner.query import QueryError, QueryStopped, compile_selector
from tests.cputime import cpu_bound
from tests.untested import skip_untested

LONG = "a" * 40 + "!"  # `(a|aa)+$` backtracks ~10^8 times on it
GOESSNER = "draft-goessner-dispatch-jsonpath-00"


@pytest.fixture
def pool(monkeypatch):
    """A pool of its own, closed after the test (the shared one keeps serving the other tests)."""
    fresh = isolated._Pool()
    monkeypatch.setattr(isolated, "_POOL", fresh)
    yield fresh
    fresh.close()


class _Waits:
    """A worker's reply queue that remembers how long each wait for a reply was allowed to be."""

    def __init__(self, replies) -> None:
        self.replies, self.timeouts = replies, []

    def put(self, message) -> None:
        self.replies.put(message)

    def get(self, timeout=None):
        self.timeouts.append(timeout)
        return self.replies.get(timeout=timeout)


def _worker_pids(pool) -> list[int]:
    return [worker.process.pid for worker in pool._idle]


# -- XPath, in the worker


def test_an_xpath_evaluation_is_stopped_and_the_worker_serves_the_next_one(pool, monkeypatch):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.3)
    query = compile_selector("xpath", None, "matches(/a, '(a|aa)+$')")
    [before] = _worker_pids(pool)
    with cpu_bound(3, "a stopped XPath"), pytest.raises(QueryStopped) as info:
        query.select(f"<a>{LONG}</a>")
    assert str(info.value) == "evaluation stopped after 0.3 s (too expensive)"
    assert query.select("<a>aa</a>") == [True]
    assert _worker_pids(pool) == [before]  # the worker stopped the work itself and stayed


def test_a_worker_that_stops_answering_is_killed_and_replaced(pool, monkeypatch):
    """A C call that ignores the worker's timer is simulated by stopping the worker (SIGSTOP)."""
    if not hasattr(signal, "SIGSTOP"):
        skip_untested("no SIGSTOP", "a query worker that stops answering is replaced")
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.2)
    query = compile_selector("xpath", None, "/a")
    assert query.select("<a>x</a>") == ["x"]
    [worker] = pool._idle
    waits = _Waits(worker.replies)
    worker.replies = waits
    os.kill(worker.process.pid, signal.SIGSTOP)
    with pytest.raises(QueryStopped, match=r"stopped after 0\.2 s"):
        query.select("<a>y</a>")
    assert worker.process.returncode == -signal.SIGKILL  # killed, and reaped
    # when: the parent waited for the reply no longer than the request's time and the grace after it
    # (compared with the wait it asked for, not measured on a clock a busy machine stretches)
    [waited] = waits.timeouts
    assert 0 < waited <= 0.2 + isolated.GRACE
    assert query.select("<a>z</a>") == ["z"]  # by a new worker
    assert _worker_pids(pool) != [worker.process.pid]


def test_an_xpath_needing_too_much_memory_fails_and_the_next_one_runs(pool):
    query = compile_selector("xpath", None, "count(1 to xs:integer(/n))")
    with cpu_bound(5, "an XPath building a huge sequence"), pytest.raises(QueryError) as info:
        query.select("<n>100000000</n>")
    assert str(info.value).endswith(f"needs more than {limits.QUERY_MEMORY // 2**20} MiB of memory")
    assert query.select("<n>3</n>") == [3]


def test_the_run_deadline_stops_an_xpath_evaluation(pool):
    query = compile_selector("xpath", None, "matches(/a, '(a|aa)+$')")
    message = "run deadline of 0.3 s exceeded"
    with budget.deadline((time.monotonic() + 0.3, message)), pytest.raises(QueryStopped) as info:
        query.select(f"<a>{LONG}</a>")
    assert str(info.value) == f"evaluation stopped: {message}"


def test_compiling_an_expensive_constant_xpath_is_an_error_and_is_remembered(pool, monkeypatch):
    monkeypatch.setattr(limits, "COMPILE_TIMEOUT", 0.3)
    expression = f"matches('{LONG}', '(a|aa)+$') or true()"
    for _ in range(3):  # checked once: a document repeating it pays once
        with cpu_bound(3, "compiling"), pytest.raises(ExpressionError) as info:
            compile_selector("xpath", "xpath-20", expression)
        assert (
            info.value.message
            == "invalid XPath: too expensive to evaluate when compiled (stopped after 0.3 s)"
        )
    assert len(pool._idle) == 1


def test_xpath_on_many_threads_at_once_uses_at_most_max_workers(pool):
    query = compile_selector("xpath", None, "string(/a/@n)")
    results: dict[int, list] = {}

    def evaluate(n: int) -> None:
        results[n] = query.select(f"<a n='{n}'/>")

    threads = [threading.Thread(target=evaluate, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: [str(n)] for n in range(12)}
    assert 1 <= len(pool._idle) <= isolated.MAX_WORKERS


def test_the_worker_gets_no_environment_secrets(pool, monkeypatch):
    if not Path("/proc/self/environ").exists():
        skip_untested("no /proc", "query workers get no environment secrets")
    monkeypatch.setenv("ARAZZO_TEST_TOKEN", "s3cr3t-value")
    compile_selector("xpath", None, "/secrets-test")
    [worker] = pool._idle
    environment = Path(f"/proc/{worker.process.pid}/environ").read_bytes()
    assert b"s3cr3t-value" not in environment and b"ARAZZO_TEST_TOKEN" not in environment


def test_a_result_larger_than_the_reply_limit_is_refused(pool, monkeypatch):
    monkeypatch.setattr(isolated, "REPLY_LIMIT", 10_000)
    with pytest.raises(QueryError, match="larger than the limit of 10000 bytes"):
        compile_selector("xpath", None, "/a").select(f"<a>{'x' * 20_000}</a>")


def test_a_worker_that_cannot_start_is_an_error_with_its_cause(pool, monkeypatch):
    query = compile_selector("xpath", None, "/a")
    pool.close()
    monkeypatch.setattr(isolated, "WORKER", Path(__file__).with_name("no-such-worker.py"))
    with pytest.raises(QueryError, match="the evaluation worker ended unexpectedly"):
        query.select("<a/>")
    with pytest.raises(ExpressionError, match="XPath cannot be checked: the evaluation worker ended"):
        compile_selector("xpath", None, "/never-checked-before")
    monkeypatch.setattr(sys, "executable", str(Path(__file__).with_name("no-such-python")))
    with pytest.raises(QueryError, match="could not be started"):
        query.select("<a/>")
    assert pool._count == 0


# -- RFC 9535 JSONPath, in this process under a budget


def _deep(levels: int, width: int) -> dict:
    top = node = {}
    for _ in range(levels):
        node["a"] = {}
        node = node["a"]
    node["x"] = list(range(width))
    return top


@pytest.mark.parametrize(
    "expression",
    [
        "$..*..*..*..*",  # descendants of descendants: the count multiplies per segment
        "$" + "[*,*,*,*,*,*,*,*]" * 12,  # repeated selectors multiply the nodelist
        "$..*[?$..*]",  # a query over the root for every node
    ],
)
def test_an_rfc9535_query_is_stopped(monkeypatch, expression):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.3)
    query = compile_selector("jsonpath", None, expression)
    # Each needs far more than 0.3 s on any machine: `$..*[?$..*]` over 390 nodes finished within it on
    # a fast one (its work is the square of the nodes: 3,090 of them, ~64x more)
    if "?" in expression:
        data: Any = _deep(90, 3000)
    else:
        data = _deep(90, 300) if "[*" not in expression else [[[[1] * 8] * 8] * 8] * 8
    with cpu_bound(10, expression[:40]), pytest.raises(QueryStopped, match=r"stopped after 0\.3 s"):
        query.select(data)


def test_an_rfc9535_query_that_grows_the_process_too_much_is_stopped(monkeypatch):
    """Its time is long here: the memory it builds (nodes and their paths) is what stops it."""
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 60)
    monkeypatch.setattr(limits, "QUERY_MEMORY", 64 * 2**20)
    query = compile_selector("jsonpath", None, "$..*..*..*..*")
    with cpu_bound(20, "a query building a huge nodelist"), pytest.raises(QueryStopped) as info:
        query.select(_deep(90, 300))
    assert str(info.value) == "evaluation stopped: needs more than 64 MiB of memory"


def test_wildcards_over_a_wide_array_are_stopped_by_the_memory_they_build(monkeypatch):
    """Each `*` selects 300,000 nodes in one selector call: the count charges them before they are
    selected, and the process's size is read at once after such a charge (not 8,000 counts later)."""
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 60)
    monkeypatch.setattr(limits, "QUERY_MEMORY", 64 * 2**20)
    query = compile_selector("jsonpath", None, "$[" + ",".join("*" * 400) + "]")
    with cpu_bound(20, "wildcards over a wide array"), pytest.raises(QueryStopped) as info:
        query.select(list(range(300_000)))
    assert str(info.value) == "evaluation stopped: needs more than 64 MiB of memory"


def test_search_and_match_stop_on_a_catastrophic_pattern(monkeypatch):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.3)
    for expression in ("$[?search(@.v, '(a|aa)+$')]", "$[?match(@.v, '(a|aa)+')]"):
        with cpu_bound(10, expression), pytest.raises(QueryStopped, match=r"stopped after 0\.3 s"):
            compile_selector("jsonpath", None, expression).select([{"v": LONG}])


def test_search_and_match_keep_their_rfc9535_meaning():
    data = [{"v": "abc"}, {"v": "xbx"}, {"v": 7}, {"v": "a\nc"}]
    assert compile_selector("jsonpath", None, "$[?match(@.v, 'a.c')].v").select(data) == ["abc"]
    assert compile_selector("jsonpath", None, "$[?search(@.v, 'b')].v").select(data) == ["abc", "xbx"]
    assert compile_selector("jsonpath", None, "$[?search(@.v, '[')].v").select(data) == []  # not I-Regexp
    assert compile_selector("jsonpath", None, "$[?match(@.v, @.v)].v").select(data) == ["abc", "xbx", "a\nc"]


def test_a_pattern_that_would_unroll_too_much_fails_the_query():
    """Valid I-Regexp, yet the `regex` module would build 4.7 million copies before matching anything."""
    nested = "a"
    for _ in range(7):
        nested = f"({nested}{{9}})"
    query = compile_selector("jsonpath", None, f"$[?match(@.v, '{nested}')]")
    with cpu_bound(2, "compiling a huge pattern"), pytest.raises(QueryError, match="repeats too much"):
        query.select([{"v": "a"}])


# -- Goessner JSONPath, in the worker


def test_a_goessner_query_runs_in_the_worker_and_is_stopped(pool, monkeypatch):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.3)
    assert compile_selector("jsonpath", GOESSNER, "$.items[*].id").select({"items": [{"id": 1}]}) == [1]
    query = compile_selector("jsonpath", GOESSNER, '$[?(@.v =~ "(a|aa)+$")]')
    with cpu_bound(3, "a Goessner =~"), pytest.raises(QueryStopped, match=r"stopped after 0\.3 s"):
        query.select([{"v": LONG}])
    with pytest.raises(QueryError, match="cannot read this value"):
        compile_selector("jsonpath", GOESSNER, "$.a").select({"a": b"bytes"})


# -- payload replacements


def test_a_jsonpath_replacement_target_is_bounded(monkeypatch):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.3)
    with cpu_bound(10, "a replacement target"), pytest.raises(ValueError, match=r"stopped after 0\.3 s"):
        _replace_jsonpath(_deep(90, 300), "$..*..*..*..*", 1)
    assert _replace_jsonpath({"a": [1, 2]}, "$.a[1]", 9) == {"a": [1, 9]}


def test_an_xpath_replacement_target_is_bounded(pool, monkeypatch):
    monkeypatch.setattr(limits, "QUERY_TIMEOUT", 0.3)
    payload = XmlPayload(f"<r><a>{LONG}</a></r>")
    with pytest.raises(ValueError, match=r"replacement target .*: evaluation stopped after 0\.3 s"):
        payload.replace("//a[matches(., '(a|aa)+$')]", "x")
    payload.replace("//a", "x")
    assert payload.text() == "<r><a>x</a></r>"


def test_the_workers_cpu_limit_follows_each_request_and_never_exceeds_its_start():
    """RLIMIT_CPU is set per request (what is used + the request's time + 2 s): a later, longer request
    raises it again, but never above the limits the process started with (checked in a child process:
    limits are per process)."""
    script = (
        "import json, resource\n"
        "from arazzo_runner.query.worker import _Limits\n"
        "limits = _Limits()\n"
        "soft = lambda: resource.getrlimit(resource.RLIMIT_CPU)[0]\n"
        "limits.cpu(1); first = soft()\n"
        "limits.cpu(30); second = soft()\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (50, resource.getrlimit(resource.RLIMIT_CPU)[1]))\n"
        "capped = _Limits(); capped.cpu(100); third = soft()\n"
        "print(json.dumps([first, second, third]))\n"
    )
    import json
    import subprocess

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    first, second, third = json.loads(done.stdout)
    assert 3 <= first <= 5 and 32 <= second <= 34 and third == 50


def test_the_worker_never_imports_xmlschema(pool):
    # elementpath would import it (0.15 s of CPU and more in every worker) for json-to-xml's `validate`
    # option alone; the tests' environment has it installed (a test extra), the worker does not use it
    document = '<a>{"k": 1}</a>'
    plain = compile_selector("xpath", "xpath-31", "local-name(json-to-xml(string(/a))/*)")
    assert plain.select(document) == ["map"]
    validated = "local-name(json-to-xml(string(/a), map{'validate': true()})/*)"
    with pytest.raises(QueryError, match="not schema-aware"):
        compile_selector("xpath", "xpath-31", validated).select(document)
