"""Issue 43, rows at the network's speed: `arazzo run DOC --inputs-file ROWS --concurrency 200` of a
1-step workflow against the aiohttp script a user would write instead (`rows_aiohttp.py`: one session, a
semaphore of 200), paired on the same bench server answering 50 ms late: whole processes, CPU a row
(user + system time of the process / rows), rows/s of wall time, the TCP connections each process
opened (the server counts them), medians of the rounds, the order reversed every other round.

    python bench/rows_network.py [--runs 5] [--rows 3000] [--concurrency 200] [--latency-ms 50]
    python bench/rows_network.py --against /path/to/another/checkout   # that engine too, same rounds
    python bench/rows_network.py --httpx                               # a plain httpx.AsyncClient script too

Both sides run with this interpreter: run the benchmark from an environment without `sniffio` to
measure what a user who installed only this project gets (httpx and anyio do not pull it in). The
workflow's step: `GET /items/{n}`, n from the row, two criteria (`$statusCode == 200`,
`$response.body#/ok == true`), one output. Goal: CPU a row <= 1.5x the aiohttp script's, >= 1,500
rows/s (2 CPUs), peak RSS flat in rows (`--rows 3000,30000` prints both).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import compile_checkout, load_average, machine_line, measure_process, median, mib, write_json
from documents import SOURCE, write_chain
from server import BenchServer

HERE = Path(__file__).resolve().parent

HTTPX_SCRIPT = """
import asyncio, json, sys
import httpx

async def main(url, rows, concurrency):
    gate = asyncio.Semaphore(concurrency)
    passed = total = 0
    async def one(client, start):
        nonlocal passed
        try:
            response = await client.get(f"{url}/items/{start}")
            body = response.json()
            if response.status_code == 200 and body.get("ok") is True and body["next"]:
                passed += 1
        finally:
            gate.release()
    running = set()
    async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=concurrency)) as client:
        for line in open(rows):
            await gate.acquire()
            total += 1
            task = asyncio.create_task(one(client, json.loads(line)["start"]))
            running.add(task)
            task.add_done_callback(running.discard)
        await asyncio.gather(*running)
    print(f"{passed} of {total} rows passed")
    return 0 if passed == total else 1

sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
"""


def _rows(folder: Path, count: int) -> Path:
    path = folder / f"rows-{count}.jsonl"
    path.write_text("".join(json.dumps({"start": n}) + "\n" for n in range(1, count + 1)))
    return path


def _connections(url: str) -> int:
    with urllib.request.urlopen(f"{url}/stats", timeout=10) as answer:
        return int(json.load(answer)["connections"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--rows", default="3000", help="row counts, comma-separated (the first is the figure)"
    )
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--against", metavar="CHECKOUT", help="another checkout's engine, same rounds")
    parser.add_argument("--httpx", action="store_true", help="a plain httpx.AsyncClient script too")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    counts = [int(c) for c in args.rows.split(",")]
    # -P: the working directory is not put first on sys.path (`-m` would), so PYTHONPATH picks the engine
    safe = ["-P"] if sys.version_info >= (3, 11) else []
    engine = [sys.executable, *safe, "-m", "arazzo_runner.cli", "run"]
    compile_checkout()
    if args.against:  # its bytecode too: a checkout compiled from source in each process pays ~90 ms
        import compileall

        compileall.compile_dir(Path(args.against) / "arazzo_runner", quiet=1)
    load_before = load_average()
    found: dict[str, list] = {}
    conns: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as tmp, BenchServer(latency_ms=args.latency_ms) as server:
        folder = Path(tmp)
        document = write_chain(folder, 1)
        commands: dict[str, tuple[list[str], dict[str, str], int]] = {}
        for count in counts:
            rows = str(_rows(folder, count))
            run = [*engine, str(document), "--server", f"{SOURCE}={server.url}", "--inputs-file", rows]
            run += ["--concurrency", str(args.concurrency)]
            commands[f"engine {count}"] = (run, {}, count)
            if args.against:
                against = {"PYTHONPATH": str(Path(args.against).resolve())}
                commands[f"against {count}"] = (run, against, count)
            script = [sys.executable, str(HERE / "rows_aiohttp.py"), server.url, rows]
            commands[f"aiohttp {count}"] = ([*script, "--concurrency", str(args.concurrency)], {}, count)
            if args.httpx:
                plain = [sys.executable, "-c", HTTPX_SCRIPT, server.url, rows, str(args.concurrency)]
                commands[f"httpx {count}"] = (plain, {}, count)
        names = list(commands)
        for name in names:  # once beforehand: page cache, bytecode; each must pass every row
            command, env, _ = commands[name]
            if measure_process(command, env, quiet=True).code != 0:
                raise SystemExit(f"{name}: failed: {' '.join(command)}")
        for round_ in range(args.runs):
            for name in names if round_ % 2 == 0 else names[::-1]:
                command, env, _ = commands[name]
                before = _connections(server.url)
                measured = measure_process(command, env, quiet=True)
                if measured.code != 0:
                    raise SystemExit(f"{name}: exit {measured.code}")
                found.setdefault(name, []).append(measured)
                conns.setdefault(name, []).append(_connections(server.url) - before - 1)
    load_after = load_average()
    print(f"machine: {machine_line()}; load average (1 min) {load_before} before, {load_after} after")
    sniffio = "installed" if _importable("sniffio") else "not installed"
    print(
        f"method: whole processes, {args.runs} rounds alternating, medians; {args.concurrency} in flight, "
        f"server latency {args.latency_ms:g} ms; sniffio {sniffio}"
    )
    results: dict[str, dict[str, float]] = {}
    for name, runs in found.items():
        count = commands[name][2]
        wall, cpu = median([m.wall for m in runs]), median([m.cpu for m in runs])
        rss = max(m.rss for m in runs)
        per_row = median([m.cpu / count for m in runs])
        results[name] = {"rows": count, "wall": wall, "cpu": cpu, "rss": rss, "cpu_row": per_row,
                         "connections": median(conns[name])}  # fmt: skip
        print(
            f"{name:>16}: {per_row * 1e6:7,.0f} µs CPU a row, {count / wall:7,.0f} rows/s, "
            f"peak RSS {mib(rss)}, {median(conns[name]):,.0f} TCP connections"
        )
    first = counts[0]
    for side in ("engine", "against") if args.against else ("engine",):
        pairs = zip(found[f"{side} {first}"], found[f"aiohttp {first}"], strict=True)
        ratio = median([a.cpu / b.cpu for a, b in pairs])
        rate = first / results[f"{side} {first}"]["wall"]
        verdict = "PASS" if ratio <= 1.5 and rate >= 1500 else "MISS"
        print(
            f"{side} / aiohttp, CPU a row: {ratio:.2f}x (goal <= 1.5x), "
            f"{rate:,.0f} rows/s (goal >= 1,500): {verdict}"
        )
    write_json(args.json, {"machine": machine_line(), "load": [load_before, load_after], "results": results})


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
