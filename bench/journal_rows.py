"""Issue 40: what `--journal FILE` costs a batch: `arazzo run --inputs-file ROWS --concurrency N` of the
3-step chain with and without a journal (a new file each run), whole processes in paired rounds (the order
reversed every other round), medians; and a resume of a finished journal (every row skipped, nothing sent).

    python bench/journal_rows.py [--rows 1000] [--runs 3] [--concurrency 50] [--json PATH]

Each step is `GET /items/{n}` against the bench server (`server.py`, its own process, no latency); the
journal commits once an exchange (SQLite, without waiting for the disk: docs/semantics.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import arazzo_command, load_average, machine_line, measure_process, median, write_json
from documents import SOURCE, write_chain
from server import BenchServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    before = load_average()
    found: dict[str, list] = {"plain": [], "journal": [], "resume": []}
    sizes: list[int] = []
    with tempfile.TemporaryDirectory() as tmp, BenchServer() as server:
        folder = Path(tmp)
        document = write_chain(folder, 3)
        rows = folder / "rows.jsonl"
        rows.write_text("".join(json.dumps({"start": n}) + "\n" for n in range(1, args.rows + 1)))
        base = [*arazzo_command(), "run", str(document), "--server", f"{SOURCE}={server.url}",
                "--inputs-file", str(rows), "--concurrency", str(args.concurrency)]  # fmt: skip
        for round_ in range(args.runs):
            journal = folder / f"journal-{round_}.db"
            order = ["plain", "journal"] if round_ % 2 == 0 else ["journal", "plain"]
            for name in order:
                command = base if name == "plain" else [*base, "--journal", str(journal)]
                found[name].append(_checked(name, command))
            sizes.append(journal.stat().st_size)
            found["resume"].append(_checked("resume", [*base, "--journal", str(journal)]))
    after = load_average()
    print(f"machine: {machine_line()}; load average {before} before, {after} after")
    print(f"method: {args.rows} rows of a 3-step workflow, --concurrency {args.concurrency}, "
          f"{args.runs} rounds, medians")  # fmt: skip
    results = {}
    for name, runs in found.items():
        wall, cpu = median([m.wall for m in runs]), median([m.cpu for m in runs])
        results[name] = {"wall": wall, "rows_per_s": args.rows / wall, "cpu_row_ms": cpu / args.rows * 1e3}
        row_ms = cpu / args.rows * 1e3
        print(f"{name:>8}: {args.rows / wall:7.1f} rows/s ({wall:.1f} s), CPU a row {row_ms:.2f} ms")
    pairs = list(zip(found["journal"], found["plain"], strict=True))
    results["cpu_ratio"] = median([a.cpu / b.cpu for a, b in pairs])
    results["journal_bytes_a_row"] = median(sizes) / args.rows
    print(f"journal / plain CPU (median of the rounds' ratios): {results['cpu_ratio']:.2f}x; "
          f"journal file {median(sizes) / args.rows:,.0f} bytes a row")  # fmt: skip
    write_json(args.json, {"machine": machine_line(), "load": [before, after], "results": results})


def _checked(name: str, command: list[str]):
    measured = measure_process(command, quiet=True)
    if measured.code != 0:
        raise SystemExit(f"{name}: exit {measured.code}")
    return measured


if __name__ == "__main__":
    main()
