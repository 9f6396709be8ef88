"""Helpers of the fault tests (`test_faults_*.py`): run `arazzo run` against a FaultServer and check that
the run failed at the faulty step with its cause."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import CliRun, only_workflow, run_json, step, workflow
from tests.servers.faults import Behaviour, FaultServer

BODY = {"body": "$response.body"}


@dataclass
class FaultRun:
    cli: CliRun
    server: FaultServer

    @property
    def code(self) -> int:
        return self.cli.code

    @property
    def step(self) -> dict[str, Any]:
        return step(self.cli)

    @property
    def workflow(self) -> dict[str, Any]:
        return only_workflow(self.cli)


def list_step(**fields: Any) -> dict[str, Any]:
    """GET /pets (operation `listPets`), its body as output unless `outputs` says otherwise."""
    return {"stepId": "list", "operationId": "listPets", "outputs": BODY, **fields}


def retry(limit: int, after: float = 0, **fields: Any) -> list[dict[str, Any]]:
    return [{"name": "again", "type": "retry", "retryAfter": after, "retryLimit": limit, **fields}]


def fault_run(
    capsys: Any,
    write: Any,
    *behaviours: Behaviour,
    steps: tuple[dict, ...] = (),
    argv: tuple[Any, ...] = (),
    version: str = "1.0.1",
) -> FaultRun:
    """`arazzo run --format json` of one workflow (default: one `list` step) against a FaultServer
    answering GET /pets with `behaviours` in order."""
    doc = arazzo_doc(workflow("flow", *(steps or (list_step(),))), version=version)
    with FaultServer() as server:
        server.script("/pets", *behaviours)
        result = run_json(capsys, write(doc), *argv, server=server)
    return FaultRun(result, server)


def failed_at(run: FaultRun, step_id: str = "list", attempts: int = 1) -> dict[str, Any]:
    """The run failed (exit 1, status failed) at `step_id` after `attempts`; returns that step."""
    assert run.code == 1, run.cli.out
    assert run.cli.json["status"] == "failed"
    flow = run.workflow
    assert flow["status"] == "failed"
    got = next(s for s in flow["steps"] if s["stepId"] == step_id)
    assert got["status"] == "failed"
    assert got["attempts"] == attempts
    assert flow["error"] == {"stepId": step_id, "message": got["error"]}
    return got
