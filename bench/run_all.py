"""Run the benchmark suites of issues 8 and 17 and print their targets with PASS / MISS (not a test).

    python bench/run_all.py [--only PART[,PART]] [--runs N] [--runs-total 1000]

Parts (each in its own process, which prints its details; its peak RSS is reported too):
    cold         (a) cold start of whole processes: --version, validate, run; raw httpx; python -c pass
    chain        (b) 200-step chain vs the raw httpx loop; (e) its peak memory
    overhead     the same chain over httpx.MockTransport: engine cost per step
    concurrency  (c) 1,000 runs of a 5-step workflow at concurrency 1, 10, 100 (5 ms server latency)
    load         (d) loading the largest corpus descriptions and a generated 5,000-operation one
    sync         (f) `arazzo run` vs a sync httpx.Client script, ThreadingHTTPServer, 1 and 200 steps
    validate     (g) `arazzo validate` over the shared corpus vs `redocly lint` (installed into
                 bench/.node with npm when node is there)
    locust       (h) `arazzo load` vs Locust's FastHttpUser and HttpUser: CPU per request (at most 5 rounds)
    graph        (issue 36) ten independent steps with --parallel 10 at 100 ms; an x-forEach loop's CPU
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import machine_line, mib  # noqa: E402

PARTS = {
    "cold": "cold_start.py",
    "chain": "chain.py",
    "overhead": "overhead.py",
    "concurrency": "concurrency.py",
    "load": "load_descriptions.py",
    "sync": "sync_baseline.py",
    "validate": "validate_corpus.py",
    "locust": "locust_load.py",
    "graph": "graph.py",
    "contract": "contract.py",
    "journal": "journal_rows.py",
    "temporal": "temporal_rows.py",
}
LOCUST_PAIRS = 5  # each round is three whole Locust processes of 20 s
FEW_ROUNDS = {"journal": 3, "temporal": 3}  # rounds of 1,000 rows: minutes each (Temporal's: ~10 here)
MIN_RUNS = {"cold": 10, "chain": 7, "overhead": 7, "sync": 7, "validate": 5, "contract": 7}
EXTRA = {"validate": ["--install-redocly"]}


def run_part(part: str, args: argparse.Namespace, folder: Path) -> dict[str, Any] | None:
    out = folder / f"{part}.json"
    runs = ("--runs-total", args.runs_total) if part == "concurrency" else ("--runs", args.runs)
    if part == "locust":
        runs = ("--runs", min(args.runs, LOCUST_PAIRS))
    if part in FEW_ROUNDS:
        runs = ("--runs", min(args.runs, FEW_ROUNDS[part]))
    options = [runs[0], str(runs[1]), *EXTRA.get(part, [])]
    print(f"\n=== {part}: python bench/{PARTS[part]} {' '.join(options)}", flush=True)
    command = [sys.executable, str(HERE / PARTS[part]), *options, "--json", str(out)]
    if subprocess.run(command).returncode != 0 or not out.exists():
        print(f"!!! {part} failed", flush=True)
        return None
    return json.loads(out.read_text())


def targets(results: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(target, measured, goal, passed) for each target whose part ran."""
    rows = []
    if cold := results.get("cold"):
        ratio = cold["ratio"]
        rows.append(("1-step `arazzo run` / raw httpx process", f"{ratio:.2f}x", "<= 1.3x", ratio <= 1.3))
    if chain := results.get("chain"):
        ratio = chain["ratio"]
        rows.append(("200-step chain / raw loop (shared TLS)", f"{ratio:.2f}x", "<= 1.15x", ratio <= 1.15))
    if overhead := results.get("overhead"):
        per = overhead["per_step"] * 1e6
        rows.append(("in-process overhead per step", f"{per:.1f} us", "< 100 us", per < 100))
    if conc := results.get("concurrency"):
        levels = conc["levels"]
        label = f"c{levels[-1]} / c{levels[0]} runs/s (5 ms latency)"
        rows.append((label, f"{conc['speedup']:.1f}x", ">= 5x", conc["speedup"] >= 5))
    for row in results.get("locust", {}).get("rows", []):
        label = f"`arazzo load` / FastHttpUser CPU per request ({row['latency_ms']:g} ms latency)"
        rows.append((label, f"{row['cpu_ratio']:.2f}x", "<= 2x", row["cpu_ratio"] <= 2))
    if chain:
        rss = chain["memory"]["process"]["arazzo run"]["rss"]
        rows.append(("200-step `arazzo run` peak RSS", mib(rss), "< 60 MiB", rss < 60 * 2**20))
    if sync := results.get("sync"):
        for size, goal in (("1", 1.15), (str(sync["steps"]), 1.1)):  # issue 28 (issue 17: 1.25x, 1.2x)
            ratio = sync["ratios"][size]
            measured = f"{ratio['wall']:.2f}x / {ratio['cpu']:.2f}x"
            passed = ratio["wall"] <= goal and ratio["cpu"] <= goal
            label = f"{size}-step `arazzo run` / sync httpx script (wall / CPU)"
            rows.append((label, measured, f"<= {goal}x", passed))
        rss = sync["rss"]
        label = f"{sync['steps']}-step `arazzo run` peak RSS (threaded server)"
        rows.append((label, mib(rss), "<= 35 MiB", rss <= 35 * 2**20))  # issue 28 (issue 17: 40 MiB)
    if graph := results.get("graph"):  # issue 36
        side = graph["parallel"]
        wall = side["wall"]["independent 10, --parallel 10"]
        label = "10 independent steps at 100 ms, --parallel 10 (wall)"
        rows.append((label, f"{wall:.3f} s", "<= 0.2 s", wall <= 0.2))
        against = (("marginal_ratio", "sequential"), ("marginal_ratio_same_runtime", "sequential on asyncio"))
        for key, label in against:
            ratio = side[key]
            rows.append((f"CPU a step side by side / {label}", f"{ratio:.2f}x", "<= 1.1x", ratio <= 1.1))
        linear = graph["loop"]["linear_ratio"]
        rows.append(("x-forEach CPU an item, 1,000 / 250 items", f"{linear:.2f}x", "<= 1.1x", linear <= 1.1))
    if contract := results.get("contract"):  # issue 39
        ratio = contract["ratios"][str(contract["steps"])]["cpu"]
        label = f"{contract['steps']}-step run, --contract warn / off (CPU)"
        rows.append((label, f"{ratio:.3f}x", "<= 1.05x", ratio <= 1.05))
    if (check := results.get("validate")) and "ratio" in check:
        ratio = check["ratio"]
        label = f"`arazzo validate` {check['files']} docs / `redocly lint` (wall / CPU)"
        goal = f"<= {check['goal']['wall']}x / {check['goal']['cpu']}x"  # issue 28
        met = ratio["wall"] <= check["goal"]["wall"] and ratio["cpu"] <= check["goal"]["cpu"]
        rows.append((label, f"{ratio['wall']:.2f}x / {ratio['cpu']:.2f}x", goal, met))
    return rows


def details(results: dict[str, Any]) -> list[tuple[str, str]]:
    """Other measurements worth recording (no target)."""
    rows = []
    if cold := results.get("cold"):
        for label, row in cold["rows"].items():
            rows.append((f"(a) {label}", f"{row['median'] * 1e3:.1f} ms, peak RSS {mib(row['rss'])}"))
        rows.append(("(a) arazzo run / raw httpx async", f"{cold['ratio_async']:.2f}x"))
        rows.append(("(a) arazzo run https / raw httpx https", f"{cold['ratio_https']:.2f}x"))
    if chain := results.get("chain"):
        medians = chain["medians"]
        for label, value in medians.items():
            rows.append(
                (f"(b) 200-step chain, {label}", f"{value * 1e3:.1f} ms ({value / 2e-4:.0f} us/step)")
            )
        rows.append(("(b) engine / raw (own TLS context)", f"{chain['ratio_own_tls']:.2f}x"))
        rows.append(("(b) first engine run (compile, imports)", f"{chain['first_engine_run'] * 1e3:.1f} ms"))
        for label, peak in chain["memory"]["traced"].items():
            rows.append((f"(e) 200-step run tracemalloc peak, {label}", mib(peak)))
        for label, row in chain["memory"]["process"].items():
            rows.append(
                (f"(e) 200-step {label}, whole process", f"{row['median'] * 1e3:.0f} ms, {mib(row['rss'])}")
            )
    if overhead := results.get("overhead"):
        for label, value in overhead["medians"].items():
            rows.append((f"mock chain, {label}", per_step(value, overhead["steps"])))
    if conc := results.get("concurrency"):
        for level, rate in conc["engine"].items():
            rows.append((f"(c) concurrency {level}", f"{rate:.1f} runs/s"))
        rows.append((f"(c) raw httpx at c{conc['levels'][-1]}", f"{conc['raw_top']:.1f} runs/s"))
        rows.append((f"(e) c{conc['levels'][-1]} pass tracemalloc peak", mib(conc["traced_peak_top"])))
    if load := results.get("load"):
        for label, row in load["rows"].items():
            value = f"{row['median'] * 1e3:.0f} ms, retains {mib(row['retained'])}, peak {mib(row['peak'])}"
            rows.append((f"(d) load {label}", value))
    if sync := results.get("sync"):
        for label, row in sync["rows"].items():
            value = (
                f"{row['wall'] * 1e3:.0f} ms wall, {row['cpu'] * 1e3:.0f} ms CPU, peak RSS {mib(row['rss'])}"
            )
            rows.append((f"(f) {label}", value))
        json_ratio = sync["ratios"][f"{sync['steps']} json"]
        rows.append(("(f) --format json / script", f"{json_ratio['wall']:.2f}x / {json_ratio['cpu']:.2f}x"))
    if check := results.get("validate"):
        for label, row in check["rows"].items():
            value = f"{row['wall']:.2f} s wall, {row['cpu']:.2f} s CPU, peak RSS {mib(row['rss'])}"
            rows.append((f"(g) {label}", value))
        if check.get("skipped"):
            rows.append(("(g) redocly lint", f"skipped: {check['skipped']}"))
    for row in results.get("locust", {}).get("rows", []):
        rates = ", ".join(
            f"{kind} {row['rps'][kind]:.0f}/s, {row['cpu_us'][kind]:.0f} us" for kind in row["rps"]
        )
        rows.append((f"(h) {row['latency_ms']:g} ms latency, requests/s and CPU per request", rates))
    for part, result in results.items():
        if "process_peak_rss" in result:
            rows.append((f"(e) {part} process peak RSS", mib(result["process_peak_rss"])))
    return rows


def per_step(seconds: float, steps: int) -> str:
    return f"{seconds * 1e3:.1f} ms ({seconds / steps * 1e6:.0f} us/step)"


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help=f"parts to run, comma-separated: {', '.join(PARTS)}")
    parser.add_argument("--runs", type=int, default=11, help="runs per median (default 11)")
    parser.add_argument("--runs-total", type=int, default=1000, help="workflow runs per concurrency level")
    args = parser.parse_args()
    chosen = [p.strip() for value in args.only or [",".join(PARTS)] for p in value.split(",") if p.strip()]
    unknown = [part for part in chosen if part not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    for part in chosen:
        if args.runs < MIN_RUNS.get(part, 0):
            print(f"note: {part} is meant for --runs >= {MIN_RUNS[part]}")
    print(machine_line(), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        results = {part: found for part in chosen if (found := run_part(part, args, Path(folder)))}
    print(f"\n## Summary ({machine_line()})\n")
    rows = [(name, measured, goal, "PASS" if ok else "MISS") for name, measured, goal, ok in targets(results)]
    print(table(("target", "measured", "goal", "result"), rows))
    print()
    print(table(("measurement", "value"), details(results)))
    return 0 if len(results) == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
