"""Benchmark: the engine's in-process cost per step, without a network (not a test).

    python bench/overhead.py [--runs N] [--steps 200] [--json PATH]

The 200-step chain of chain.py, engine and raw loop both over one `httpx.AsyncClient` with an
`httpx.MockTransport` (the handler answers `{"id": n, "next": n+1, "ok": true}`), interleaved, median of
N runs: (engine - raw) / steps is what each step costs beyond the HTTP client itself (expression
resolution, request building, criteria, outputs, bookkeeping).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chain import engine_run, raw_chain, timed
from common import chain_main, median, ms, self_peak_rss, us
from documents import write_chain

import arazzo_runner

URL = "http://bench.invalid"
JSON = {"content-type": "application/json"}


def handler(request: httpx.Request) -> httpx.Response:
    n = int(request.url.path.rsplit("/", 1)[1])
    return httpx.Response(200, headers=JSON, content=b'{"id": %d, "next": %d, "ok": true}' % (n, n + 1))


def mock_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def measure(document: Any, steps: int, runs: int) -> dict[str, Any]:
    async with mock_client() as engine_client, mock_client() as raw_client:
        variants = {
            "engine": lambda: engine_run(document, URL, steps, engine_client),
            "raw": lambda: raw_chain(raw_client, URL, steps),
        }
        for make in variants.values():  # warm-up
            await make()
        times: dict[str, list[float]] = {label: [] for label in variants}
        for _ in range(runs):
            for label, make in variants.items():
                times[label].append(await timed(make()))
    medians = {label: median(values) for label, values in times.items()}
    return {
        "medians": medians,
        "per_step": (medians["engine"] - medians["raw"]) / steps,
        "raw_per_step": medians["raw"] / steps,
    }


def run(runs: int, steps: int = 200) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        document = arazzo_runner.load(write_chain(Path(folder), steps))
        result = asyncio.run(measure(document, steps, runs))
    result.update(runs=runs, steps=steps, process_peak_rss=self_peak_rss())
    return result


def report(result: dict[str, Any]) -> None:
    steps = result["steps"]
    print(
        f"in-process overhead: {steps}-step chain over httpx.MockTransport, median of {result['runs']} runs"
    )
    for label, value in result["medians"].items():
        print(f"  {label:<7} {ms(value):>9}  ({value / steps * 1e6:.0f} us/step)")
    print(f"  engine overhead per step = {us(result['per_step'])} (target < 100 us)")


def main() -> None:
    chain_main(__doc__.splitlines()[0], run, report)


if __name__ == "__main__":
    main()
