"""Issue 28, row 4: `arazzo run --inputs-file ROWS --concurrency 20` against the bench server (a 1-step
workflow, `GET /items/{n}` with `n` from the row), whole processes: peak RSS of 1,000 rows against
10,000 rows, and the throughput (rows per second of wall time, CPU per row). Text output and
`--format json`, each run twice per round, the order alternating; medians.

    python bench/batch_rows.py [--runs 3] [--rows 1000,10000] [--concurrency 20] [--json PATH]
    python bench/batch_rows.py --against /path/to/another/checkout   # both engines, paired

`--against` runs every command with the other checkout's engine too (its `PYTHONPATH`), in the same
rounds: the figures of both side by side, at the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import arazzo_command, machine_line, measure_process, median, mib, write_json
from documents import SOURCE, write_chain
from server import BenchServer


def _rows(folder: Path, count: int) -> Path:
    path = folder / f"rows-{count}.jsonl"
    path.write_text("".join(json.dumps({"start": n}) + "\n" for n in range(1, count + 1)))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rows", default="1000,10000")
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument(
        "--against", metavar="CHECKOUT", help="another checkout's engine, run in the same rounds"
    )
    args = parser.parse_args()
    counts = [int(c) for c in args.rows.split(",")]
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp, BenchServer() as server:
        folder = Path(tmp)
        document = write_chain(folder, 1)
        files = {count: _rows(folder, count) for count in counts}
        commands = {}
        for fmt in ("text", "json"):
            for count in counts:
                command = [*arazzo_command(), "run", str(document), "--server", f"{SOURCE}={server.url}"]
                command += ["--inputs-file", str(files[count]), "--concurrency", str(args.concurrency)]
                commands[f"{fmt} {count}"] = [*command, "--format", fmt]
        envs = {name: {} for name in commands}
        if args.against:
            for name in list(commands):
                commands[f"{name} (against)"] = commands[name]
                envs[f"{name} (against)"] = {"PYTHONPATH": str(Path(args.against).resolve())}
        found: dict[str, list] = {name: [] for name in commands}
        names = list(commands)
        for round_ in range(args.runs):
            for name in names if round_ % 2 == 0 else names[::-1]:
                measured = measure_process(commands[name], envs[name], quiet=True)
                if measured.code != 0:
                    raise SystemExit(f"{name}: exit {measured.code}")
                found[name].append(measured)
        load = os.getloadavg()[0]
    print(f"machine: {machine_line()}; load average (1 min) at the end: {load:.2f}")
    print(f"method: whole processes, {args.runs} rounds alternating, medians; concurrency {args.concurrency}")
    for name, runs in found.items():
        count = int(name.split()[1])
        wall = median([m.wall for m in runs])
        cpu = median([m.cpu for m in runs])
        rss = median([m.rss for m in runs])
        results[name] = {"rows": count, "rss": rss, "wall": wall, "cpu": cpu}
        print(
            f"{name:>21} rows: peak RSS {mib(rss)}, {count / wall:,.0f} rows/s wall, "
            f"{cpu / count * 1e6:,.0f} µs CPU a row"
        )
    for fmt in ("text", "json"):
        for which in ("", " (against)") if args.against else ("",):
            small, large = results[f"{fmt} {counts[0]}{which}"], results[f"{fmt} {counts[-1]}{which}"]
            grown = (large["rss"] - small["rss"]) / (counts[-1] - counts[0])
            print(
                f"{fmt}{which}: RSS {mib(small['rss'])} -> {mib(large['rss'])}: {grown:,.0f} bytes a row "
                "kept (goal: flat, bounded by --concurrency)"
            )
    write_json(args.json, {"machine": machine_line(), "load": load, "results": results})


if __name__ == "__main__":
    main()
