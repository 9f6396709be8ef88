"""Where the time goes, for the targets run_all.py may report as MISS (not a test).

    python bench/profile_hotspots.py imports   # cold start: what `arazzo run` imports beyond raw httpx
    python bench/profile_hotspots.py step      # per step: cProfile of the 200-step chain over MockTransport

`imports`: `python -X importtime` (best of 3) of `arazzo run` of the 1-step document and of the raw async
httpx script; the modules only the engine imports, grouped by package (self time), and the largest of
them (inclusive). importtime inflates times by ~10-30%: compare them with each other.
`step`: cProfile of 10 engine runs of the chain (after a warm-up), tottime grouped by file per step, and
the engine's functions by cumulative time per step. cProfile inflates times ~2.5x: use proportions.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cold_start import RAW_ASYNC
from documents import SOURCE, write_chain
from server import BenchServer


def importtime(args: list[str]) -> dict[str, tuple[int, int]]:
    """module -> (self us, inclusive us), the run with the least total of 3."""
    best: dict[str, tuple[int, int]] = {}
    for _ in range(3):
        found = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True)
        rows = {}
        for line in found.stderr.splitlines():
            if line.startswith("import time:") and "self [us]" not in line:
                own, inclusive, name = line.split(":", 1)[1].split("|")
                rows[name.strip()] = (int(own), int(inclusive))
        if not best or sum(v[0] for v in rows.values()) < sum(v[0] for v in best.values()):
            best = rows
    return best


def group(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "arazzo_runner" else parts[0]


def imports() -> None:
    with tempfile.TemporaryDirectory() as folder, BenchServer() as server:
        document = str(write_chain(Path(folder), 1))
        engine = importtime(
            ["-m", "arazzo_runner.cli", "run", document, "--server", f"{SOURCE}={server.url}"]
        )
        raw = importtime(["-c", RAW_ASYNC, f"{server.url}/items/1"])
    only = {name: times for name, times in engine.items() if name not in raw}
    total = sum(own for own, _ in engine.values()) / 1e3
    print(f"arazzo run: {len(engine)} modules, {total:.1f} ms of imports (self, summed)")
    print(f"raw async httpx: {len(raw)} modules, {sum(own for own, _ in raw.values()) / 1e3:.1f} ms")
    print(
        f"imported only by the engine: {len(only)} modules, {sum(o for o, _ in only.values()) / 1e3:.1f} ms"
    )
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, (own, _) in only.items():
        groups[group(name)][0] += own
        groups[group(name)][1] += 1
    for name, (own, count) in sorted(groups.items(), key=lambda item: -item[1][0])[:20]:
        print(f"  {own / 1e3:6.1f} ms  {count:3} modules  {name}")
    print("largest engine-only imports (inclusive):")
    for name, (_, inclusive) in sorted(only.items(), key=lambda item: -item[1][1])[:15]:
        print(f"  {inclusive / 1e3:6.1f} ms  {name}")


def where(filename: str) -> str:
    if "arazzo_runner/" in filename:
        return "arazzo_runner/" + filename.split("arazzo_runner/", 1)[1]
    if "site-packages/" in filename:
        return filename.split("site-packages/", 1)[1].split("/", 1)[0]
    return "builtins" if filename == "~" else "stdlib " + filename.rsplit("/", 1)[-1]


def step(steps: int = 200, runs: int = 10) -> None:
    from chain import engine_run
    from overhead import URL, mock_client

    import arazzo_runner

    async def profile() -> cProfile.Profile:
        profiler = cProfile.Profile()
        async with mock_client() as client:
            for _ in range(3):
                await engine_run(document, URL, steps, client)
            profiler.enable()
            for _ in range(runs):
                await engine_run(document, URL, steps, client)
            profiler.disable()
        return profiler

    with tempfile.TemporaryDirectory() as folder:  # sources load on first use: keep the folder meanwhile
        document = arazzo_runner.load(write_chain(Path(folder), steps))
        stats = pstats.Stats(asyncio.run(profile())).stats  # type: ignore[attr-defined]
    count = steps * runs
    per_file: dict[str, float] = defaultdict(float)
    for (filename, _, _), (_, _, own, _, _) in stats.items():
        per_file[where(filename)] += own
    total = sum(per_file.values()) / count * 1e6
    print(f"cProfile, {runs} runs x {steps} steps: {total:.0f} us/step (profiled)")
    for name, own in sorted(per_file.items(), key=lambda item: -item[1])[:20]:
        print(f"  {own / count * 1e6:6.1f} us/step  {name}")
    print("engine functions by cumulative time (us/step, profiled):")
    engine = [(key, value) for key, value in stats.items() if "arazzo_runner/" in key[0]]
    for (filename, line, function), (_, calls, _, cumulative, _) in sorted(engine, key=lambda kv: -kv[1][3])[
        :30
    ]:
        print(
            f"  {cumulative / count * 1e6:7.1f}  x{calls / count:<4.1f} {where(filename)}:{line}({function})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["imports", "step"])
    args = parser.parse_args()
    imports() if args.what == "imports" else step()


if __name__ == "__main__":
    main()
