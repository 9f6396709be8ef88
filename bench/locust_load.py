"""Benchmark (h): `arazzo load` against a plain Locust `FastHttpUser` making the same requests (not a test).

    python bench/locust_load.py [--runs 5] [--seconds 8] [--users 20] [--latency-ms 0,5] [--json PATH]

The workload is the 3-step chain of bench/documents.py (`GET /items/{n}`, each step checking the status
and `$response.body#/ok`, passing `next` on). `arazzo load` runs it as the document; the FastHttpUser
locustfile makes the same three requests with Locust's fastest client (geventhttpclient), parsing each
JSON body and checking the same two conditions. Both are whole processes of Locust, headless, one
process each (no workers), `--users` users without waiting, against the bench server in a process of
its own (answering after `--latency-ms`). Runs alternate (arazzo, plain, arazzo, plain, ...): paired,
so that a change in the machine's load falls on both alike. The rate is Locust's own: requests per
second of the step rows of its CSV (`arazzo load`'s `workflow chain` row, a run and not a request, is
left out). Prints the medians and their ratio per latency; the goal is arazzo / plain >= 0.5.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, machine_line, median, self_peak_rss, write_json
from documents import SOURCE, WORKFLOW, write_chain
from server import BenchServer

STEPS = 3
FAST_LOCUSTFILE = """
from locust import FastHttpUser, constant, task


class Chain(FastHttpUser):
    wait_time = constant(0)

    @task
    def chain(self):
        n = 1
        for index in range({steps}):
            with self.client.get(f"/items/{{n}}", name=f"chain.s{{index}}", catch_response=True) as response:
                body = response.json()
                if response.status_code != 200 or body.get("ok") is not True:
                    response.failure("criteria failed")
                    return
                n = body["next"]
"""


def step_rate(prefix: Path) -> float:
    """Requests per second of the step rows of Locust's `PREFIX_stats.csv`."""
    with open(f"{prefix}_stats.csv", encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["Name"] != "Aggregated"]
    if any(int(row["Failure Count"]) for row in rows):
        raise AssertionError(f"failed requests in {prefix}_stats.csv")
    return sum(float(row["Requests/s"]) for row in rows if not row["Name"].startswith("workflow "))


def run_one(command: list[str], prefix: Path) -> float:
    done = subprocess.run([*command, "--csv", str(prefix)], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise AssertionError(f"{command[:3]} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return step_rate(prefix)


def measure(runs: int, seconds: int, users: int, latency_ms: float, folder: Path) -> dict[str, Any]:
    document = write_chain(folder, STEPS)
    locustfile = folder / "fast_locustfile.py"
    locustfile.write_text(FAST_LOCUSTFILE.format(steps=STEPS))
    common = ["-u", str(users), "-r", str(users), "-t", f"{seconds}s", "--only-summary"]
    rates: dict[str, list[float]] = {"arazzo": [], "plain": []}
    with BenchServer(latency_ms=latency_ms) as server:
        arazzo = [sys.executable, "-m", "arazzo_runner.cli", "load", str(document), "-w", WORKFLOW,
                  "--server", f"{SOURCE}={server.url}", *common]  # fmt: skip
        plain = [sys.executable, "-m", "locust", "-f", str(locustfile), "-H", server.url, "--headless"]
        plain += common
        for index in range(runs):
            rates["arazzo"].append(run_one(arazzo, folder / f"arazzo-{latency_ms:g}-{index}"))
            rates["plain"].append(run_one(plain, folder / f"plain-{latency_ms:g}-{index}"))
            print(f"  latency {latency_ms:g} ms, pair {index + 1}: arazzo {rates['arazzo'][-1]:.0f}/s, "
                  f"plain {rates['plain'][-1]:.0f}/s", flush=True)  # fmt: skip
    arazzo_median, plain_median = median(rates["arazzo"]), median(rates["plain"])
    return {
        "latency_ms": latency_ms,
        "arazzo_rps": arazzo_median,
        "plain_rps": plain_median,
        "ratio": arazzo_median / plain_median,
        "pair_ratios": [a / p for a, p in zip(rates["arazzo"], rates["plain"], strict=True)],
        "runs": rates,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="pairs of runs per latency (default 5)")
    parser.add_argument("--seconds", type=int, default=8, help="length of each run (default 8)")
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--latency-ms", default="0,5", help="server latencies, comma-separated (default 0,5)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    print(machine_line())
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for latency in (float(x) for x in args.latency_ms.split(",")):
            results.append(measure(args.runs, args.seconds, args.users, latency, Path(folder)))
    print(f"\n{args.users} users, {args.seconds} s runs, median of {args.runs} paired runs, step requests/s:")
    for row in results:
        print(f"  latency {row['latency_ms']:g} ms: arazzo load {row['arazzo_rps']:.0f}/s, FastHttpUser "
              f"{row['plain_rps']:.0f}/s, ratio {row['ratio']:.2f}x (goal >= 0.5x)")  # fmt: skip
    data = {"users": args.users, "seconds": args.seconds, "rows": results}
    write_json(args.json, {**data, "process_peak_rss": self_peak_rss()})


if __name__ == "__main__":
    main()
