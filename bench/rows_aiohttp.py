"""Issue 43's baseline: what a user writes instead of `arazzo run --inputs-file ROWS --concurrency 200`
of the bench server's 1-step workflow: aiohttp, one session, a semaphore of 200.

    python bench/rows_aiohttp.py URL ROWS.jsonl [--concurrency 200]

Each row (`{"start": n}`, one JSON object a line, read as the rows are started, so memory holds the rows
in flight) makes the workflow's request, `GET URL/items/{n}`; checks the same two conditions (status
200, `body.ok == true`) and keeps the same output (`body.next`). Prints `N of M rows passed`; exit 1
when a row failed. aiohttp's session pools keep-alive connections (at most 100 a host by default,
what a user gets: `TCPConnector(limit=0)` would open one per request in flight).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

import aiohttp


async def main(url: str, rows: str, concurrency: int) -> int:
    gate = asyncio.Semaphore(concurrency)
    passed = total = 0
    outputs = 0  # the sum of the `next` outputs, so the output is used

    async def one(session: aiohttp.ClientSession, start: int) -> None:
        nonlocal passed, outputs
        try:
            async with session.get(f"{url}/items/{start}") as response:
                body = await response.json()
                if response.status == 200 and body.get("ok") is True:
                    outputs += body["next"]
                    passed += 1
        except aiohttp.ClientError as exc:
            print(f"row {start}: {exc}", file=sys.stderr)
        finally:
            gate.release()

    running: set[asyncio.Task[None]] = set()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        with open(rows, encoding="utf-8") as lines:
            for line in lines:
                await gate.acquire()
                total += 1
                task = asyncio.create_task(one(session, json.loads(line)["start"]))
                running.add(task)
                task.add_done_callback(running.discard)
        await asyncio.gather(*running)
    print(f"{passed} of {total} rows passed")
    return 0 if passed == total else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("rows")
    parser.add_argument("--concurrency", type=int, default=200)
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.url, args.rows, args.concurrency)))
