"""Helpers of the load tests: a document of two steps, a server that counts what it answers and how much
at once, free ports, and Locust runs as real child processes.

Locust monkey-patches the process that imports it (gevent), so it never enters the pytest process:
every run here is `python -m arazzo_runner.cli load ...` or Locust's own `locust -f ...` in a child
process, with the repository root as its working directory (the worktree's package is the one run).
"""

from __future__ import annotations

import csv
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.helpers import ROOT
from tests.servers.scripted import Recorded, ScriptedServer

SECRET = "tok-3d1f9c0b7e"  # the bearer token the flows send; never in any report

BROWSE = {
    "workflowId": "browse",
    "inputs": {
        "type": "object",
        "properties": {"limit": {"type": "integer", "default": 2}, "who": {"type": "string"}},
    },
    "steps": [
        {
            "stepId": "list",
            "operationId": "listPets",
            "parameters": [{"name": "limit", "in": "query", "value": "$inputs.limit"}],
            "successCriteria": [{"condition": "$statusCode == 200"}],
            "outputs": {"first": "$response.body#/0/id"},
        },
        {
            "stepId": "show",
            "operationId": "getPet",
            "parameters": [
                {"name": "petId", "in": "path", "value": "$steps.list.outputs.first"},
                {"name": "X-Trace", "in": "header", "value": "$inputs.who"},
            ],
            "successCriteria": [{"condition": "$statusCode == 200"}],
        },
    ],
}
ADOPT = {
    "workflowId": "adopt",
    "inputs": {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]},
    "steps": [
        {
            "stepId": "create",
            "operationId": "createPet",
            "requestBody": {"payload": {"owner": "$inputs.who"}},
            "successCriteria": [{"condition": "$statusCode == 201"}],
        }
    ],
}


def secured_openapi() -> dict[str, Any]:
    """The pets description with a bearer scheme that every operation requires."""
    schemes = {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}}
    return {**PETS_OPENAPI, "components": schemes, "security": [{"bearer": []}]}


def write_documents(folder: Path, *workflows: dict[str, Any]) -> Path:
    """pets.openapi.yaml (bearer) and shop.arazzo.yaml (workflows browse and adopt, or those given)."""
    (folder / "pets.openapi.yaml").write_text(yaml.safe_dump(secured_openapi(), sort_keys=False))
    path = folder / "shop.arazzo.yaml"
    path.write_text(yaml.safe_dump(arazzo_doc(*(workflows or (BROWSE, ADOPT))), sort_keys=False))
    return path


class Counter:
    """What the server answered, per route, and the most requests it held at once. With `gate`, the
    first `gate` requests wait until that many are in flight together (or until a guard time passes:
    then the gate opens for good, and the peak says how many ever were)."""

    def __init__(self, gate: int = 0, guard: float = 60.0) -> None:
        self.lock = threading.Lock()
        self.count: dict[str, int] = {}
        self.now = self.peak = self.arrived = 0
        self.gate, self.guard = gate, guard
        self.opened = threading.Event()
        self.released = threading.Event()  # lets held requests go (`serve`'s answer_creates)
        self.tokens: set[str] = set()
        self.traces: set[str] = set()  # X-Trace headers seen
        self.limits: set[str] = set()  # `limit` query parameters seen
        self.cookies: set[str] = set()  # Cookie headers seen

    def enter(self, request: Recorded, route: str) -> int:
        """Count the request in; its number on its route (1 for the first)."""
        with self.lock:
            self.count[route] = number = self.count.get(route, 0) + 1
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.arrived += 1
            waits = self.arrived <= self.gate
            if self.arrived >= self.gate:
                self.opened.set()
            self.tokens.add(request.headers.get("authorization", ""))
            if "x-trace" in request.headers:
                self.traces.add(request.headers["x-trace"])
            self.limits.update(request.query.get("limit", ()))
            if "cookie" in request.headers:
                self.cookies.add(request.headers["cookie"])
        if waits and not self.opened.wait(self.guard):
            self.opened.set()
        return number

    def leave(self) -> None:
        with self.lock:
            self.now -= 1

    @property
    def total(self) -> int:
        return sum(self.count.values())


def serve(server: ScriptedServer, counter: Counter, answer_creates: int | None = None) -> None:
    """GET /pets, GET /pets/{petId}, POST /pets, counted. With `answer_creates`, the creates after that
    many are held until `counter.released` is set (or its guard time passes), so a test knows that a
    request is in flight when it stops the users."""

    def counted(route: str, reply: Any) -> Any:
        def handler(request: Recorded) -> tuple:
            number = counter.enter(request, route)
            try:
                if route == "create" and answer_creates is not None and number > answer_creates:
                    counter.released.wait(counter.guard)
                return reply(request)
            finally:
                counter.leave()

        return handler

    server.route("GET", "/pets")(counted("list", lambda r: (200, [{"id": 7}, {"id": 8}])))
    server.route("GET", "/pets/{petId}")(counted("show", lambda r: (200, {"id": int(r.params["petId"])})))
    server.route("POST", "/pets")(counted("create", lambda r: (201, {"owner": r.json().get("owner")})))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(argv: list[Any], env: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> subprocess.Popen:
    """A child in the repository root, with this environment (less NO_COLOR and `drop`) and `env`."""
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR" and k not in drop}
    environment.update(env or {})
    return subprocess.Popen(
        [str(a) for a in argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=environment,
    )


def arazzo_load(*argv: Any) -> subprocess.Popen:
    return start([sys.executable, "-m", "arazzo_runner.cli", "load", *argv])


def finish(process: subprocess.Popen, timeout: float = 180) -> tuple[int, str, str]:
    """Wait for a child (killed past `timeout`, a guard against a hang, not a speed bound)."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"the process did not end: {process.args}\n{out}\n{err}") from None
    return process.returncode, out, err


def stats_rows(prefix: Path) -> dict[str, dict[str, str]]:
    """Locust's `PREFIX_stats.csv`, by row name (the Aggregated row included)."""
    with open(f"{prefix}_stats.csv", encoding="utf-8", newline="") as handle:
        return {row["Name"]: row for row in csv.DictReader(handle)}


def failures_rows(prefix: Path) -> list[dict[str, str]]:
    with open(f"{prefix}_failures.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))
