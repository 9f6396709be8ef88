"""Benchmark (h): `arazzo load` against plain Locust users making the same requests (not a test).

    python bench/locust_load.py [--runs 5] [--seconds 20] [--users 10] [--steps 1] [--latency-ms 0]
                                [--httpx] [--against CHECKOUT] [--json PATH]

The workload is the chain of bench/documents.py (`--steps` requests `GET /items/{n}`, each checking the
status and `$response.body#/ok`, passing `next` on; issue 28's row is one step). `arazzo load` runs it as
the document; two locustfiles make the same requests with Locust's own clients, parsing each JSON body
and checking the same two conditions: `FastHttpUser` (geventhttpclient, Locust's fastest) and `HttpUser`
(requests). All three are whole Locust processes, headless, one process each (no workers), `--users`
users without waiting, against the bench server in a process of its own (answering after
`--latency-ms`). Each round runs the three one after the other, the order rotated every round, so that
a change in the machine's load falls on all alike.

Measured per run: the rate is Locust's own (requests per second of the step rows of its CSV; `arazzo
load`'s `workflow chain` row is a run, not a request, and is left out); the CPU is the whole process's
user + system time (`os.wait4`, start-up included) divided by the step requests it made. Prints the
medians, the CPU ratio to each baseline (the medians of the per-round ratios) and the goal: `arazzo
load` <= 2x `FastHttpUser` CPU per request (issue 28), with the machine and its load average.
`--httpx` adds `arazzo load` on its httpx path (`ARAZZO_LOAD_HTTP=httpx`: asyncio and httpx, as before
issue 28) to each round. `--against CHECKOUT` adds `arazzo load` with another checkout's engine (its
`PYTHONPATH`, `python -P` so that the working directory's engine does not shadow it) to each round, and
prints the CPU per request of this engine over that one (the median of the per-round ratios).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine_line, measure_process, median, self_peak_rss, write_json
from documents import SOURCE, WORKFLOW, write_chain
from server import BenchServer

GOAL = 2.0  # arazzo load CPU per request / FastHttpUser's, at most (issue 28)
LOCUSTFILE = """
from locust import {user}, constant, task


class Chain({user}):
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
KINDS = {"arazzo": "arazzo load", "fast": "FastHttpUser", "http": "HttpUser"}
HTTPX = {"arazzo-httpx": "(httpx path)"}  # `--httpx`: arazzo load with ARAZZO_LOAD_HTTP=httpx too
AGAINST = {"against": "(against)"}  # `--against CHECKOUT`: arazzo load with that checkout's engine too


def step_counts(prefix: Path) -> tuple[float, int]:
    """(requests per second, requests) of the step rows of Locust's `PREFIX_stats.csv`."""
    with open(f"{prefix}_stats.csv", encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["Name"] != "Aggregated"]
    if any(int(row["Failure Count"]) for row in rows):
        raise AssertionError(f"failed requests in {prefix}_stats.csv")
    steps = [row for row in rows if not row["Name"].startswith("workflow ")]
    return sum(float(row["Requests/s"]) for row in steps), sum(int(row["Request Count"]) for row in steps)


def run_one(command: list[str], prefix: Path, env: dict[str, str] | None = None) -> dict[str, float]:
    measured = measure_process([*command, "--csv", str(prefix)], env, quiet=True)
    if measured.code != 0:
        raise AssertionError(f"{command[:4]} exited {measured.code}")
    rate, requests = step_counts(prefix)
    return {"rps": rate, "requests": requests, "cpu": measured.cpu, "cpu_us": measured.cpu / requests * 1e6}


def commands(folder: Path, url: str, steps: int, users: int, seconds: int) -> dict[str, list[str]]:
    document = write_chain(folder, steps)
    common = ["-u", str(users), "-r", str(users), "-t", f"{seconds}s", "--only-summary"]
    found = {
        "arazzo": [sys.executable, "-m", "arazzo_runner.cli", "load", str(document), "-w", WORKFLOW,
                   "--server", f"{SOURCE}={url}", *common],
    }  # fmt: skip
    for kind, user in (("fast", "FastHttpUser"), ("http", "HttpUser")):
        locustfile = folder / f"{kind}_locustfile.py"
        locustfile.write_text(LOCUSTFILE.format(user=user, steps=steps))
        found[kind] = [sys.executable, "-m", "locust", "-f", str(locustfile), "-H", url, "--headless"]
        found[kind] += common
    return found


def paired_ratio(ours: list[dict[str, float]], theirs: list[dict[str, float]]) -> float:
    """The median of the per-round ratios of CPU per request."""
    return median([a["cpu_us"] / b["cpu_us"] for a, b in zip(ours, theirs, strict=True)])


def measure(args: argparse.Namespace, latency_ms: float, folder: Path) -> dict[str, Any]:
    kinds = {**KINDS, **(HTTPX if args.httpx else {}), **(AGAINST if args.against else {})}
    runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
    loads = []
    with BenchServer(latency_ms=latency_ms) as server:
        found = commands(folder, server.url, args.steps, args.users, args.seconds)
        found["arazzo-httpx"] = found["arazzo"]
        found["against"] = [found["arazzo"][0], "-P", *found["arazzo"][1:]]
        envs = {"arazzo-httpx": {"ARAZZO_LOAD_HTTP": "httpx"}, "against": {"PYTHONPATH": str(args.against)}}
        order = list(kinds)
        for index in range(args.runs):
            loads.append(os.getloadavg()[0])
            for kind in order[index % len(order) :] + order[: index % len(order)]:
                prefix = folder / f"{kind}-{latency_ms:g}-{index}"
                runs[kind].append(run_one(found[kind], prefix, envs.get(kind)))
            print(f"  latency {latency_ms:g} ms, round {index + 1} (load {loads[-1]:.2f}): "
                  + ", ".join(f"{kinds[k]} {runs[k][-1]['rps']:.0f}/s {runs[k][-1]['cpu_us']:.0f} us"
                              for k in kinds), flush=True)  # fmt: skip
    medians = {kind: {key: median([r[key] for r in runs[kind]]) for key in ("rps", "cpu_us")}
               for kind in kinds}  # fmt: skip
    ratio = {kind: paired_ratio(runs["arazzo"], runs[kind]) for kind in ("fast", "http")}
    if args.against:
        ratio["against"] = paired_ratio(runs["arazzo"], runs["against"])
        ratio["against_fast"] = paired_ratio(runs["against"], runs["fast"])
    return {
        "latency_ms": latency_ms,
        "arazzo_rps": medians["arazzo"]["rps"],
        "plain_rps": medians["fast"]["rps"],  # FastHttpUser (the key run_all.py reads)
        "ratio": medians["arazzo"]["rps"] / medians["fast"]["rps"],
        "cpu_us": {kind: medians[kind]["cpu_us"] for kind in kinds},
        "rps": {kind: medians[kind]["rps"] for kind in kinds},
        "cpu_ratio": ratio["fast"],
        "cpu_ratio_http": ratio["http"],
        "cpu_ratio_against": ratio.get("against"),  # this engine / the other checkout's, paired
        "cpu_ratio_against_fast": ratio.get("against_fast"),  # the other checkout's / FastHttpUser
        "load_average": loads,
        "runs": runs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds per latency (default 5)")
    parser.add_argument("--seconds", type=int, default=20, help="length of each run (default 20)")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--steps", type=int, default=1, help="steps of the workflow (default 1)")
    parser.add_argument("--latency-ms", default="0", help="server latencies, comma-separated (default 0)")
    parser.add_argument(
        "--httpx", action="store_true", help="also arazzo load on httpx (ARAZZO_LOAD_HTTP=httpx)"
    )
    parser.add_argument(
        "--against", metavar="CHECKOUT", type=lambda text: Path(text).resolve(),
        help="also arazzo load with another checkout's engine, in the same rounds",
    )  # fmt: skip
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    if args.against:
        import compileall

        compileall.compile_dir(args.against / "arazzo_runner", quiet=1)  # as common.compile_checkout
    print(machine_line())
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for latency in (float(x) for x in args.latency_ms.split(",")):
            results.append(measure(args, latency, Path(folder)))
    print(f"\n{args.steps}-step workflow, {args.users} users, {args.seconds} s runs, headless, one process "
          f"each; medians of {args.runs} rounds (order rotated); CPU = user + system of the whole process "
          "/ step requests:")  # fmt: skip
    for row in results:
        loads = row["load_average"]
        print(f"  latency {row['latency_ms']:g} ms (load average {min(loads):.2f}-{max(loads):.2f}):")
        for kind, label in {**KINDS, **HTTPX, **AGAINST}.items():
            if kind not in row["rps"]:
                continue
            rate, cpu = row["rps"][kind], row["cpu_us"][kind]
            print(f"    {label:<13} {rate:7.0f} req/s  {cpu:6.0f} us CPU per request")
        passed = "PASS" if row["cpu_ratio"] <= GOAL else "MISS"
        print(f"    CPU per request: {row['cpu_ratio']:.2f}x FastHttpUser (goal <= {GOAL:g}x: {passed}), "
              f"{row['cpu_ratio_http']:.2f}x HttpUser")  # fmt: skip
        if row["cpu_ratio_against"] is not None:
            print(f"    against {args.against}: this engine {row['cpu_ratio_against']:.2f}x its CPU per "
                  f"request (paired); it: {row['cpu_ratio_against_fast']:.2f}x FastHttpUser")  # fmt: skip
    data = {"users": args.users, "seconds": args.seconds, "steps": args.steps, "goal": GOAL, "rows": results}
    write_json(args.json, {**data, "process_peak_rss": self_peak_rss()})


if __name__ == "__main__":
    main()
