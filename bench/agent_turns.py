"""Issue 28, the `arazzo agent` row ("keep"): what the agent loop adds to a turn, against the loop a user
would write with the official `openai` client.

Both sides run the same conversation against the bundled reference server (in this process, its OpenAI
flavour, streamed): the prompt names the bench server's 1-step workflow (`GET /items/{n}`, two criteria,
one output) as a tool, the model calls it, the tool call runs the workflow (`arazzo_runner.arun` in the
user's loop, the agent's own tool call in ours), its outputs go back, the model answers: two turns.

- in process: `arazzo_runner.agents.aagent` against a hand-written loop over `openai.AsyncOpenAI`
  (chunks merged by hand, as users do), interleaved blocks of N agent runs, process CPU (user + system)
  and wall a run, medians over the blocks; what ours adds a turn = (ours - theirs) / 2;
- as processes: `arazzo agent ... --chat URL` against `python bench/agent_user_loop.py` (the same user
  loop; importing `openai` is most of its start), paired and alternating, medians; CPU from `wait4`.

    python bench/agent_turns.py [--runs 50] [--blocks 5] [--processes 7] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, machine_line, median, write_json
from documents import SOURCE, WORKFLOW, write_chain
from server import BenchServer

PROMPT = "Run the chain from 3, please."
KEY = "sk-bench-local"
MODEL = "agentaus"


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


async def _ours(loaded: Any, chat: str, servers: dict[str, str], runs: int) -> None:
    from arazzo_runner.agents import aagent
    from arazzo_runner.executor.options import RunOptions

    options = RunOptions(servers=servers)
    for _ in range(runs):
        result = await aagent(loaded, PROMPT, chat_url=chat, model=MODEL, api_key=KEY, options=options)
        assert result.ok and result.turns == 2 and len(result.tool_calls) == 1, result.to_dict()


def _in_process(document: Path, chat: str, url: str, runs: int, blocks: int) -> dict[str, float]:
    import agent_user_loop

    import arazzo_runner

    loaded = arazzo_runner.load(str(document))
    servers = {SOURCE: url}
    found: dict[str, list[float]] = {"ours cpu": [], "ours wall": [], "openai cpu": [], "openai wall": []}

    def block(name: str, coroutine: Any) -> None:
        cpu, wall = _cpu(), time.perf_counter()
        asyncio.run(coroutine)
        found[f"{name} cpu"].append((_cpu() - cpu) / runs)
        found[f"{name} wall"].append((time.perf_counter() - wall) / runs)

    asyncio.run(_ours(loaded, chat, servers, 5))  # warm up both: imports, first connections
    asyncio.run(agent_user_loop.main(str(document), chat, url, 5))
    for index in range(blocks):
        sides = [("ours", lambda: _ours(loaded, chat, servers, runs)),
                 ("openai", lambda: agent_user_loop.main(str(document), chat, url, runs))]  # fmt: skip
        for name, make in sides if index % 2 == 0 else reversed(sides):
            block(name, make())
    return {name: median(values) for name, values in found.items()}


def _process(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    started = time.perf_counter()
    child = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{argv[:4]} exited {child.returncode}: {child.stderr.read().decode()[-500:]}")
    child.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def _processes(document: Path, chat: str, url: str, rounds: int) -> dict[str, float]:
    script = Path(__file__).resolve().parent / "agent_user_loop.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": KEY}
    ours = [sys.executable, "-m", "arazzo_runner.cli", "agent", str(document), "--prompt", PROMPT,
            "--server", f"{SOURCE}={url}", "--chat", chat, "--model", MODEL, "--format", "json"]  # fmt: skip
    theirs = [sys.executable, str(script), str(document), chat, url, "1"]
    found: dict[str, list[float]] = {"ours": [], "openai": [], "ratio wall": [], "ratio cpu": []}
    for index in range(rounds):
        pair = [("ours", ours), ("openai", theirs)]
        measured = {name: _process(argv, env) for name, argv in (pair if index % 2 == 0 else pair[::-1])}
        found["ours"].append(measured["ours"][1])
        found["openai"].append(measured["openai"][1])
        found["ratio wall"].append(measured["ours"][0] / measured["openai"][0])
        found["ratio cpu"].append(measured["ours"][1] / measured["openai"][1])
    return {name: median(values) for name, values in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="agent runs a block (in process)")
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--processes", type=int, default=7, help="paired process rounds")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    from arazzo_runner.reference import ReferenceServer

    load_before = os.getloadavg()[0]
    reference = ReferenceServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp, BenchServer() as server:
            document = write_chain(Path(tmp), 1)
            inside = _in_process(document, reference.url, server.url, args.runs, args.blocks)
            apart = _processes(document, reference.url, server.url, args.processes)
    finally:
        reference.stop()
    load_after = os.getloadavg()[0]
    added = (inside["ours cpu"] - inside["openai cpu"]) / 2
    print(f"machine: {machine_line()}; load average {load_before:.2f} before, {load_after:.2f} after")
    print(f"workflow '{WORKFLOW}' as a tool, 2 turns a run, the reference server streamed, in this process")
    print(f"in process ({args.blocks} interleaved blocks of {args.runs} runs, medians; CPU = user + system):")
    for name, value in inside.items():
        print(f"  {name:>12}: {value * 1e3:8.2f} ms a run")
    print(f"  added by the agent loop: {added * 1e3:+.2f} ms CPU a turn (issue 28: +0.26 ms; goal: keep)")
    print(f"as processes ({args.processes} paired rounds, alternating, medians; CPU from wait4):")
    ours, theirs = apart["ours"] * 1e3, apart["openai"] * 1e3
    ratios = f"{apart['ratio cpu']:.2f}x CPU, {apart['ratio wall']:.2f}x wall"
    print(f"  arazzo agent {ours:.0f} ms CPU, the openai script {theirs:.0f} ms: {ratios} (issue 28: 0.24x)")
    write_json(args.json, {"machine": machine_line(), "load": [load_before, load_after],
                           "in_process": inside, "added_per_turn": added, "processes": apart})  # fmt: skip


if __name__ == "__main__":
    main()
