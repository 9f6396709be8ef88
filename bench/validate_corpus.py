"""Benchmark (g), issues 17 and 28: `arazzo validate --offline` against Redocly's `redocly lint` (not a test).

    python bench/validate_corpus.py [--runs N] [--install-redocly] [--remote-runs 3] [--shared DIR]
                                    [--json PATH]

Goal (issue 28): ours <= 0.8x redocly's wall time and <= 1.0x its CPU time.

The files: every Arazzo document under ../shared/corpus and ../shared/arazzo, the same list given to both
tools at once: a `.yaml`, `.yml` or `.json` file whose top level, read with the engine's loader, is a
mapping with an `arazzo` field holding a 1.x version string. The official JSON Schema files, test
configurations and the like also contain `arazzo:` (not at the top, or not a version): `redocly lint`
aborts the whole batch at the first file it cannot classify ("Unsupported Arazzo version"), so giving
it those would time it on part of the work. The selection is checked: should `redocly lint` still
abort on a file, that file is left out of both sides and listed.

The method: whole processes, paired rounds (the order reversed every other round), medians of the
per-round ratios; wall time and CPU time (user + system of the process and the children it waited
for, from `wait4`), the load average noted before and after (on a loaded 2-CPU machine, CPU time is
the steadier figure). Ours is `arazzo validate --offline`: `redocly lint` reads no source description
(it lints the Arazzo document alone) and fetches nothing, so neither uses the network; ours still
loads and checks every local OpenAPI source, which theirs does not. Ours uses one process per CPU for
this many files by default (`--jobs`); the `--jobs 1` row is the same work in one process.
`arazzo validate` with its default remote fetches is measured too (`--remote-runs` rounds, not
paired: without internet every fetch is a DNS failure, whose time is the network's).

Redocly CLI 2.77.0 runs from `ARAZZO_REDOCLY_CLI` (the path of an installed `bin/cli.js`) or from
`bench/.node` (git-ignored): `--install-redocly` puts it there with
`npm install --prefix bench/.node @redocly/cli@2.77.0` when it is missing (run_all.py passes it).
Without node, npm or the package the Redocly side is skipped, with the reason.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, arazzo_command, machine_line, measure_process, paired, ratios, summary, write_json

SHARED = ROOT.parent / "shared"
REDOCLY_VERSION = "2.77.0"
PREFIX = ROOT / "bench" / ".node"
CLI = Path(os.environ.get("ARAZZO_REDOCLY_CLI") or PREFIX / "node_modules/@redocly/cli/bin/cli.js")
GOAL_WALL, GOAL_CPU = 0.8, 1.0  # issue 28: ours / redocly lint
# no telemetry, no update check: nothing leaves the machine, as with ours (--offline)
QUIET_NODE = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_COLOR": "1"}
_ABORTED = re.compile(r"Something went wrong when processing (.+?):\s*$", re.MULTILINE)


def documents(shared: Path) -> tuple[list[str], dict[str, int]]:
    """The Arazzo documents under `shared`/corpus and `shared`/arazzo (see the module docstring), and
    how many YAML/JSON files were passed over, by reason."""
    from arazzo_runner.errors import ArazzoError
    from arazzo_runner.loader import load_path

    found, passed = [], {"unreadable": 0, "no top-level arazzo": 0, "arazzo not a 1.x version": 0}
    for folder in (shared / "corpus", shared / "arazzo"):
        for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
            if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
                continue
            try:
                data = load_path(path).data
            except ArazzoError:
                passed["unreadable"] += 1
                continue
            version = data.get("arazzo") if isinstance(data, dict) else None
            if version is None:
                passed["no top-level arazzo"] += 1
            elif not (isinstance(version, str) and version.startswith("1.")):
                passed["arazzo not a 1.x version"] += 1
            else:
                found.append(str(path))
    return found, passed


def redocly(install: bool) -> tuple[list[str] | None, str]:
    """(the command that runs `redocly`, "") or (None, why it is skipped)."""
    node = shutil.which("node")
    if node is None:
        return None, "node is not installed"
    if not CLI.is_file():
        npm = shutil.which("npm")
        if not install:
            return None, f"@redocly/cli is not in {PREFIX} (run with --install-redocly)"
        if npm is None:
            return None, "npm is not installed"
        command = [npm, "install", "--prefix", str(PREFIX), "--no-audit", "--no-fund"]
        done = subprocess.run([*command, f"@redocly/cli@{REDOCLY_VERSION}"], capture_output=True, text=True)
        if done.returncode != 0 or not CLI.is_file():
            return None, f"npm install @redocly/cli@{REDOCLY_VERSION} failed: {done.stderr.strip()[-300:]}"
    return [node, str(CLI), "lint"], ""


def redocly_version() -> str | None:
    import json

    try:
        return json.loads((CLI.parents[1] / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def processable(command: list[str], files: list[str]) -> tuple[list[str], list[str]]:
    """(the files `redocly lint` gets through, the ones it aborts on), found by running it until it
    no longer aborts on one."""
    kept, dropped = list(files), []
    for _ in range(len(files)):
        done = subprocess.run(
            [*command, *kept], capture_output=True, text=True, env={**os.environ, **QUIET_NODE}
        )
        aborted = _ABORTED.search(done.stderr + done.stdout)
        if aborted is None:
            return kept, dropped
        name = aborted.group(1).strip()
        if name not in kept:
            raise RuntimeError(f"redocly aborted on {name!r}, which it was not given")
        kept.remove(name)
        dropped.append(name)
    return kept, dropped


def run(runs: int, install: bool, remote_runs: int, shared: Path = SHARED) -> dict[str, Any]:
    load_before = os.getloadavg()
    files, passed = documents(shared)
    theirs, skipped = redocly(install)
    dropped: list[str] = []
    if theirs is not None:
        files, dropped = processable(theirs, files)
    ours = [*arazzo_command(), "validate", "--offline", *files]
    todo = {"arazzo validate --offline": (ours, {})}
    # the default uses one process per CPU for this many files; one process alone, for comparison
    todo["arazzo validate --offline --jobs 1"] = ([*ours[: -len(files)], "--jobs", "1", *files], {})
    if theirs is not None:
        todo["redocly lint"] = ([*theirs, *files], QUIET_NODE)
    found = paired(todo, runs, quiet=True)
    result: dict[str, Any] = {
        "runs": runs,
        "files": len(files),
        "passed_over": passed,
        "left_out": dropped,
        "rows": {label: summary(results) for label, results in found.items()},
        "exit_codes": {label: results[0].code for label, results in found.items()},
        "redocly": redocly_version() if theirs is not None else None,
        "skipped": skipped,
        "goal": {"wall": GOAL_WALL, "cpu": GOAL_CPU},
        "cpus": os.cpu_count(),
    }
    if theirs is not None:
        result["ratio"] = ratios(found, "arazzo validate --offline", "redocly lint")
        result["ratio_one_process"] = ratios(found, "arazzo validate --offline --jobs 1", "redocly lint")
        result["ratio_range"] = _ranges(found, "arazzo validate --offline", "redocly lint")
    if remote_runs:
        remote = [
            measure_process([*arazzo_command(), "validate", *files], quiet=True) for _ in range(remote_runs)
        ]
        result["rows"]["arazzo validate (remote fetches)"] = summary(remote)
    result["load"] = {"before": load_before, "after": os.getloadavg()}
    return result


def _ranges(found: dict[str, list[Any]], engine: str, baseline: str) -> dict[str, list[float]]:
    """The lowest and highest per-round ratio, wall and CPU (the spread the medians come from)."""
    pairs_ = list(zip(found[engine], found[baseline], strict=True))
    walls = [a.wall / b.wall for a, b in pairs_]
    cpus = [a.cpu / b.cpu for a, b in pairs_]
    return {"wall": [min(walls), max(walls)], "cpu": [min(cpus), max(cpus)]}


def verdict(result: dict[str, Any]) -> bool | None:
    """Whether the default row meets issue 28's goal (None without the Redocly side)."""
    ratio = result.get("ratio")
    if ratio is None:
        return None
    return ratio["wall"] <= GOAL_WALL and ratio["cpu"] <= GOAL_CPU


def report(result: dict[str, Any]) -> None:
    load = result["load"]
    print(
        f"(g) validating {result['files']} Arazzo documents in one command, {result['runs']} paired rounds; "
        f"load average {load['before'][0]:.2f} before, {load['after'][0]:.2f} after ({result['cpus']} CPUs)"
    )
    passed = ", ".join(f"{count} {why}" for why, count in result["passed_over"].items() if count)
    print(f"  selection: top-level `arazzo: 1.x` under corpus/ and arazzo/ (passed over: {passed or 'none'})")
    if result["left_out"]:
        print(f"  left out of both (redocly lint aborts on them): {', '.join(result['left_out'])}")
    print("  method: whole processes, alternating order, medians of per-round ratios; CPU = user + system")
    print(f"| {'process':<38} | {'wall':>8} | {'CPU':>8} | {'min wall':>8} | {'peak RSS':>9} |")
    print(f"|{'-' * 40}|{'-' * 10}|{'-' * 10}|{'-' * 10}|{'-' * 11}|")
    for label, row in result["rows"].items():
        cells = [f"{row['wall']:.2f} s", f"{row['cpu']:.2f} s", f"{row['wall_min']:.2f} s"]
        print(
            f"| {label:<38} | "
            + " | ".join(f"{c:>8}" for c in cells)
            + f" | {row['rss'] / 2**20:>5.1f} MiB |"
        )
    if "ratio" in result:
        ratio, spread = result["ratio"], result["ratio_range"]
        versus = f"ours / redocly lint {result['redocly']}"
        wall_range = f"{spread['wall'][0]:.2f}-{spread['wall'][1]:.2f}"
        cpu_range = f"{spread['cpu'][0]:.2f}-{spread['cpu'][1]:.2f}"
        print(
            f"  {versus} = {ratio['wall']:.2f}x wall ({wall_range}), {ratio['cpu']:.2f}x CPU ({cpu_range}); "
            f"goal <= {GOAL_WALL}x wall and <= {GOAL_CPU}x CPU: {'PASS' if verdict(result) else 'MISS'}"
        )
        alone = result["ratio_one_process"]
        print(f"  --jobs 1 / redocly lint = {alone['wall']:.2f}x wall, {alone['cpu']:.2f}x CPU")
    else:
        print(f"  redocly lint skipped: {result['skipped']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--remote-runs", type=int, default=3, help="runs of the default (fetching) mode")
    parser.add_argument("--install-redocly", action="store_true", help=f"npm install it into {PREFIX}")
    parser.add_argument("--shared", type=Path, default=SHARED, help=f"the shared folder (default {SHARED})")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    print(machine_line())
    result = run(args.runs, args.install_redocly, args.remote_runs, args.shared)
    report(result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
