"""Benchmark (issue 39): what the contract checks (on by default) cost a run (not a test).

    python bench/contract.py [--runs N] [--steps 200] [--json PATH] [--hide-httpx-cli]

The counter chain of `sync_baseline.py` (step i posts to `/counter/k{n}`, two criteria, one output, a
stdlib `ThreadingHTTPServer` in its own process) with a response schema that says what the server
answers: an object with `key` (a string with a pattern), `next` (an integer >= 1) and `ok` (a boolean),
all required, nothing else allowed. `arazzo run` with `--contract warn` (the default: every response's
status, Content-Type and body checked) against `--contract off`, whole processes, paired rounds (the
order reversed every other round), the median of the per-round CPU and wall ratios; 1 step and
`--steps` steps, and the CPU one more step costs on each side. Goal: <= 1.05x CPU at 200 steps.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, arazzo_command, load_average, machine_line, ms, paired, ratios, summary, write_json
from documents import COUNTER_OPENAPI, COUNTER_SOURCE, write_counter_chain
from sync_baseline import HTTPX_CLI
from threaded_server import ThreadedBenchServer

GOAL = 1.05  # issue 39: <= 5% CPU over --contract off, 200 steps
SCHEMA = {
    "type": "object",
    "required": ["key", "next", "ok"],
    "properties": {
        "key": {"type": "string", "pattern": "^k[0-9]+$"},
        "next": {"type": "integer", "minimum": 1},
        "ok": {"type": "boolean"},
    },
    "additionalProperties": False,
}


def described(folder: Path) -> None:
    """The counter description with the response schema, where the chains read it."""
    api: dict[str, Any] = copy.deepcopy(COUNTER_OPENAPI)
    response = api["paths"]["/counter/{key}"]["post"]["responses"]["200"]
    response["content"]["application/json"]["schema"] = SCHEMA
    (folder / "counter.openapi.json").write_text(json.dumps(api, indent=1))


def commands(folder: Path, url: str, steps: int, hide: bool) -> dict[str, tuple[list[str], dict[str, str]]]:
    env = {"ARAZZO_CACHE_DIR": str(folder / "cache")}
    if hide:  # as sync_baseline.py: click, rich and pygments unimportable in every process
        hidden = folder / "hidden"
        hidden.mkdir()
        for name in HTTPX_CLI:
            (hidden / f"{name}.py").write_text(f"raise ImportError('{name}: hidden by the benchmark')\n")
        env["PYTHONPATH"] = f"{hidden}{os.pathsep}{ROOT}"
    described(folder)
    todo = {}
    for size in (1, steps):
        document = write_counter_chain(folder, size)
        run = [*arazzo_command(), "run", str(document), "--server", f"{COUNTER_SOURCE}={url}"]
        todo[f"--contract off ({size})"] = ([*run, "--contract", "off"], env)
        todo[f"--contract warn ({size})"] = ([*run, "--contract", "warn"], env)
    return todo


def run(runs: int, steps: int, hide: bool) -> dict[str, Any]:
    load_before = load_average()
    with tempfile.TemporaryDirectory() as folder, ThreadedBenchServer() as server:
        todo = commands(Path(folder), server.url, steps, hide)
        found = paired(todo, runs)
    failed = [label for label, results in found.items() if results[0].code != 0]
    if failed:
        raise RuntimeError(f"exit code not 0: {', '.join(failed)}")
    rows = {label: summary(results) for label, results in found.items()}
    compared = {
        str(size): ratios(found, f"--contract warn ({size})", f"--contract off ({size})")
        for size in (1, steps)
    }
    per_step = {
        mode: (rows[f"--contract {mode} ({steps})"]["cpu"] - rows[f"--contract {mode} (1)"]["cpu"])
        / (steps - 1)
        for mode in ("off", "warn")
    }
    return {
        "runs": runs,
        "steps": steps,
        "rows": rows,
        "ratios": compared,
        "per_step_cpu": per_step,
        "load": [load_before, load_average()],
        "machine": machine_line(),
    }


def report(result: dict[str, Any]) -> None:
    steps = result["steps"]
    load = result["load"]
    print(f"contract checks: {result['runs']} paired rounds; load average {load[0]} before, {load[1]} after")
    print(result["machine"])
    print(f"| {'process':<28} | {'wall':>9} | {'CPU':>9} |")
    print(f"|{'-' * 30}|{'-' * 11}|{'-' * 11}|")
    for label, row in result["rows"].items():
        print(f"| {label:<28} | {ms(row['wall']):>9} | {ms(row['cpu']):>9} |")
    for size, ratio in result["ratios"].items():
        goal = (
            f" (goal <= {GOAL}x CPU: {'PASS' if ratio['cpu'] <= GOAL else 'MISS'})"
            if size == str(steps)
            else ""
        )
        print(f"  {size} step(s): warn / off = {ratio['cpu']:.3f}x CPU, {ratio['wall']:.3f}x wall{goal}")
    each = result["per_step_cpu"]
    print(
        f"  one more step: {each['off'] * 1e6:.0f} us CPU off, {each['warn'] * 1e6:.0f} us warn "
        f"(+{(each['warn'] - each['off']) * 1e6:.0f} us a checked response)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--hide-httpx-cli", action="store_true", help="as sync_baseline.py")
    args = parser.parse_args()
    result = run(args.runs, args.steps, args.hide_httpx_cli)
    report(result)
    if args.json:
        write_json(args.json, result)


if __name__ == "__main__":
    main()
