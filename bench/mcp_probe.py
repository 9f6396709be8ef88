"""`arazzo mcp` with the run of each tool call timed inside the server, for `mcp_calls.py`: which part of
the server's CPU a call is the run (`call_tool`: the arguments checked, the workflow run, the outcome
built), and so which part is the server around it (stdio, JSON-RPC, the SDK's session, the answer).

The server is the real one (`arazzo_runner.cli`, the same arguments); only `call_tool` is wrapped: the
CPU time of this thread from the call's start to its end (the thread serves nothing else while one call
is in flight, as the benchmark's client waits for each answer) is added to a counter in COUNTER, a
16-byte shared file (seconds, calls as two doubles) the benchmark reads between its blocks. The wrapper
costs ~1 µs a call.

    python bench/mcp_probe.py COUNTER mcp DOCUMENT [arazzo mcp's options]
"""

from __future__ import annotations

import mmap
import struct
import sys
import time
from typing import Any

LAYOUT = struct.Struct("dd")


def read_counter(path: str) -> tuple[float, float]:
    """(the runs' CPU seconds, the calls) so far."""
    with open(path, "rb") as file:
        return LAYOUT.unpack(file.read(LAYOUT.size))  # type: ignore[return-value]


def create_counter(path: str) -> None:
    with open(path, "wb") as file:
        file.write(LAYOUT.pack(0.0, 0.0))


def main() -> None:
    counter_path = sys.argv.pop(1)
    with open(counter_path, "r+b") as file:
        shared = mmap.mmap(file.fileno(), LAYOUT.size)
    import arazzo_runner.agents.tools.call as calls

    real = calls.call_tool
    clock = time.thread_time

    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = clock()
        try:
            return await real(*args, **kwargs)
        finally:
            seconds, count = LAYOUT.unpack_from(shared)
            LAYOUT.pack_into(shared, 0, seconds + clock() - started, count + 1)

    calls.call_tool = timed  # the server imports it from the module at each call
    from arazzo_runner.cli import entry

    sys.argv[0] = "arazzo"
    entry()


if __name__ == "__main__":
    main()
