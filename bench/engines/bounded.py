"""Run one engine process bounded in wall time and memory.

The process leads its own session; a watcher sums the resident memory of every process of that
session (node spawns helpers, Python engines may too) every 0.05 s (0.2 s after the first two
seconds) and kills the session when it passes the limit, as it does at the deadline. Output goes to
files, not pipes, so a chatty engine never blocks, and only the last `KEEP` bytes of each are read.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

KEEP = 4 * 2**20
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Done:
    code: int | None  # None: killed by the harness
    stdout: str
    stderr: str
    seconds: float
    killed: str | None = None  # "timeout after 60 s" / "memory over 2048 MiB"
    peak_mib: float = 0.0


def _session_rss(session: int) -> int:
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            if int(fields[3]) == session:  # field 6 (session), counted after the command name
                total += int(fields[21]) * _PAGE  # field 24 (rss pages)
        except (OSError, IndexError, ValueError):
            continue
    return total


def _tail(path: Path) -> str:
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - KEEP))
        return f.read().decode("utf-8", "replace")


def run(command: list[str], *, cwd: Path, env: dict[str, str], timeout: float, memory_mib: int) -> Done:
    cwd.mkdir(parents=True, exist_ok=True)
    out, err = cwd / "stdout.txt", cwd / "stderr.txt"
    started = time.monotonic()
    with out.open("wb") as o, err.open("wb") as e:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=o, stderr=e, stdin=subprocess.DEVNULL, start_new_session=True
        )
    killed, peak = None, 0
    while process.poll() is None:
        rss = _session_rss(process.pid)
        peak = max(peak, rss)
        if rss > memory_mib * 2**20:
            killed = f"memory over {memory_mib} MiB"
        elif time.monotonic() - started > timeout:
            killed = f"timeout after {timeout:.0f} s"
        if killed:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            break
        time.sleep(0.05 if time.monotonic() - started < 2 else 0.2)
    with contextlib.suppress(ProcessLookupError, PermissionError):  # what the leader left in its session
        os.killpg(process.pid, signal.SIGKILL)
    seconds = time.monotonic() - started
    code = None if killed else process.returncode
    return Done(code, _tail(out), _tail(err), seconds, killed, peak / 2**20)
