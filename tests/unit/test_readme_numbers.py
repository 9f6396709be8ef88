"""Each number the README states that the repository itself can confirm is checked against its source: the
fuzz suite's inputs and tests, the pathological shapes, the faults, the terminal attacks, the concurrent
runs, the bounds. (The counts of the tests that need ../shared and of the rules have tests of their own:
tests/e2e/test_readme.py and tests/unit/validate/test_validate_docs.py; measured times and ratios are
the benchmarks', said with their machine and method.)"""

from __future__ import annotations

import ast
import re

from arazzo_runner.bounds import limits
from arazzo_runner.loader.limits import Limits
from tests.e2e.helpers import ROOT

README = " ".join(ROOT.joinpath("README.md").read_text(encoding="utf-8").split())


def said(pattern: str) -> int:
    """The number the README gives where `pattern` (a regex with one `(N)` group) matches, once."""
    found = re.findall(pattern.replace("(N)", r"([\d,]+)"), README)
    assert len(found) == 1, f"the README says {pattern!r} {len(found)} times"
    return int(found[0].replace(",", ""))


def _fuzz_decorators() -> tuple[int, int, int]:
    """(tests decorated `@fuzz(N)`, the sum of their N, explicit `@example` inputs) in tests/fuzz."""
    tests = total = examples = 0
    for path in (ROOT / "tests/fuzz").glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                name = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = getattr(name, "id", getattr(name, "attr", ""))
                if name == "fuzz":
                    tests += 1
                    given = decorator.args[0] if decorator.args else decorator.keywords[0].value
                    total += given.value
                elif name == "example":
                    examples += 1
    return tests, total, examples


def test_the_fuzz_suite_is_as_large_as_said() -> None:
    tests, generated, explicit = _fuzz_decorators()
    assert said(r"(N) property tests") == tests
    # every test runs its default number of generated inputs (deterministic profile), plus its examples
    assert said(r"\*\*Fuzzed:\*\* (N) generated inputs on every test run") == generated + explicit


def test_the_pathological_shapes_are_counted() -> None:
    from tests.fuzz.test_fuzz_scaling import SHAPES

    assert said(r"plus (N) pathological shapes") == len(SHAPES)


def test_the_network_faults_are_counted() -> None:
    """The fault server's faults, and the three docs/reliability.md names in test_http_faults.py."""
    from tests.servers.faults import FAULTS

    extra = [
        "test_server_closing_without_answering",
        "test_truncated_chunked_body",
        "test_tls_to_a_plain_http_server",
    ]
    text = ROOT.joinpath("tests/e2e/test_http_faults.py").read_text(encoding="utf-8")
    assert all(f"def {name}(" in text for name in extra)
    assert said(r"\*\*Faults injected:\*\* (N) network faults") == len(FAULTS) + len(extra)


def test_the_terminal_attacks_are_counted() -> None:
    from tests.e2e.test_console_escapes import HOSTILE

    assert said(r"(N) terminal attacks") == len(HOSTILE)


def test_the_concurrent_runs_are_counted() -> None:
    from tests.e2e import test_concurrency

    text = ROOT.joinpath("tests/e2e/test_concurrency.py").read_text(encoding="utf-8")
    assert said(r"(N) runs of one loaded document, all in flight at once") == test_concurrency.RUNS
    coroutines = said(r"\((N) coroutines, [\d,]+ threads\)")
    threads = said(r"\([\d,]+ coroutines, (N) threads\)")
    assert coroutines + threads == test_concurrency.RUNS
    assert f"{coroutines} coroutines" in text and f"{threads} threads" in text


def test_the_bounds_are_the_engines() -> None:
    assert said(r"a document above (N) MiB is refused") * 2**20 == Limits().max_bytes
    assert said(r"(N) s for a `regex` criterion's matching") == limits.REGEX_TIMEOUT
    assert said(r"(N) s and [\d,]+ GiB for a JSONPath or XPath evaluation") == limits.QUERY_TIMEOUT
    assert said(r"[\d,]+ s and (N) GiB for a JSONPath or XPath evaluation") * 2**30 == limits.QUERY_MEMORY
    assert said(r"(N) s and [\d,]+ GiB for the constant part") == limits.COMPILE_TIMEOUT
    assert said(r"bounded matcher, (N) s per check") == limits.SCHEMA_PATTERN_TIMEOUT
    assert said(r"`arazzo` sources at most (N) deep") == limits.MAX_SOURCE_DEPTH
    assert said(r"deep and (N) per run") == limits.MAX_SOURCE_DOCUMENTS
    assert said(r"stops at its (N)th document") == limits.MAX_SOURCE_DEPTH
    assert said(r"a JSON response nesting deeper than (N) levels") == limits.MAX_BODY_DEPTH
