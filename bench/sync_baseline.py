"""Benchmark (f), issues 17 and 28: `arazzo run` against the synchronous httpx script a user would write
instead (not a test).

    python bench/sync_baseline.py [--runs N] [--steps 200] [--json PATH] [--hide-httpx-cli] [--hide trio]
                                  [--instructions]

Issue 28's rows are measured with `--hide-httpx-cli` (its baseline environment has no rich): goals
1 step <= 1.15x, 200 steps <= 1.1x (~50 us a step over the request), peak RSS <= 35 MiB (issue 17's
were 1.25x, 1.2x and 40 MiB). The load average is printed before and after: on a shared machine the
CPU-time ratios move with it (the engine's larger working set suffers more from the other processes).
`--instructions` also counts the user-space instructions of one run of each process under valgrind
(`common.instructions`; needs valgrind): a figure the load does not move, the same method for both
sides, which leaves out the kernel's work (imports' file system calls, page faults).

A generated chain where step i posts to `/counter/k{n}`, `n` being the previous step's output `next`,
checks `$statusCode == 200` and `$response.body#/ok == true` and outputs `next`, against a stdlib
`ThreadingHTTPServer` in its own process (`threaded_server.py`). The baseline is a plain script with
one `httpx.Client` doing the same requests and checks. Whole processes, 1 step and `--steps` steps, in
paired rounds (every command once per round, the order reversed every other round); the ratios are the
medians of the per-round ratios, wall and CPU (user + system of the process). Also: the peak RSS of the
runs, the long chain with `--format json` (the whole result on stdout) and without the validation
cache (`ARAZZO_NO_CACHE=1`: the document is validated every time).

`arazzo run` is given a validation cache in the temporary folder, filled by the warm-up run: the usual
case of a document run before (as in cold_start.py).

`--hide-httpx-cli`: with click, rich and pygments installed (the test extra pulls them in), `import
httpx` also imports httpx's own command line (~10 ms, both sides); the flag makes every process see
them as not installed, as in an environment without them (a folder of stand-ins that raise ImportError
first on PYTHONPATH). `--hide NAME[,NAME]` does the same for other packages: `--hide trio` (httpcore
imports trio, when installed, with its first client: ~30 ms, both sides).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    ROOT,
    arazzo_command,
    instructions,
    load_average,
    machine_line,
    mib,
    ms,
    paired,
    ratios,
    self_peak_rss,
    summary,
    write_json,
)
from documents import COUNTER_SOURCE, write_counter_chain
from threaded_server import ThreadedBenchServer

SYNC_SCRIPT = """
import sys, httpx
url, steps = sys.argv[1], int(sys.argv[2])
with httpx.Client() as client:
    n = 1
    for _ in range(steps):
        r = client.post(f"{url}/counter/k{n}")
        body = r.json()
        assert r.status_code == 200 and body["ok"] is True, (r.status_code, body)
        n = body["next"]
print(n)
"""
TARGETS = {1: 1.15, 200: 1.1}  # issue 28: engine / script, wall and CPU (issue 17: 1.25x, 1.2x)
RSS_TARGET = 35 * 2**20  # issue 28 (issue 17: 40 MiB)


HTTPX_CLI = ("click", "rich", "pygments")


def commands(
    folder: Path, url: str, steps: int, hide: tuple[str, ...] = ()
) -> dict[str, tuple[list[str], dict[str, str]]]:
    arazzo = arazzo_command()
    base: dict[str, str] = {}
    if hide:
        hidden = folder / "hidden"
        hidden.mkdir()
        for name in hide:
            (hidden / f"{name}.py").write_text(f"raise ImportError('{name}: hidden by the benchmark')\n")
        base["PYTHONPATH"] = f"{hidden}{os.pathsep}{ROOT}"
    cached = {**base, "ARAZZO_CACHE_DIR": str(folder / "cache")}
    todo: dict[str, tuple[list[str], dict[str, str]]] = {}
    for size in (1, steps):
        document = write_counter_chain(folder, size)
        run = [*arazzo, "run", str(document), "--server", f"{COUNTER_SOURCE}={url}"]
        todo[f"sync script ({size})"] = ([sys.executable, "-c", SYNC_SCRIPT, url, str(size)], base)
        todo[f"arazzo run ({size})"] = (run, cached)
        if size == steps:
            todo[f"arazzo run --format json ({size})"] = ([*run, "--format", "json"], cached)
            todo[f"arazzo run, no valid. cache ({size})"] = (run, {**base, "ARAZZO_NO_CACHE": "1"})
    return todo


def run(runs: int, steps: int = 200, hide: tuple[str, ...] = (), count: bool = False) -> dict[str, Any]:
    load_before = load_average()
    with tempfile.TemporaryDirectory() as folder, ThreadedBenchServer() as server:
        todo = commands(Path(folder), server.url, steps, hide)
        found = paired(todo, runs)
        counted = counts(todo, steps) if count else None
    failed = [label for label, results in found.items() if results[0].code != 0]
    if failed:
        raise RuntimeError(f"exit code not 0: {', '.join(failed)}")
    rows = {label: summary(results) for label, results in found.items()}
    compared = {
        str(size): ratios(found, f"arazzo run ({size})", f"sync script ({size})") for size in (1, steps)
    }
    compared[f"{steps} json"] = ratios(found, f"arazzo run --format json ({steps})", f"sync script ({steps})")
    per_step = {  # (long - short) / (steps - 1): the cost of one more step, both sides
        side: (rows[f"{side} ({steps})"]["wall"] - rows[f"{side} (1)"]["wall"]) / (steps - 1)
        for side in ("sync script", "arazzo run")
    }
    return {
        "runs": runs,
        "steps": steps,
        "hidden": list(hide),
        "installed": installed(),
        "rows": rows,
        "ratios": compared,
        "per_step": per_step,
        "rss": rows[f"arazzo run ({steps})"]["rss"],
        "process_peak_rss": self_peak_rss(),
        "load": [load_before, load_average()],
        "instructions": counted,
    }


def counts(todo: dict[str, tuple[list[str], dict[str, str]]], steps: int) -> dict[str, Any] | None:
    """User-space instructions of one run of each side, 1 and `steps` steps (valgrind), two at a time;
    the ratios, and one more step's instructions on each side."""
    from concurrent.futures import ThreadPoolExecutor

    labels = [f"{side} ({size})" for size in (1, steps) for side in ("sync script", "arazzo run")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        found = dict(zip(labels, pool.map(lambda label: instructions(*todo[label]), labels), strict=True))
    if any(value is None for value in found.values()):
        return None
    per_step = {
        side: (found[f"{side} ({steps})"] - found[f"{side} (1)"]) / (steps - 1)
        for side in ("sync script", "arazzo run")
    }
    ratios_ = {
        str(size): found[f"arazzo run ({size})"] / found[f"sync script ({size})"] for size in (1, steps)
    }
    return {"rows": found, "ratios": ratios_, "per_step": per_step}


def installed() -> dict[str, str | None]:
    """The versions of the optional packages that change what `import httpx` and its first client cost."""
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {}
    for name in (*HTTPX_CLI, "trio"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def report(result: dict[str, Any]) -> None:
    steps = result["steps"]
    rounds = result["runs"]
    hidden = f", hidden: {', '.join(result['hidden'])}" if result.get("hidden") else ""
    what = "(f) counter chain vs a sync httpx.Client script, ThreadingHTTPServer"
    load = result.get("load", ["?", "?"])
    print(f"{what}, {rounds} paired rounds{hidden}; load average {load[0]} before, {load[1]} after")
    print("method: whole processes from a lean spawner, paired rounds (order reversed every other one);")
    print("  wall and CPU (user + system, wait4) are medians, each ratio the median of per-round ratios")
    versions = ", ".join(f"{k} {v or '-'}" for k, v in result["installed"].items())
    print(f"installed: {versions}")
    print(f"| {'process':<36} | {'wall':>9} | {'CPU':>9} | {'min wall':>9} | {'peak RSS':>9} |")
    print(f"|{'-' * 38}|{'-' * 11}|{'-' * 11}|{'-' * 11}|{'-' * 11}|")
    for label, row in result["rows"].items():
        cells = [ms(row["wall"]), ms(row["cpu"]), ms(row["wall_min"]), mib(row["rss"])]
        print(f"| {label:<36} | " + " | ".join(f"{cell:>9}" for cell in cells) + " |")
    for key, ratio in result["ratios"].items():
        size, _, variant = key.partition(" ")
        label = f"{size} step{'s' if size != '1' else ''}{', --format json' if variant else ''}"
        ours = result["rows"][f"arazzo run{' --format json' if variant else ''} ({size})"]
        base = result["rows"][f"sync script ({size})"]
        goal = TARGETS.get(int(size)) if not variant else None
        verdict = f"goal <= {goal}x: {'PASS' if max(ratio.values()) <= goal else 'MISS'}" if goal else "-"
        print(
            f"  {label:<24} ours {ms(ours['cpu'])} CPU / {ms(ours['wall'])} wall, baseline "
            f"{ms(base['cpu'])} / {ms(base['wall'])}: {ratio['cpu']:.2f}x CPU, {ratio['wall']:.2f}x wall "
            f"({verdict})"
        )
    each = result["per_step"]
    script, engine = each["sync script"] * 1e6, each["arazzo run"] * 1e6
    more = engine - script
    print(f"  one more step (wall): script {script:.0f} us, engine {engine:.0f} us (+{more:.0f} us)")
    rss_verdict = "PASS" if result["rss"] <= RSS_TARGET else "MISS"
    goal = f"goal <= {mib(RSS_TARGET)}: {rss_verdict}"
    print(f"  {steps}-step arazzo run peak RSS {mib(result['rss'])} ({goal})")
    counted = result.get("instructions")
    if counted:
        print("user-space instructions of one run (valgrind callgrind; the load does not move them):")
        for label, value in counted["rows"].items():
            print(f"  {label:<24} {value / 1e6:8.1f} M")
        for size, ratio in counted["ratios"].items():
            print(f"  {size} step{'s' if size != '1' else ''}: engine / script = {ratio:.3f}x")
        each = counted["per_step"]
        script, engine = each["sync script"] / 1e6, each["arazzo run"] / 1e6
        print(f"  one more step: script {script:.2f} M, engine {engine:.2f} M ({engine / script:.2f}x)")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--hide-httpx-cli", action="store_true", help="click, rich, pygments unimportable")
    parser.add_argument("--hide", default="", metavar="NAMES", help="more packages made unimportable")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    args = parser.parse_args()
    hide = (*(HTTPX_CLI if args.hide_httpx_cli else ()), *filter(None, args.hide.split(",")))
    print(machine_line())
    result = run(args.runs, args.steps, hide, args.instructions)
    report(result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
