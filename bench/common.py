"""Shared helpers of the benchmark scripts: timing, whole-process runs with their peak RSS, the machine."""

from __future__ import annotations

import atexit
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the engine of this checkout, in-process too (see Spawner for processes)
MIB = 2**20


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


SPAWNER = """
import json, os, sys, time
for line in sys.stdin:
    command, env, quiet = json.loads(line)
    devnull = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in ((1, 2) if quiet else (1,))]
    started = time.perf_counter()
    pid = os.posix_spawn(command[0], command, {**os.environ, **env}, file_actions=devnull)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - started
    cpu = usage.ru_utime + usage.ru_stime
    print(elapsed, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status), cpu, flush=True)
"""


class Measured(NamedTuple):
    wall: float  # seconds
    rss: int  # the process's own peak RSS, bytes
    code: int  # exit code
    cpu: float  # user + system CPU seconds of the process (and of the children it waited for)


class Spawner:
    """Runs whole processes from a lean helper process (`python -S`, ~9 MiB) and measures them.

    A child's peak RSS (`ru_maxrss` from `os.wait4`) starts at the RSS of the process that forked it
    (Linux carries the old address space's high-water mark over `exec`), so children of this benchmark
    process, which has imported httpx and the engine, would all report at least its size. The helper
    forks them instead; it is smaller than any Python process it starts. stdout goes to /dev/null (and
    stderr with `quiet`). Every process gets `PYTHONPATH` = this checkout, so `arazzo` runs the engine
    of the checkout the benchmark is in, whatever the environment's install points at.
    """

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None

    def run(self, command: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, int, int]:
        """(wall seconds, the process's own peak RSS in bytes, exit code); `env` is added to os.environ."""
        return self.measure(command, env)[:3]

    def measure(
        self, command: Sequence[str], env: dict[str, str] | None = None, quiet: bool = False
    ) -> Measured:
        if self.process is None:
            compile_checkout()
            self.process = subprocess.Popen(
                [sys.executable, "-S", "-c", SPAWNER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        assert self.process.stdin is not None and self.process.stdout is not None
        executable = shutil.which(command[0]) or command[0]
        added = {"PYTHONPATH": str(ROOT), **(env or {})}
        self.process.stdin.write(json.dumps([[executable, *command[1:]], added, quiet]) + "\n")
        self.process.stdin.flush()
        elapsed, rss, code, cpu = self.process.stdout.readline().split()
        return Measured(float(elapsed), int(rss), int(code), float(cpu))

    def close(self) -> None:
        if self.process is not None:
            self.process.communicate()
            self.process = None


_SPAWNER = Spawner()
atexit.register(_SPAWNER.close)


def run_process(command: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, int, int]:
    """Run a whole process (stdout discarded, `env` added to the environment); returns (wall seconds,
    its own peak RSS in bytes, exit code)."""
    return _SPAWNER.run(command, env)


def measure_process(
    command: Sequence[str], env: dict[str, str] | None = None, quiet: bool = False
) -> Measured:
    """Like `run_process`, with the process's CPU time too; `quiet` also discards its stderr."""
    return _SPAWNER.measure(command, env, quiet)


def paired(
    commands: dict[str, tuple[list[str], dict[str, str]]], runs: int, quiet: bool = False
) -> dict[str, list[Measured]]:
    """`runs` rounds of whole-process runs of every command, interleaved, the order reversed every other
    round (A B, B A, ...) so neither side always runs first on a machine whose load drifts. Each command
    runs once beforehand (page cache, bytecode) and must exit as it did then, every time."""
    expected = {label: measure_process(cmd, env, quiet).code for label, (cmd, env) in commands.items()}
    found: dict[str, list[Measured]] = {label: [] for label in commands}
    order = list(commands)
    for round_ in range(runs):
        for label in order if round_ % 2 == 0 else reversed(order):
            command, env = commands[label]
            result = measure_process(command, env, quiet)
            if result.code != expected[label]:
                raise RuntimeError(f"{label}: exit code {result.code}, {expected[label]} at first: {command}")
            found[label].append(result)
    return found


def ratios(found: dict[str, list[Measured]], engine: str, baseline: str) -> dict[str, float]:
    """Medians of the per-round ratios engine / baseline (wall and CPU), and of each side."""
    pairs_ = list(zip(found[engine], found[baseline], strict=True))
    return {
        "wall": median([a.wall / b.wall for a, b in pairs_]),
        "cpu": median([a.cpu / b.cpu for a, b in pairs_]),
    }


def summary(runs: list[Measured]) -> dict[str, float]:
    return {
        "wall": median([r.wall for r in runs]),
        "cpu": median([r.cpu for r in runs]),
        "wall_min": min(r.wall for r in runs),
        "rss": max(r.rss for r in runs),
    }


def arazzo_command() -> list[str]:
    """The `arazzo` console script next to this interpreter (what users run), else `python -m`."""
    script = Path(sys.executable).with_name("arazzo")
    if script.exists():
        return [str(script)]
    found = shutil.which("arazzo")
    return [found] if found else [sys.executable, "-m", "arazzo_runner.cli"]


def instructions(command: Sequence[str], env: dict[str, str] | None = None) -> int | None:
    """User-space instructions one run of `command` executes (valgrind's callgrind, `Collected`), with
    `env` added and PYTHONPATH = this checkout as for `measure_process`; None without valgrind. Unlike
    CPU time, the count does not move with the machine's load (it leaves out the kernel's work, page
    faults included, and what cache misses cost): ~50x slower than the process itself."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    compile_checkout()
    executable = shutil.which(command[0]) or command[0]
    done = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", executable, *command[1:]],
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"exit code {done.returncode} under valgrind: {' '.join(command)}")
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].strip())
    raise RuntimeError(f"no instruction count in valgrind's output: {done.stderr[-300:]}")


def load_average() -> str:
    """The 1-minute load average, to state with every figure measured on a shared machine."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "unknown"


def self_peak_rss() -> int:
    """This process's peak RSS so far, in bytes (VmHWM)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def machine() -> dict[str, str]:
    model, memory = "unknown", "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 2**20:.1f} GiB"
                break
    except OSError:
        pass
    import httpx

    return {
        "nproc": str(os.cpu_count()),
        "cpu": model,
        "memory": memory,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "httpx": httpx.__version__,
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "date": date.today().isoformat(),
    }


def machine_line() -> str:
    m = machine()
    return (
        f"nproc {m['nproc']}, CPU {m['cpu']}, {m['memory']} RAM, {m['python']}, httpx {m['httpx']}, "
        f"{m['os']}, {m['date']}"
    )


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


def mib(size: float) -> str:
    return f"{size / MIB:.1f} MiB"


def write_json(path: str | None, data: dict[str, Any]) -> None:
    """`--json PATH`: the part's results for run_all.py."""
    if path:
        Path(path).write_text(json.dumps(data, indent=1))


def compile_checkout() -> None:
    """Write the bytecode of this checkout's engine, as an install does. With `PYTHONDONTWRITEBYTECODE`
    set (as in some environments, this machine's included) no process would write it, and each one
    would compile the engine from source: ~90 ms more per `arazzo` process, none for the baselines,
    whose libraries are installed with their bytecode."""
    import compileall

    compileall.compile_dir(ROOT / "arazzo_runner", quiet=1)


def chain_main(description: str, run: Any, report: Any) -> None:
    """The command line of the chain-shaped benchmarks: `--runs`, `--steps`, `--json`."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    print(machine_line())
    result = run(args.runs, args.steps)
    report(result)
    write_json(args.json, result)
