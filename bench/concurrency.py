"""Benchmark (c): many runs of a 5-step workflow through the library, concurrently (not a test).

    python bench/concurrency.py [--runs-total 1000] [--levels 1,10,100] [--latency-ms 5] [--json PATH]

One document loaded once; `--runs-total` runs of its 5-step chain with `asyncio.gather` over `arun`,
at most `c` at a time (a semaphore), against the bench server answering after `--latency-ms`. Each run
has its own pooled client (the library's default). Prints runs/s per level and the speed-up of the
highest level over the lowest. For reference, the raw httpx equivalent at the highest level (a client
per run, the TLS context built once) and the latency floor at concurrency 1. Peak memory: tracemalloc
peak of one pass at the highest level (untimed), and this process's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chain import raw_chain
from common import machine_line, mib, self_peak_rss, write_json
from documents import SOURCE, WORKFLOW, write_chain
from server import BenchServer

import arazzo_runner

STEPS = 5


async def engine_one(document: Any, url: str) -> None:
    result = await arazzo_runner.arun(document, WORKFLOW, {"start": 1}, servers={SOURCE: url})
    if not result.ok:
        raise AssertionError(f"engine run failed: {result.to_dict()}")


async def raw_one(url: str, tls: Any) -> None:
    async with httpx.AsyncClient(verify=tls) as client:
        await raw_chain(client, url, STEPS)


async def gather(make: Any, total: int, concurrency: int) -> float:
    """Seconds for `total` runs of `make()`, at most `concurrency` at a time."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with semaphore:
            await make()

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(total)))
    return time.perf_counter() - started


async def measure(document: Any, url: str, total: int, levels: list[int]) -> dict[str, Any]:
    tls = httpx.create_ssl_context()
    await gather(lambda: engine_one(document, url), min(total, 20), 10)  # warm-up
    engine = {}
    for level in levels:
        engine[level] = total / await gather(lambda: engine_one(document, url), total, level)
    top = max(levels)
    raw = total / await gather(lambda: raw_one(url, tls), total, top)
    return {"engine": engine, "raw_top": raw}


def traced_top(document: Any, url: str, total: int, top: int) -> int:
    tracemalloc.start()
    try:
        asyncio.run(gather(lambda: engine_one(document, url), total, top))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run(total: int = 1000, levels: tuple[int, ...] = (1, 10, 100), latency_ms: float = 5.0) -> dict[str, Any]:
    ordered = sorted(levels)
    with tempfile.TemporaryDirectory() as folder, BenchServer(latency_ms=latency_ms) as server:
        document = arazzo_runner.load(write_chain(Path(folder), STEPS))
        result = asyncio.run(measure(document, server.url, total, ordered))
        result["traced_peak_top"] = traced_top(document, server.url, total, ordered[-1])
    low, top = ordered[0], ordered[-1]
    result.update(
        total=total,
        levels=ordered,
        latency_ms=latency_ms,
        speedup=result["engine"][top] / result["engine"][low],
        floor_low=1000 / (latency_ms * STEPS) * low,  # runs/s if the engine and the client cost nothing
        process_peak_rss=self_peak_rss(),
    )
    return result


def report(result: dict[str, Any]) -> None:
    total, latency, levels = result["total"], result["latency_ms"], result["levels"]
    print(f"(c) {total} runs of a {STEPS}-step workflow via arun, server latency {latency:g} ms")
    for level, rate in result["engine"].items():
        print(f"  concurrency {level:>4}: {rate:8.1f} runs/s")
    low, top = levels[0], levels[-1]
    print(f"  c{top} / c{low} = {result['speedup']:.1f}x (target >= 5x)")
    print(f"  latency floor at c{low}: {result['floor_low']:.1f} runs/s")
    print(f"  raw httpx at c{top}: {result['raw_top']:.1f} runs/s (a client per run, shared TLS context)")
    print(f"  tracemalloc peak of the c{top} pass: {mib(result['traced_peak_top'])}")
    print(f"  process peak RSS: {mib(result['process_peak_rss'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs-total", type=int, default=1000)
    parser.add_argument("--levels", default="1,10,100")
    parser.add_argument("--latency-ms", type=float, default=5.0)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    print(machine_line())
    levels = tuple(int(level) for level in args.levels.split(","))
    result = run(args.runs_total, levels, args.latency_ms)
    report(result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
