"""Processes the tests start (brokers, responders, services) and the brokers a machine may lack.

`Process` reads a child's output on threads: stdout line by line into a buffer `line()` waits on,
stderr into a bounded tail kept for error messages. (Waiting with `select()` on a pipe and then
reading it through Python's buffered reader loses lines: one `readline()` buffers every line the child
wrote at once, and `select()` then waits for more that never come; a stderr pipe nobody reads stalls a
child that logs more than the pipe holds.) Each child gets a session of its own, so `stop()` ends it
and whatever it started (RabbitMQ's Erlang helpers), and nothing else.

`broker_binary(name)` finds a broker's executable, or fails the test asking for
`tests/install-system-packages.sh`; `ARAZZO_TESTS_WITHOUT=name,...` (or `all`) turns that failure into a skip
whose reason says the README's claim for the broker is not tested on this machine (listed again at the
end of the run by `tests/conftest.py`, from the skip reports, so also under pytest-xdist).
"""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STARTUP = 60.0  # seconds a child may take to say it is ready (a guard against a hang, not a measure)
SYSTEM_DIRS = ("/usr/sbin", "/usr/local/sbin", "/usr/lib/rabbitmq/bin", "/opt/homebrew/sbin")


class Process:
    """A child process and its output, read on threads (see the module's docstring)."""

    def __init__(
        self, args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None, merged: bool = False
    ) -> None:
        """`merged`: the child's stderr is read as its output too (a daemon that logs there)."""
        env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        self.proc = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merged else subprocess.PIPE,
            start_new_session=True,
        )
        self._lines: collections.deque[str] = collections.deque(maxlen=10_000)
        self._errors: collections.deque[str] = collections.deque(maxlen=50)
        self._changed = threading.Condition()
        self._ended = False
        self._readers = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self._lines, merged), daemon=True)
        ]
        if not merged:
            pump = (self.proc.stderr, None, False)
            self._readers.append(threading.Thread(target=self._pump, args=pump, daemon=True))
        for reader in self._readers:
            reader.start()

    def _pump(self, stream, lines: collections.deque[str] | None, tail: bool) -> None:
        """Read `stream` to its end: into `lines` (stdout), into the error tail (stderr, or `tail`)."""
        for raw in iter(stream.readline, b""):
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self._changed:
                if lines is None or tail:
                    self._errors.append(text)
                if lines is not None:
                    lines.append(text)
                    self._changed.notify_all()
        if lines is not None:
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    def line(self, prefix: str, wait: float = STARTUP, ending: str = "") -> str:
        """The rest of the first line (after the ones taken before) that starts with `prefix` (and ends
        with `ending`): the process's own readiness report. RuntimeError, with the end of its stderr,
        when it exits first or says no such line within `wait` seconds."""
        until = time.monotonic() + wait
        with self._changed:
            while True:
                while self._lines:
                    text = self._lines.popleft()
                    if text.startswith(prefix) and text.endswith(ending):
                        return text[len(prefix) :].strip()
                if self._ended:
                    break
                left = until - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"{self.proc.args} did not print {prefix!r} within {wait:g} s")
                self._changed.wait(left)
        code = self.proc.wait(timeout=30)
        raise RuntimeError(f"{self.proc.args} exited ({code}) before printing {prefix!r}: {self.errors()}")

    def errors(self) -> str:
        """The end of what the process wrote to stderr (of all it wrote, when `merged`)."""
        with self._changed:
            return "\n".join(self._errors)

    def stop(self, grace: float = 0.0) -> None:
        """End the process and its session (children it started), then its readers. `grace`: seconds
        it may take to stop on SIGTERM first (a launcher script that waits for its VM, so that none is
        left behind unreaped)."""
        if grace and self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=grace)
        with contextlib.suppress(ProcessLookupError, PermissionError):  # else: the session has ended
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        for reader in self._readers:
            reader.join(timeout=30)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def free_port() -> int:
    """A port nothing listens on now (a process given it may still lose it: callers retry)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def find_binary(name: str) -> str | None:
    """An executable on PATH or in the folders system packages put daemons in."""
    return shutil.which(name) or shutil.which(name, path=os.pathsep.join(SYSTEM_DIRS))


def allowed_missing(broker: str) -> bool:
    """Does ARAZZO_TESTS_WITHOUT name `broker` (or `all`)?"""
    names = {n.strip() for n in os.environ.get("ARAZZO_TESTS_WITHOUT", "").split(",")}
    return "all" in names or broker in names


def broker_binary(broker: str, found: str | None, package: str) -> str:
    """`found` (a broker's executable); else the test fails saying what to install, or, when
    ARAZZO_TESTS_WITHOUT names the broker, is skipped saying loudly that its claim is not tested."""
    if found:
        return found
    reason = (
        f"{broker}: no broker binary on this machine ({package}): the README's claim for {broker} is "
        "NOT TESTED here"
    )
    if allowed_missing(broker):
        pytest.skip(reason)
    pytest.fail(
        f"{broker}: no broker binary ({package}): run `bash tests/install-system-packages.sh` (see the "
        f"README's Tests), or set ARAZZO_TESTS_WITHOUT={broker} to skip its tests on a platform without it",
        pytrace=False,
    )
