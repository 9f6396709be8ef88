"""Issue 28, row 6: what `arazzo mcp` over stdio adds to a tool call. The bench server's 1-step workflow
(`GET /items/{n}`, two criteria, one output) as a tool, called N times by the official MCP client (the
SDK's `mcp.Client` over stdio, the server a real `arazzo mcp` process), against `arazzo_runner.run()` of
the same workflow in this process, N times. Interleaved blocks, medians of the per-call times: the
client's wall time a call, and the server process's CPU a call (/proc, user + system); the in-process
run's wall and CPU a call, in a loop ("run cpu") and paced ("paced run cpu": each run after a pause of
`--pause-ms`, its own thread's CPU: a server's call comes after the client's round trip, its caches
cooled by whatever ran meanwhile, and the same run costs up to 2x the CPU it costs in a tight loop on a
busy machine). Needs the `mcp` extra. With `--against CHECKOUT`, a second `arazzo mcp`
process runs that checkout's engine (the tree before a change), its blocks alternating with this
tree's in the same rounds. With `--fastmcp`, a third process serves the same workflow the way a user
would without `arazzo mcp`: the SDK's own high-level server with one tool awaiting `arazzo_runner.arun()`
(`mcp_fastmcp.py`, logging as the SDK sets it up), a fourth the same with the calls' runs on one
connection pool as ours and only warnings logged ("fastmcp pooled"), and a fifth whose tool returns
the outputs without a run ("fastmcp empty": the SDK server's floor a call), their blocks in the same
rounds, and ours is compared with them. The load average is printed before and after.

    python bench/mcp_calls.py [--calls 200] [--blocks 5] [--against CHECKOUT] [--fastmcp] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, machine_line, median, write_json
from documents import SOURCE, write_chain
from mcp_probe import create_counter, read_counter
from server import BenchServer


def _process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _mcp_blocks(document: Path, url: str, args: Any, found: dict, local: Any) -> None:
    """Blocks of calls to each tree's server, alternating, and the in-process runs between rounds."""
    from contextlib import AsyncExitStack

    counters = {name: str(document.parent / f"{name}.counter") for name in ("mcp", "before")}
    for path in counters.values():
        create_counter(path)
    arazzo = ["mcp", str(document), "--server", f"{SOURCE}={url}"]
    probe = str(Path(__file__).with_name("mcp_probe.py"))  # the real server, its runs timed inside it
    # name: (argv, the engine's tree, the process's cwd)
    servers = {"mcp": ([probe, counters["mcp"], *arazzo], ROOT, ROOT)}
    if args.against:
        before = Path(args.against).resolve()
        servers["before"] = ([probe, counters["before"], *arazzo], before, before)
    if args.fastmcp:  # cwd: the document's folder, to tell its process from ours
        reference = [str(Path(__file__).with_name("mcp_fastmcp.py")), str(document), url]
        servers["fastmcp"] = (reference, ROOT, document.parent)
        for how in ("pooled", "empty"):
            (document.parent / how).mkdir()
            servers[f"fastmcp {how}"] = ([*reference, f"--{how}"], ROOT, document.parent / how)
    with open(os.devnull, "w") as errlog:
        async with AsyncExitStack() as stack:
            clients = {name: await _client(stack, errlog, *server) for name, server in servers.items()}
            for block in range(args.blocks):
                for name in list(clients) if block % 2 == 0 else list(clients)[::-1]:
                    client, tool, pid = clients[name]
                    runs = read_counter(counters[name]) if name in counters else None
                    cpu, started = _process_cpu(pid), time.perf_counter()
                    for n in range(args.calls):
                        result = await client.call_tool(tool.name, {"start": n})
                        assert not result.is_error, result
                    found[f"{name} wall"].append((time.perf_counter() - started) / args.calls)
                    found[f"{name} server cpu"].append((_process_cpu(pid) - cpu) / args.calls)
                    if runs is not None:
                        now = read_counter(counters[name])
                        seconds, calls = now[0] - runs[0], now[1] - runs[1]
                        assert calls == args.calls, (calls, args.calls)
                        found[f"{name} run in server cpu"].append(seconds / calls)
                        around = found[f"{name} server cpu"][-1] - seconds / calls
                        found[f"{name} around the run cpu"].append(around)  # the same block's difference
                await asyncio.to_thread(local)  # the in-process runs, between the servers' blocks


async def _client(stack: Any, errlog: Any, argv: list[str], root: Path, cwd: Path) -> tuple[Any, Any, int]:
    """The official client on a server process (`python ARGV`) running the engine of `root`, warmed up."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "PYTHONPATH": str(root)}
    params = StdioServerParameters(command=sys.executable, args=argv, cwd=str(cwd), env=env)
    client = await stack.enter_async_context(Client(stdio_client(params, errlog=errlog)))
    (tool,) = (await client.list_tools()).tools
    for _ in range(20):  # warm up: imports, first connections
        await client.call_tool(tool.name, {"start": 1})
    return client, tool, _server_pid(cwd)


def _server_pid(root: Path) -> int:
    """The MCP server child of this process working in `root` (the SDK does not expose it)."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                ours = parent == me and b"mcp" in (entry / "cmdline").read_bytes()
                if ours and Path(os.readlink(entry / "cwd")) == root:
                    return int(entry.name)
            except OSError:
                continue
    raise RuntimeError(f"the MCP server process in {root} was not found")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--against", metavar="CHECKOUT", help="also serve with this checkout's engine")
    parser.add_argument("--fastmcp", action="store_true", help="also serve with the SDK's own server")
    parser.add_argument("--pause-ms", type=float, default=3.0, help="the pause before each paced run (3)")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    import arazzo_runner

    names = ["mcp", "before"] if args.against else ["mcp"]
    served = [*names, "fastmcp", "fastmcp pooled", "fastmcp empty"] if args.fastmcp else names
    found: dict[str, list[float]] = {f"{n} {what}": [] for n in served for what in ("wall", "server cpu")}
    found.update({f"{n} {what} cpu": [] for n in names for what in ("run in server", "around the run")})
    found.update({"run wall": [], "run cpu": [], "paced run cpu": []})
    load_before = os.getloadavg()[0]
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
            spent = 0.0  # paced: a pause before each run, as a server waits for the client's next call
            for n in range(args.calls):
                time.sleep(args.pause_ms / 1000)
                before = time.thread_time()
                arazzo_runner.run(loaded, inputs={"start": n}, servers=servers)
                spent += time.thread_time() - before
            found["paced run cpu"].append(spent / args.calls)

        asyncio.run(_mcp_blocks(document, server.url, args, found, local))
        load = os.getloadavg()[0]
    medians = {name: median(values) for name, values in found.items()}
    print(
        f"machine: {machine_line()}; load average (1 min) before: {load_before:.2f}, at the end: {load:.2f}"
    )
    print(f"method: {args.blocks} interleaved blocks of {args.calls} calls, medians of the per-call figures")
    width = max(18, *map(len, medians))
    for name, value in medians.items():
        print(f"  {name:>{width}}: {value * 1e6:8,.0f} µs a call")
    added = {}
    for name in names:
        server_cpu = medians[f"{name} server cpu"]
        added[name] = (
            medians[f"{name} wall"] - medians["run wall"],
            server_cpu - medians["run cpu"],
            server_cpu - medians["paced run cpu"],
        )
        tree = "this tree" if name == "mcp" else f"the checkout {args.against}"
        wall, cpu, paced = (value * 1e6 for value in added[name])
        print(f"added by arazzo mcp ({tree}) over run() in process: {wall:,.0f} µs wall a call "
              f"(client side), {cpu:,.0f} µs CPU a call (server side); over paced runs: {paced:,.0f} µs "
              "(goal <= 1,000 µs)")  # fmt: skip
        inside, around = (medians[f"{name} {what} cpu"] * 1e6 for what in ("run in server", "around the run"))
        print(f"  of the server's CPU a call, the run itself (call_tool, timed inside the server) "
              f"{inside:,.0f} µs ({inside / (medians['run cpu'] * 1e6):.2f}x run() in a loop, "
              f"{inside / (medians['paced run cpu'] * 1e6):.2f}x paced); the server around it "
              f"{around:,.0f} µs (goal <= 1,000 µs)")  # fmt: skip
    ratios = _against_fastmcp(medians) if args.fastmcp else {}
    added["mcp"] = (*added["mcp"], medians["mcp around the run cpu"])
    if args.against:
        added["before"] = (*added["before"], medians["before around the run cpu"])
    fields = ("added_wall", "added_cpu", "added_cpu_paced", "added_around_the_run")
    write_json(args.json, {"machine": machine_line(), "load": [load_before, load], "per_call": medians,
                           **dict(zip(fields, added["mcp"], strict=True)),
                           **({"before": dict(zip(fields, added["before"], strict=True))}
                              if args.against else {}),
                           **({"fastmcp_ratio": ratios} if args.fastmcp else {})})  # fmt: skip


def _against_fastmcp(medians: dict[str, float]) -> dict[str, float]:
    """Ours beside the SDK's own server running the same workflow: server CPU a call, each over run(),
    and the SDK server's floor (a tool that runs nothing)."""
    ours = medians["mcp server cpu"]
    for name, how in (("fastmcp", "plain arun"), ("fastmcp pooled", "arun on one pool, warnings logged")):
        theirs, wall = medians[f"{name} server cpu"], medians[f"{name} wall"]
        print(f"ours against the SDK's own server (a tool awaiting {how}): server CPU a call "
              f"{ours * 1e6:,.0f} µs against {theirs * 1e6:,.0f} µs (ratio {ours / theirs:.2f}); client's "
              f"wall a call {medians['mcp wall'] * 1e6:,.0f} against {wall * 1e6:,.0f} µs")  # fmt: skip
    for name, label in (("mcp", "ours"), ("fastmcp", "SDK's, plain"), ("fastmcp pooled", "SDK's, pooled")):
        cpu = medians[f"{name} server cpu"]
        loop, paced = (cpu - medians["run cpu"]) * 1e6, (cpu - medians["paced run cpu"]) * 1e6
        print(f"  {label:>16} over run() in process: {loop:+,.0f} µs CPU a call over the loop, "
              f"{paced:+,.0f} µs over paced runs")  # fmt: skip
    floor, loop, paced = (
        medians[name] * 1e6 for name in ("fastmcp empty server cpu", "run cpu", "paced run cpu")
    )
    print(f"the SDK's own server with a tool that runs nothing: {floor:,.0f} µs CPU a call (a call's floor "
          f"on it); ours less that floor: {ours * 1e6 - floor:,.0f} µs, run() {loop:,.0f} µs in a loop, "
          f"{paced:,.0f} µs paced")  # fmt: skip
    return {
        name: ours / medians[f"{name} server cpu"] for name in ("fastmcp", "fastmcp pooled", "fastmcp empty")
    }


if __name__ == "__main__":
    main()
