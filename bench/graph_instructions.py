"""Benchmark, issue 36 item 4: the user-space instructions of one run of bench/graph.py's (a) (not a test).

    python bench/graph_instructions.py [--steps 10] [--runs 4]

Ten (or `--steps`) independent steps against the bench server at 100 ms, in one process that loads the
document once and warms every variant: blocking (the default path), sequential on asyncio, and
`parallel=10`. Each variant's count is that of a process running it `--runs` more times minus that of
one running it none, over `--runs` (valgrind callgrind, `common.instructions`): a figure the machine's
load does not move, unlike the CPU time of bench/graph.py. The processes run two at a time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VARIANTS = {"blocking": {}, "sequential on asyncio": {"on_asyncio": True}, "--parallel 10": {"parallel": 10}}


def child(url: str, steps: int, variant: str, runs: int) -> None:
    import graph

    paths = graph.write_documents(Path(tempfile.mkdtemp()))
    path = paths[f"independent {steps}"]
    for options in (*VARIANTS.values(), *VARIANTS.values()):  # imports, plans, caches, each path
        graph.timed(path, url, "w", {}, **options)
    for _ in range(runs):
        graph.timed(path, url, "w", {}, **VARIANTS[variant])


def main() -> None:
    from common import instructions, load_average, machine_line
    from server import BenchServer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, choices=(10, 50), default=10)
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    print(machine_line())
    print(f"load average before: {load_average()}")
    with BenchServer(latency_ms=100) as server:
        jobs = [(v, n) for v in VARIANTS for n in (0, args.runs)]

        def count(job: tuple[str, int]) -> int | None:
            variant, runs = job
            command = [sys.executable, __file__, "--child", server.url, str(args.steps), variant, str(runs)]
            return instructions(command)

        with ThreadPoolExecutor(2) as pool:
            counted = dict(zip(jobs, pool.map(count, jobs), strict=True))
    print(f"load average after: {load_average()}")
    if None in counted.values():
        raise SystemExit("valgrind is not installed")
    each = {v: (counted[(v, args.runs)] - counted[(v, 0)]) / args.runs for v in VARIANTS}
    for variant, value in each.items():
        print(f"  {args.steps} steps, {variant:22} {value / 1e6:7.2f} M instructions a run")
    print(f"  --parallel 10 / blocking: {each['--parallel 10'] / each['blocking']:.2f}x (goal <= 1.10x)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    else:
        main()
