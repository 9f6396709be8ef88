"""No quadratic blow-up: for each pathological shape, an input 8 times longer takes well under 64 times
as much CPU time (linear would be 8x; the bound is 24x, generous so that noise cannot make it flaky),
and every input finishes within a fixed CPU time.

Each measurement is the best of a few runs of this process's CPU time (other processes on the machine
do not count), with the parsers' caches cleared first (so the repeat runs measure parsing, not a cache
hit)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pytest

from arazzo_runner.criteria import compile_criterion
from arazzo_runner.expressions import Context, compile_value, parse_expression, parse_template, resolve
from arazzo_runner.loader import load_text
from arazzo_runner.loader.pointer import parse_pointer, resolve_pointer
from arazzo_runner.model import build_document
from arazzo_runner.query import compile_selector
from tests.fuzz.kit import FUZZED, seconds

GROWTH = 8
MAX_RATIO = 24.0  # linear: 8; quadratic: 64
FLOOR = 2e-4  # CPU seconds: below this, timings are noise
MAX_SECONDS = 2.0  # CPU seconds for the larger input, whatever the shape


def _clear_caches() -> None:
    for name, module in list(sys.modules.items()):
        if name.startswith("arazzo_runner"):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def _resolve(text: str) -> Any:
    return resolve(parse_expression(text), Context(inputs={"a": {"a": 1}}))


def _evaluate(condition: str) -> Any:
    return compile_criterion(condition).evaluate(Context(status_code=200))


def _values(n: int) -> Any:
    return compile_value([f"{{$inputs.a}} x{i}" for i in range(n)]).evaluate(Context(inputs={"a": 1}))


def _workflows(n: int) -> Any:
    step = {"stepId": "s", "operationId": "op", "successCriteria": [{"condition": "$statusCode == 200"}]}
    return build_document(
        {"arazzo": "1.0.1", "workflows": [{"workflowId": f"w{i}", "steps": [step]} for i in range(n)]}
    )


def _nested(n: int) -> Any:
    value: Any = 1
    for _ in range(n):
        value = [value]
    return value


def _yaml(text: str) -> Any:
    return load_text(text, "d.yaml")


def _json(text: str) -> Any:
    return load_text(text, "d.json")


def _regex(text: str) -> Any:
    return compile_criterion(text, "regex", "$statusCode")


def _jsonpath(text: str) -> Any:
    return compile_selector("jsonpath", None, text)


def _xpath(text: str) -> Any:
    return compile_selector("xpath", None, text)


def _jsonpointer(text: str) -> Any:
    return compile_selector("jsonpointer", None, text)


def _deep_pointer(n: int) -> Any:
    return "/0" * n, _nested(n)


def _resolve_deep(argument: Any) -> Any:
    pointer, document = argument
    return resolve_pointer(document, parse_pointer(pointer))


Q = "'"  # a single quote, for the quoted-string shape
# (shape, size N, input builder n -> argument, entry point)
SHAPES: list[tuple[str, int, Callable[[int], Any], Callable[[Any], Any]]] = [
    ("expression: $inputs.a.a.a...", 2000, lambda n: "$inputs" + ".a" * n, _resolve),
    ("expression: $inputs.a[0][0]...", 2000, lambda n: "$inputs.a" + "[0]" * n, _resolve),
    ("expression: pointer /~0/~0...", 2000, lambda n: "$response.body#" + "/~0" * n, parse_expression),
    ("expression: pointer ~~~~", 4000, lambda n: "$response.body#/" + "~" * n, parse_expression),
    ("expression: $inputs. then junk", 4000, lambda n: "$inputs." + "@" * n, parse_expression),
    ("template: {{{{$", 4000, lambda n: "{" * n + "$", parse_template),
    ("template: {$ {$ {$", 800, lambda n: "{$" * n, parse_template),
    ("template: {$request.query.x {$...", 400, lambda n: "{$request.query.x " * n, parse_template),
    ("template: {$inputs.a} x {$inputs.a}", 400, lambda n: "{$inputs.a} x " * n, parse_template),
    ("template: bare $inputs.a ...", 400, lambda n: "$inputs.a " * n, parse_template),
    (
        "template: unclosed {$response.body#/aaa",
        4000,
        lambda n: "{$response.body#/" + "a" * n,
        parse_template,
    ),
    ("condition: ((((", 1500, lambda n: "(" * n + "1" + ")" * n, compile_criterion),
    ("condition: !!!!", 1500, lambda n: "!" * n + "true", compile_criterion),
    ("condition: true && true && ...", 400, lambda n: " && ".join(["true"] * n), _evaluate),
    ("condition: false || false || ...", 400, lambda n: " || ".join(["false"] * n), _evaluate),
    ("condition: quoted 'it''s''s...'", 2000, lambda n: Q + Q * 2 * n + Q + " == 'x'", compile_criterion),
    ("condition: long number", 2000, lambda n: "$statusCode == " + "1" * n, compile_criterion),
    ("regex condition: [[[[", 2000, lambda n: "[" * n, _regex),
    ("pointer: /a/a/a...", 4000, lambda n: "/a" * n, parse_pointer),
    ("pointer: ~~~~", 4000, lambda n: "/" + "~0" * n, parse_pointer),
    ("pointer: resolve deep", 2000, _deep_pointer, _resolve_deep),
    ("selector: jsonpath $.a.a...", 200, lambda n: "$" + ".a" * n, _jsonpath),
    ("selector: jsonpointer /a/a...", 2000, lambda n: "/a" * n, _jsonpointer),
    ("selector: jsonpath [?!!!!", 2000, lambda n: "$[?" + "!" * n + "@.a]", _jsonpath),
    ("selector: xpath ((((", 2000, lambda n: "(" * n + "1" + ")" * n, _xpath),
    ("yaml: [[[[", 4000, lambda n: "[" * n, _yaml),
    ("yaml: - - - -", 4000, lambda n: "- " * n + "x", _yaml),
    ("yaml: {a: {a: ", 4000, lambda n: "{a: " * n, _yaml),
    ("yaml: long plain scalar", 20000, lambda n: "a: " + "x" * n, _yaml),
    ("yaml: many keys", 500, lambda n: "".join(f"k{i}: {i}\n" for i in range(n)), _yaml),
    ("yaml: many aliases", 1000, lambda n: "a: &a [1]\nb: [" + "*a, " * n + "]\n", _yaml),
    ("yaml: base-60 look-alike (a string)", 1000, lambda n: "a: 1" + ":59" * n, _yaml),
    ("yaml: long float", 4000, lambda n: "a: 0." + "1" * n + "e5", _yaml),
    ("yaml: ~~~~", 20000, lambda n: "a: " + "~" * n, _yaml),
    ("json: [[[[", 4000, lambda n: "[" * n + "]" * n, _json),
    ("json: many keys", 2000, lambda n: json.dumps({f"k{i}": i for i in range(n)}), _json),
    ("json: escapes", 4000, lambda n: '["' + "\\n" * n + '"]', _json),
    ("values: many templates", 200, lambda n: n, _values),
    ("model: many workflows", 200, lambda n: n, _workflows),
]


@pytest.mark.filterwarnings("ignore::FutureWarning")  # re: "possible nested set" for `[[[[`
@pytest.mark.parametrize(("shape", "size", "build", "call"), SHAPES, ids=[s[0] for s in SHAPES])
def test_growth_is_not_quadratic(shape: str, size: int, build: Callable, call: Callable) -> None:
    small, large = build(size), build(size * GROWTH)

    def run(argument: Any) -> Callable[[], Any]:
        def once() -> Any:
            _clear_caches()
            return call(argument)

        return once

    FUZZED["scaling"] += 2
    t_small = max(seconds(run(small), repeat=3), FLOOR)
    t_large = seconds(run(large), repeat=3)
    assert t_large < MAX_SECONDS, f"{shape}: {t_large:.3f} s of CPU for the larger input"
    ratio = t_large / t_small
    assert ratio < MAX_RATIO, f"{shape}: {t_small:.5f} s -> {t_large:.5f} s of CPU for {GROWTH}x the input"
