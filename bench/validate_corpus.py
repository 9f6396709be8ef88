"""Benchmark (g), issue 17: `arazzo validate` throughput against Redocly's `redocly lint` (not a test).

    python bench/validate_corpus.py [--runs N] [--install-redocly] [--remote-runs 3] [--shared DIR]
                                    [--json PATH]

Every Arazzo document (a YAML or JSON file with a top-level `arazzo` field) under ../shared/corpus and
../shared/arazzo, all given to one process of each tool, in paired rounds (the order reversed every
other round); medians of the per-round ratios, wall and CPU. Ours is `arazzo validate --offline`:
`redocly lint` reads no source description (it lints the Arazzo document alone) and fetches nothing, so
the row compares both without network; ours still loads and checks every local OpenAPI source, which
theirs does not. Ours uses one process per CPU for this many files by default (`--jobs`); the
`--jobs 1` row is the same work in one process. `arazzo validate` with its default remote fetches is
measured too (`--remote-runs` rounds, not paired: without internet every fetch is a DNS failure,
whose time is the network's).

Redocly CLI 2.77.0 runs from `bench/.node` (git-ignored): `--install-redocly` puts it there with
`npm install --prefix bench/.node @redocly/cli@2.77.0` when it is missing (run_all.py passes it). Without
node, npm or the package the Redocly side is skipped, with the reason. `redocly lint` stops at the first
file it cannot process at all ("Unsupported Arazzo version"): those files are found first (one run each
until it gets through) and left out of both sides, and listed.
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
CLI = PREFIX / "node_modules" / "@redocly" / "cli" / "bin" / "cli.js"
# no telemetry, no update check: nothing leaves the machine, as with ours (--offline)
QUIET_NODE = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_COLOR": "1"}
_ABORTED = re.compile(r"Something went wrong when processing (.+?):\s*$", re.MULTILINE)


def documents(shared: Path) -> list[str]:
    """The Arazzo documents under `shared`/corpus and `shared`/arazzo, read with the engine's loader."""
    from arazzo_runner.errors import ArazzoError
    from arazzo_runner.loader import load_path

    found = []
    for folder in (shared / "corpus", shared / "arazzo"):
        for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
            if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
                continue
            try:
                data = load_path(path).data
            except ArazzoError:
                continue
            if isinstance(data, dict) and "arazzo" in data:
                found.append(str(path))
    return found


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
    files = documents(shared)
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
        "left_out": dropped,
        "rows": {label: summary(results) for label, results in found.items()},
        "exit_codes": {label: results[0].code for label, results in found.items()},
        "redocly": REDOCLY_VERSION if theirs is not None else None,
        "skipped": skipped,
    }
    if theirs is not None:
        result["ratio"] = ratios(found, "arazzo validate --offline", "redocly lint")
        result["ratio_one_process"] = ratios(found, "arazzo validate --offline --jobs 1", "redocly lint")
    if remote_runs:
        remote = [
            measure_process([*arazzo_command(), "validate", *files], quiet=True) for _ in range(remote_runs)
        ]
        result["rows"]["arazzo validate (remote fetches)"] = summary(remote)
    return result


def report(result: dict[str, Any]) -> None:
    print(f"(g) validating {result['files']} Arazzo documents in one command, {result['runs']} paired rounds")
    if result["left_out"]:
        print(f"  left out (redocly lint aborts on them): {', '.join(result['left_out'])}")
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
        ratio = result["ratio"]
        versus = f"ours / redocly lint {result['redocly']}"
        print(f"  {versus} = {ratio['wall']:.2f}x wall, {ratio['cpu']:.2f}x CPU (target <= 1x)")
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
