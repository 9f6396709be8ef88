"""Benchmark, issue 36: steps side by side (`--parallel`) and loops over items (`x-forEach`) (not a test).

    python bench/graph.py [--runs N] [--latency-ms 100] [--json PATH]

(a) Ten independent steps (each `GET /items/{i}` with the chain's two criteria and one output) against
the bench server answering each request `--latency-ms` late on its event loop's timer (so concurrent
requests overlap), run in this process with `arazzo_runner.run`: sequentially (on the blocking path, as
`arazzo run` does by default), sequentially on asyncio (`ARAZZO_RUN_PATH=asyncio`: the runtime a run
with steps side by side takes), and with `parallel=10`.
Goals: with `--parallel 10` the run's wall time <= 0.2 s (about 1 s sequentially at 100 ms), and the CPU
a step within 10% of the sequential run's. The CPU a step is measured two ways: the whole run's CPU /
10, and the marginal cost (the CPU of 50 independent steps minus that of 10, over 40), which leaves out
what every run pays once (the event loop a parallel run starts, the client, the result).

(b) A loop: one `x-forEach` step over N items (a literal array input), its workflow one `GET
/items/{n}` step with the same criteria and output, `parallel=50`, N = 250, 500 and 1,000, at 5 ms of
latency. Goal: CPU linear in items (the CPU an item within 10% across the sizes).

Each document is loaded once (validated and compiled then), so the runs measure running it. Paired
rounds (every variant once per round, the order reversed every other round), medians; the load average
before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import load_average, machine_line, median, write_json
from documents import CRITERIA, OPENAPI, SOURCE
from server import BenchServer

import arazzo_runner

WALL_GOAL = 0.2  # seconds, ten steps at 100 ms with --parallel 10
CPU_GOAL = 1.10  # the CPU a step side by side, over the sequential run's
LINEAR_GOAL = 1.10  # the CPU an item at the largest size, over the smallest's
_LOADED: dict[Path, Any] = {}  # each document loaded once (`timed`)


def _step(step_id: str, n: Any) -> dict[str, Any]:
    return {
        "stepId": step_id,
        "operationId": "getItem",
        "parameters": [{"name": "n", "in": "path", "value": n}],
        "successCriteria": CRITERIA,
        "outputs": {"next": "$response.body#/next"},
    }


def _document(workflows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "arazzo": "1.1.0",
        "info": {"title": "graph bench", "version": "1"},
        "sourceDescriptions": [{"name": SOURCE, "url": "./bench.openapi.json", "type": "openapi"}],
        "workflows": workflows,
    }


def write_documents(folder: Path) -> dict[str, Path]:
    (folder / "bench.openapi.json").write_text(json.dumps(OPENAPI))
    written = {}
    for count in (10, 50):
        steps = [_step(f"s{i}", i + 1) for i in range(count)]
        path = folder / f"independent-{count}.arazzo.json"
        path.write_text(json.dumps(_document([{"workflowId": "w", "steps": steps}])))
        written[f"independent {count}"] = path
    item = {
        "workflowId": "item",
        "inputs": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "steps": [_step("get", "$inputs.n")],
        "outputs": {"next": "$steps.get.outputs.next"},
    }
    loop = {
        "workflowId": "loop",
        "inputs": {"type": "object", "properties": {"items": {"type": "array"}}},
        "steps": [
            {
                "stepId": "each",
                "workflowId": "item",
                "x-forEach": {"items": "$inputs.items", "input": "n"},
                "outputs": {"next": "$outputs.next"},
            }
        ],
        "outputs": {"next": "$steps.each.outputs.next"},
    }
    written["loop"] = folder / "loop.arazzo.json"
    written["loop"].write_text(json.dumps(_document([loop, item])))
    return written


def timed(
    path: Path, url: str, workflow: str, inputs: dict[str, Any], on_asyncio: bool = False, **options: Any
) -> tuple[float, float]:
    """(wall, CPU) of one in-process run, which must pass; `on_asyncio`: a sequential run on asyncio too
    (`ARAZZO_RUN_PATH=asyncio`), as a run with steps side by side is."""
    if on_asyncio:
        os.environ["ARAZZO_RUN_PATH"] = "asyncio"
    else:
        os.environ.pop("ARAZZO_RUN_PATH", None)
    workspace = _LOADED.get(path)
    if workspace is None:  # loaded (and validated, compiled) once: what is measured is the run
        workspace = _LOADED[path] = arazzo_runner.load(path)
    wall, cpu = time.perf_counter(), time.process_time()
    bounds = {"max_loop_items": 10_000, "max_steps": 100_000}
    result = arazzo_runner.run(workspace, workflow, inputs, servers={SOURCE: url}, **bounds, **options)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if not result.ok:
        raise RuntimeError(json.dumps(result.to_dict())[:2000])
    return wall, cpu


def rounds(variants: dict[str, Any], runs: int) -> dict[str, list[tuple[float, float]]]:
    for job in variants.values():  # warm: imports, compiled plans, the validation cache
        job()
    found: dict[str, list[tuple[float, float]]] = {label: [] for label in variants}
    order = list(variants)
    for index in range(runs):
        for label in order if index % 2 == 0 else reversed(order):
            found[label].append(variants[label]())
    return found


def parallel_part(paths: dict[str, Path], runs: int, latency: float) -> dict[str, Any]:
    with BenchServer(latency_ms=latency) as server:
        modes = (("sequential", 1, False), ("sequential on asyncio", 1, True), ("--parallel 10", 10, False))
        variants = {
            f"{name}, {mode}": (
                lambda p=paths[name], n=n, a=a: timed(p, server.url, "w", {}, on_asyncio=a, parallel=n)
            )
            for name in ("independent 10", "independent 50")
            for mode, n, a in modes
        }
        found = rounds(variants, runs)
    walls = {label: median([w for w, _ in runs_]) for label, runs_ in found.items()}
    cpus = {label: median([c for _, c in runs_]) for label, runs_ in found.items()}
    per_step, marginal = {}, {}
    for mode, _, _ in modes:
        per_step[mode] = cpus[f"independent 10, {mode}"] / 10
        marginal[mode] = (cpus[f"independent 50, {mode}"] - cpus[f"independent 10, {mode}"]) / 40
    return {
        "wall": walls,
        "cpu": cpus,
        "cpu_a_step": per_step,
        "marginal_cpu_a_step": marginal,
        "wall_goal_met": walls["independent 10, --parallel 10"] <= WALL_GOAL,
        "cpu_ratio": per_step["--parallel 10"] / per_step["sequential"],
        "marginal_ratio": marginal["--parallel 10"] / marginal["sequential"],
        "cpu_ratio_same_runtime": per_step["--parallel 10"] / per_step["sequential on asyncio"],
        "marginal_ratio_same_runtime": marginal["--parallel 10"] / marginal["sequential on asyncio"],
    }


def loop_part(path: Path, runs: int) -> dict[str, Any]:
    sizes = (250, 500, 1000)
    with BenchServer(latency_ms=5) as server:
        variants = {
            f"{size} items": (
                lambda size=size: timed(path, server.url, "loop", {"items": list(range(size))}, parallel=50)
            )
            for size in sizes
        }
        found = rounds(variants, runs)
    cpu = {size: median([c for _, c in found[f"{size} items"]]) for size in sizes}
    wall = {size: median([w for w, _ in found[f"{size} items"]]) for size in sizes}
    per_item = {size: cpu[size] / size for size in sizes}
    return {
        "cpu": cpu,
        "wall": wall,
        "cpu_an_item": per_item,
        "linear_ratio": per_item[1000] / per_item[250],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    print(machine_line())
    before = load_average()
    with tempfile.TemporaryDirectory() as folder:
        paths = write_documents(Path(folder))
        side = parallel_part(paths, args.runs, args.latency_ms)
        loop = loop_part(paths["loop"], max(3, args.runs // 2))
    after = load_average()
    print(f"load average before: {before}, after: {after}")
    print(f"(a) independent steps at {args.latency_ms:g} ms, medians of {args.runs} rounds")
    for label, wall in side["wall"].items():
        print(f"  {label:32} wall {wall * 1000:8.1f} ms   CPU {side['cpu'][label] * 1000:7.1f} ms")
    verdict = "PASS" if side["wall_goal_met"] else "MISS"
    print(f"  10 steps with --parallel 10: {side['wall']['independent 10, --parallel 10']:.3f} s "
          f"(goal <= {WALL_GOAL} s): {verdict}")  # fmt: skip
    rows = (
        ("CPU a step (run / 10), over sequential", "cpu_ratio"),
        ("marginal CPU a step, over sequential", "marginal_ratio"),
        ("CPU a step (run / 10), over sequential on asyncio", "cpu_ratio_same_runtime"),
        ("marginal CPU a step, over sequential on asyncio", "marginal_ratio_same_runtime"),
    )
    for kind, key in rows:
        verdict = "PASS" if side[key] <= CPU_GOAL else "MISS"
        print(f"  {kind}: {side[key]:.3f}x (goal <= {CPU_GOAL}x): {verdict}")
    print("(b) x-forEach, --parallel 50, 5 ms latency")
    for size, cpu in loop["cpu"].items():
        each, wall = loop["cpu_an_item"][size] * 1e6, loop["wall"][size]
        print(f"  {size:5} items: CPU {cpu * 1000:8.1f} ms ({each:6.0f} us an item), wall {wall:.2f} s")
    verdict = "PASS" if loop["linear_ratio"] <= LINEAR_GOAL else "MISS"
    print(f"  CPU an item, 1000 / 250: {loop['linear_ratio']:.3f}x (goal <= {LINEAR_GOAL}x): {verdict}")
    write_json(args.json, {"parallel": side, "loop": loop, "load": [before, after]})


if __name__ == "__main__":
    main()
