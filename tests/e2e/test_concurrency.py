"""One loaded document, 200 runs at once: 100 coroutines (`asyncio.gather` over `arun`) and 100 threads
calling the synchronous `run`, against one local server. The server holds every run's first request
until all 200 are in flight together (counted there), so the runs truly overlap. Each run has its own
inputs, which flow through two steps (a request body, then a path parameter and a header) into its
outputs: every result must be exactly its own, the workspace compiles the workflow once, and
module-level state is left unchanged."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import arazzo_runner
from arazzo_runner.workspace import plan
from tests.e2e.conftest import arazzo_doc
from tests.servers.scripted import Recorded, ScriptedServer
from tests.unit.test_module_state import CACHES, module_state

RUNS = 200
WORKFLOW = {
    "workflowId": "pair",
    "inputs": {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "tag": {"type": "string"}},
        "required": ["n", "tag"],
    },
    "steps": [
        {
            "stepId": "create",
            "operationId": "createPet",
            "requestBody": {"payload": {"n": "$inputs.n", "tag": "{$inputs.tag}-body"}},
            "successCriteria": [{"condition": "$statusCode == 201"}],
            "outputs": {"id": "$response.body#/id", "echo": "$response.body#/tag"},
        },
        {
            "stepId": "fetch",
            "operationId": "getPet",
            "parameters": [
                {"name": "petId", "in": "path", "value": "$steps.create.outputs.id"},
                {"name": "X-Trace", "in": "header", "value": "$inputs.tag"},
            ],
            "successCriteria": [{"condition": "$response.body#/trace == $inputs.tag"}],
            "outputs": {"name": "$response.body#/name", "trace": "$response.body#/trace"},
        },
    ],
    "outputs": {
        "id": "$steps.create.outputs.id",
        "echo": "$steps.create.outputs.echo",
        "name": "$steps.fetch.outputs.name",
        "trace": "$steps.fetch.outputs.trace",
    },
}


def pet_id(n: int) -> int:
    return n * 7 + 1


def expected_outputs(n: int) -> dict[str, Any]:
    return {"id": pet_id(n), "echo": f"t{n}-body", "name": f"pet-{pet_id(n)}", "trace": f"t{n}"}


class InFlight:
    """Requests being handled right now, and the most at once; `gather()` holds each request until
    `parties` of them are in flight together."""

    def __init__(self, parties: int) -> None:
        self.lock = threading.Lock()
        self.now = self.peak = 0
        # A deadlock guard only: if the runs could not all be in flight at once, the handlers give up
        # (BrokenBarrierError), their runs fail and the test with them.
        self.barrier = threading.Barrier(parties, timeout=120)

    def gather(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            self.barrier.wait()
        finally:
            with self.lock:
                self.now -= 1


def serve(server: ScriptedServer, in_flight: InFlight) -> None:
    @server.route("POST", "/pets")
    def create(request: Recorded) -> tuple:
        in_flight.gather()  # every run's first request waits here for all the others
        body = request.json()
        return 201, {"id": pet_id(body["n"]), "tag": body["tag"]}

    @server.route("GET", "/pets/{petId}")
    def fetch(request: Recorded) -> tuple:
        time.sleep(random.random() / 500)
        return 200, {"name": f"pet-{request.params['petId']}", "trace": request.headers.get("x-trace")}


def snapshot() -> dict[str, Any]:
    """Module-level constant tables (not the documented caches), copied for a before/after comparison."""
    return {
        name: copy.deepcopy(value) if isinstance(value, (dict, list, set)) else None
        for name, value in module_state().items()
        if name not in CACHES
    }


@pytest.fixture
def counted_compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = plan.compile_workflow

    def counting(document: Any, workflow: Any) -> Any:
        calls.append(workflow.workflow_id)
        return original(document, workflow)

    monkeypatch.setattr(plan, "compile_workflow", counting)
    return calls


def test_200_concurrent_runs_of_one_document_are_independent(write, server, counted_compiles) -> None:
    in_flight = InFlight(RUNS)
    serve(server, in_flight)
    workspace = arazzo_runner.load(write(arazzo_doc(WORKFLOW)))
    before = snapshot()

    def threaded(n: int) -> Any:
        return arazzo_runner.run(workspace, "pair", {"n": n, "tag": f"t{n}"}, servers={"pets": server.url})

    async def everything() -> list[Any]:
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(max_workers=RUNS // 2) as pool:  # a thread per synchronous run
            in_threads = [loop.run_in_executor(pool, threaded, n) for n in range(RUNS // 2, RUNS)]
            in_tasks = [
                arazzo_runner.arun(workspace, "pair", {"n": n, "tag": f"t{n}"}, servers={"pets": server.url})
                for n in range(RUNS // 2)
            ]
            return await asyncio.gather(*in_tasks, *in_threads)

    results = asyncio.run(everything())

    assert in_flight.peak == RUNS  # all 200 runs had a request in flight at the same moment
    assert len(results) == RUNS
    step_lists = set()
    for n, result in enumerate(results):
        [flow] = result.workflows
        assert (result.status, flow.status) == ("passed", "passed"), (n, result.to_dict())
        assert flow.outputs == expected_outputs(n), n
        assert [(s.step_id, s.status, s.attempts) for s in flow.steps] == [
            ("create", "passed", 1),
            ("fetch", "passed", 1),
        ]
        create, fetch = flow.steps
        assert json.loads(create.exchanges[-1].request_body) == {"n": n, "tag": f"t{n}-body"}
        assert fetch.url == f"{server.url}/pets/{pet_id(n)}"
        assert ("X-Trace", f"t{n}") in fetch.exchanges[-1].request_headers
        step_lists.add(id(flow.steps))
    assert len(step_lists) == RUNS  # no shared step list between results

    # what the server saw: each run's requests carry that run's values, and nothing else
    bodies = sorted(r.json()["n"] for r in server.requests if r.method == "POST")
    assert bodies == list(range(RUNS))
    for request in (r for r in server.requests if r.method == "GET"):
        n = int(request.headers["x-trace"][1:])
        assert request.path == f"/pets/{pet_id(n)}"
    assert len(server.requests) == 2 * RUNS

    assert counted_compiles == ["pair"]  # compiled once, shared by all 200 runs
    only = workspace.document.workflows[0]
    assert workspace.compiled(only) is workspace.compiled(only)
    assert snapshot() == before  # no constant table picked up run data
