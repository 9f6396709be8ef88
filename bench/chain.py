"""Benchmark (b): a 200-step chain against the raw httpx loop doing the same requests (not a test).

    python bench/chain.py [--runs N] [--steps 200] [--json PATH]

Each step calls `GET /items/{n}` with the previous step's output `next` in the path and checks two
criteria (`$statusCode == 200`, `$response.body#/ok == true`). In one process and one event loop, the
engine (`arun` on a document loaded once) and the raw loop (one `httpx.AsyncClient`, parse the JSON, check
both conditions, carry `next`) run interleaved, median of N runs each. Two raw variants, both creating
their client inside the timed region like the engine does:
  - raw (own TLS): `httpx.AsyncClient()`, which builds a verifying TLS context each time (~16 ms);
  - raw (shared TLS): the context built once beforehand, as the engine shares one per process.
The target ratio is against the second one, the strict physical limit.
Also: the first engine run (expressions compiled, lazy imports done), and the peak memory of one run
(tracemalloc, in-process) and of whole processes (`arazzo run` and a raw script, peak RSS).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import arazzo_command, chain_main, median, mib, ms, run_process, self_peak_rss
from documents import SOURCE, WORKFLOW, write_chain
from server import BenchServer

import arazzo_runner
from arazzo_runner.executor.options import RunOptions

RAW_SCRIPT = """
import asyncio, sys, httpx
async def main(url, steps):
    async with httpx.AsyncClient() as client:
        n = 1
        for _ in range(steps):
            r = await client.get(f"{url}/items/{n}")
            body = r.json()
            assert r.status_code == 200 and body["ok"] is True
            n = body["next"]
asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


async def raw_chain(client: httpx.AsyncClient, url: str, steps: int) -> int:
    n = 1
    for _ in range(steps):
        response = await client.get(f"{url}/items/{n}")
        body = response.json()
        if response.status_code != 200 or body["ok"] is not True:
            raise AssertionError(f"step failed: {response.status_code} {body}")
        n = body["next"]
    return n


async def raw_run(url: str, steps: int, verify: Any) -> int:
    async with httpx.AsyncClient(verify=verify) as client:
        return await raw_chain(client, url, steps)


async def engine_run(document: Any, url: str, steps: int, client: Any = None) -> int:
    result = await arazzo_runner.arun(
        document, WORKFLOW, {"start": 1}, options=RunOptions(servers={SOURCE: url}, client=client)
    )
    if not result.ok:
        raise AssertionError(f"engine run failed: {result.to_dict()}")
    last = result.workflows[0].outputs["last"]
    if last != steps + 1:
        raise AssertionError(f"engine run ended at {last}, expected {steps + 1}")
    return last


async def timed(coroutine: Any) -> float:
    started = time.perf_counter()
    await coroutine
    return time.perf_counter() - started


async def network(document: Any, url: str, steps: int, runs: int) -> dict[str, Any]:
    tls = httpx.create_ssl_context()
    first = await timed(engine_run(document, url, steps))
    variants = {
        "engine": lambda: engine_run(document, url, steps),
        "raw (own TLS)": lambda: raw_run(url, steps, True),
        "raw (shared TLS)": lambda: raw_run(url, steps, tls),
    }
    for make in variants.values():  # warm-up
        await make()
    times: dict[str, list[float]] = {label: [] for label in variants}
    for _ in range(runs):
        for label, make in variants.items():
            times[label].append(await timed(make()))
    medians = {label: median(values) for label, values in times.items()}
    return {
        "first_engine_run": first,
        "medians": medians,
        "mins": {label: min(values) for label, values in times.items()},
        "ratio": medians["engine"] / medians["raw (shared TLS)"],
        "ratio_own_tls": medians["engine"] / medians["raw (own TLS)"],
    }


def traced_async(make: Any) -> int:
    """Peak of traced allocations during one run (tracemalloc; the document is already loaded)."""
    import tracemalloc

    asyncio.run(make())  # warm: lazy imports and caches are not the run's memory
    tracemalloc.start()
    try:
        asyncio.run(make())
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def memory(document: Any, path: Path, url: str, steps: int, runs: int) -> dict[str, Any]:
    tls = httpx.create_ssl_context()
    traced = {
        "engine": traced_async(lambda: engine_run(document, url, steps)),
        "raw (shared TLS)": traced_async(lambda: raw_run(url, steps, tls)),
    }
    processes = {
        "arazzo run": [*arazzo_command(), "run", str(path), "--server", f"{SOURCE}={url}"],
        "raw script": [sys.executable, "-c", RAW_SCRIPT, url, str(steps)],
    }
    whole: dict[str, dict[str, float]] = {}
    cached = {"ARAZZO_CACHE_DIR": str(path.parent / "cache")}  # validated once, as a document run before
    for label, command in processes.items():
        measured = [run_process(command, cached) for _ in range(max(3, runs // 2) + 1)][1:]
        if any(code != 0 for _, _, code in measured):
            raise RuntimeError(f"{label} failed: {' '.join(command)}")
        whole[label] = {
            "median": median([m[0] for m in measured]),
            "rss": max(m[1] for m in measured),
        }
    return {"traced": traced, "process": whole}


def run(runs: int, steps: int = 200) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, BenchServer() as server:
        path = write_chain(Path(folder), steps)
        document = arazzo_runner.load(path)
        result = asyncio.run(network(document, server.url, steps, runs))
        result["memory"] = memory(document, path, server.url, steps, runs)
    result.update(runs=runs, steps=steps, process_peak_rss=self_peak_rss())
    return result


def report(result: dict[str, Any]) -> None:
    steps = result["steps"]
    print(f"(b) {steps}-step chain, in-process, median of {result['runs']} interleaved runs")
    for label, value in result["medians"].items():
        per = value / steps * 1e6
        print(f"  {label:<18} {ms(value):>9}  ({per:.0f} us/step, min {ms(result['mins'][label])})")
    print(f"  first engine run (compile, lazy imports): {ms(result['first_engine_run'])}")
    print(f"  engine / raw (shared TLS) = {result['ratio']:.2f}x (target <= 1.15x)")
    print(f"  engine / raw (own TLS)    = {result['ratio_own_tls']:.2f}x")
    mem = result["memory"]
    print(f"(e) {steps}-step chain peak memory")
    for label, peak in mem["traced"].items():
        print(f"  tracemalloc peak of one run, {label:<18} {mib(peak):>9}")
    for label, row in mem["process"].items():
        print(f"  whole process, {label:<12} peak RSS {mib(row['rss']):>9}, wall {ms(row['median'])}")


def main() -> None:
    chain_main(__doc__.splitlines()[0], run, report)


if __name__ == "__main__":
    main()
