"""Benchmark: what bounded schema patterns cost a response check (not a test).

    python bench/schema_patterns.py [--runs N] [--json PATH]

One check of a 20,000-item JSON array (objects with an integer, a string under a `pattern` and a
list of two strings, ~1 MB) against its schema, three ways, interleaved, median of N runs each:
jsonschema's own Draft202012Validator (patterns in `re`), the bounded class the engine builds
(`sources/schema_keywords.bounded`: patterns in `regex` with a timeout, inside `run_check`), and the
bounded class under a run deadline (`run_check` then also stops pure-Python work, under
`budget.guarded`). The ratios to the first are what bounding costs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jsonschema
from common import median, ms, write_json

from arazzo_runner.bounds import budget
from arazzo_runner.sources.schema_keywords import bounded
from arazzo_runner.sources.schema_patterns import run_check

SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer"},
            "name": {"type": "string", "pattern": "^[A-Za-z ]+$"},
            "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
        },
    },
}
DATA = [{"id": i, "name": "Rex the dog", "tags": ["good", "dog"]} for i in range(20_000)]


def _plain() -> None:
    list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(DATA))


def _bounded() -> None:
    validator = bounded(jsonschema.Draft202012Validator)(SCHEMA)
    run_check(lambda: list(validator.iter_errors(DATA)))


def _under_deadline() -> None:
    with budget.deadline((time.monotonic() + 3600, "run deadline of 3600 s exceeded")):
        _bounded()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--json")
    args = parser.parse_args()
    ways = {"jsonschema (re)": _plain, "bounded": _bounded, "bounded, under a deadline": _under_deadline}
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.runs):
        for name, work in ways.items():
            started = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - started)
    base = median(times["jsonschema (re)"])
    results = {}
    for name, measured in times.items():
        results[name] = {"median_s": median(measured), "ratio": median(measured) / base}
        print(f"{name:28} {ms(median(measured)):>10}  x{median(measured) / base:.2f}")
    write_json(args.json, results)


if __name__ == "__main__":
    main()
