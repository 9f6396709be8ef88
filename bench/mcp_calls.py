"""Issue 28, row 6: what `arazzo mcp` over stdio adds to a tool call. The bench server's 1-step workflow
(`GET /items/{n}`, two criteria, one output) as a tool, called N times by the official MCP client (the
SDK's `mcp.Client` over stdio, the server a real `arazzo mcp` process), against `arazzo_runner.run()` of
the same workflow in this process, N times. Interleaved blocks, medians of the per-call times: the
client's wall time a call, and the server process's CPU a call (/proc, user + system); the in-process
run's wall and CPU a call. Needs the `mcp` extra.

    python bench/mcp_calls.py [--calls 200] [--blocks 5] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, machine_line, median, write_json
from documents import SOURCE, write_chain
from server import BenchServer


def _process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _mcp_blocks(document: Path, url: str, calls: int, blocks: int, found: dict, local: Any) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    argv = ["-m", "arazzo_runner.cli", "mcp", str(document), "--server", f"{SOURCE}={url}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable, args=argv, cwd=str(ROOT), env=env)
    with open(os.devnull, "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            (tool,) = (await client.list_tools()).tools
            pid = _server_pid()
            for _ in range(20):  # warm up: imports, first connections
                await client.call_tool(tool.name, {"start": 1})
            for _ in range(blocks):
                cpu, started = _process_cpu(pid), time.perf_counter()
                for n in range(calls):
                    result = await client.call_tool(tool.name, {"start": n})
                    assert not result.is_error, result
                found["mcp wall"].append((time.perf_counter() - started) / calls)
                found["mcp server cpu"].append((_process_cpu(pid) - cpu) / calls)
                await asyncio.to_thread(local)  # the in-process runs, between the server's blocks


def _server_pid() -> int:
    """The `arazzo mcp` child of this process (the SDK does not expose it)."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me and b"mcp" in (entry / "cmdline").read_bytes():
                return int(entry.name)
    raise RuntimeError("the arazzo mcp process was not found")


from typing import Any  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    import arazzo_runner

    found: dict[str, list[float]] = {"mcp wall": [], "mcp server cpu": [], "run wall": [], "run cpu": []}
    with tempfile.TemporaryDirectory() as tmp, BenchServer() as server:
        document = write_chain(Path(tmp), 1)
        loaded = arazzo_runner.load(str(document))
        servers = {SOURCE: server.url}
        for n in range(20):
            arazzo_runner.run(loaded, inputs={"start": n}, servers=servers)

        def local() -> None:
            times, started = os.times(), time.perf_counter()
            for n in range(args.calls):
                result = arazzo_runner.run(loaded, inputs={"start": n}, servers=servers)
                assert result.ok, result
            found["run wall"].append((time.perf_counter() - started) / args.calls)
            after = os.times()
            found["run cpu"].append((after.user + after.system - times.user - times.system) / args.calls)

        asyncio.run(_mcp_blocks(document, server.url, args.calls, args.blocks, found, local))
        load = os.getloadavg()[0]
    medians = {name: median(values) for name, values in found.items()}
    added_wall = medians["mcp wall"] - medians["run wall"]
    added_cpu = medians["mcp server cpu"] - medians["run cpu"]
    print(f"machine: {machine_line()}; load average (1 min) at the end: {load:.2f}")
    print(f"method: {args.blocks} interleaved blocks of {args.calls} calls, medians of the per-call figures")
    for name, value in medians.items():
        print(f"  {name:>15}: {value * 1e6:8,.0f} µs a call")
    print(f"added by arazzo mcp over run() in process: {added_wall * 1e6:,.0f} µs wall a call (client side), "
          f"{added_cpu * 1e6:,.0f} µs CPU a call (server side) (goal <= 1,000 µs)")  # fmt: skip
    write_json(args.json, {"machine": machine_line(), "load": load, "per_call": medians,
                           "added_wall": added_wall, "added_cpu": added_cpu})  # fmt: skip


if __name__ == "__main__":
    main()
