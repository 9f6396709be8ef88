"""Small helpers shared by the execution-semantics tests (`test_exec_*.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import arazzo_runner
from tests.e2e.conftest import arazzo_doc


def pet(step_id: str, pet_id: Any = "1", **fields: Any) -> dict:
    """A `getPet` step (GET /pets/{petId})."""
    return {
        "stepId": step_id,
        "operationId": "getPet",
        "parameters": [{"name": "petId", "in": "path", "value": pet_id}],
        **fields,
    }


def listing(step_id: str, **fields: Any) -> dict:
    """A `listPets` step (GET /pets)."""
    return {"stepId": step_id, "operationId": "listPets", **fields}


def flaky(step_id: str, **fields: Any) -> dict:
    """A `flaky` step (GET /flaky)."""
    return {"stepId": step_id, "operationId": "flaky", **fields}


def ok200() -> list[dict]:
    return [{"condition": "$statusCode == 200"}]


def retry(name: str = "again", **fields: Any) -> dict:
    return {"name": name, "type": "retry", "retryAfter": 0, **fields}


def goto(name: str, **fields: Any) -> dict:
    return {"name": name, "type": "goto", **fields}


def end(name: str = "stop", **fields: Any) -> dict:
    return {"name": name, "type": "end", **fields}


def when(*conditions: str) -> list[dict]:
    return [{"condition": c} for c in conditions]


def execute(
    write: Any,
    server: Any,
    *workflows: dict,
    components: dict | None = None,
    version: str = "1.0.1",
    workflow: Any = None,
    inputs: dict | None = None,
    **options: Any,
) -> dict:
    """Write the document, run it against `server` (source `pets`) and return `RunResult.to_dict()`."""
    path: Path = write(arazzo_doc(*workflows, components=components, version=version))
    result = arazzo_runner.run(path, workflow, inputs or {}, servers={"pets": server.url}, **options)
    return result.to_dict()


def only(result: dict) -> dict:
    """The single workflow of a run."""
    assert len(result["workflows"]) == 1, result
    return result["workflows"][0]


def trail(workflow: dict) -> list[tuple[str, str, int]]:
    """(stepId, status, attempts) of each executed step, in execution order."""
    return [(s["stepId"], s["status"], s["attempts"]) for s in workflow["steps"]]


def hits(server: Any) -> list[str]:
    """'METHOD /path' of every request the server received, in order."""
    return [f"{r.method} {r.path}" for r in server.requests]
