"""Issue 43: what an exchange costs through each transport at 200 requests in flight, in process.

    python bench/rows_transports.py [--variants aiohttp,lean,httpx-aiohttp,httpcore] [--rounds 3]

3,000 `GET /items/{n}` against the bench server answering 50 ms late, at most 200 at a time (a
semaphore), each body parsed and its `ok` checked; the CPU of the pass (`time.process_time`) / 3,000,
medians of interleaved rounds. Variants: aiohttp alone (one session); httpx over the engine's pool
(`http/lean_pool.py`); httpx over `httpx-aiohttp`'s transport; httpx over httpcore's own pool
(`max_connections=200`). Needs `aiohttp` and `httpx-aiohttp`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load_average, machine_line
from server import BenchServer

REQUESTS, IN_FLIGHT = 3000, 200


async def _drive(get: Any) -> float:
    gate = asyncio.Semaphore(IN_FLIGHT)

    async def one(n: int) -> None:
        async with gate:
            body = await get(n)
            assert body["ok"] is True

    started = time.process_time()
    await asyncio.gather(*(one(n) for n in range(REQUESTS)))
    return time.process_time() - started


async def variant(name: str, url: str) -> float:
    import httpx

    if name == "aiohttp":
        import aiohttp

        async with aiohttp.ClientSession() as session:

            async def get_raw(n: int) -> Any:
                async with session.get(f"{url}/items/{n}") as answer:
                    return await answer.json()

            return await _drive(get_raw)
    if name == "lean":
        from arazzo_runner.http.lean_pool import lean_transport

        client = httpx.AsyncClient(transport=lean_transport(None), timeout=120)
    elif name == "httpx-aiohttp":
        from httpx_aiohttp import AiohttpTransport

        client = httpx.AsyncClient(transport=AiohttpTransport(), timeout=120)
    else:
        limits = httpx.Limits(max_connections=IN_FLIGHT, max_keepalive_connections=IN_FLIGHT)
        client = httpx.AsyncClient(timeout=120, limits=limits)
    async with client:

        async def get(n: int) -> Any:
            return (await client.get(f"{url}/items/{n}")).json()

        return await _drive(get)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="aiohttp,lean,httpx-aiohttp,httpcore")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    names = args.variants.split(",")
    found: dict[str, list[float]] = {name: [] for name in names}
    before = load_average()
    with BenchServer(latency_ms=50) as server:
        for round_ in range(args.rounds):
            for name in names if round_ % 2 == 0 else names[::-1]:
                found[name].append(asyncio.run(variant(name, server.url)))
    print(f"machine: {machine_line()}; load average {before} before, {load_average()} after")
    for name, seconds in found.items():
        print(f"{name:>14}: {statistics.median(seconds) / REQUESTS * 1e6:7,.0f} µs CPU a request")


if __name__ == "__main__":
    main()
