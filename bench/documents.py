"""The benchmark documents, generated as JSON into a folder: an OpenAPI description of the bench server and
Arazzo documents with one workflow `chain` of N steps; the same for the threaded counter server
(`threaded_server.py`, the sync-baseline benchmark `sync_baseline.py`).

Step i calls `GET /items/{n}` with `n` = the previous step's output `next` (the first step: the input
`start`), checks `$statusCode == 200` and `$response.body#/ok == true`, and outputs `next`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SOURCE = "bench"  # the source description's name: `--server bench=URL`, `servers={"bench": URL}`
WORKFLOW = "chain"
CRITERIA = [{"condition": "$statusCode == 200"}, {"condition": "$response.body#/ok == true"}]

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "bench server", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:8099"}],
    "paths": {
        "/items/{n}": {
            "get": {
                "operationId": "getItem",
                "parameters": [{"name": "n", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {
                    "200": {
                        "description": "the item and the next one's id",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        }
    },
}


def chain_document(steps: int) -> dict[str, Any]:
    workflow_steps = []
    for index in range(steps):
        previous = "$inputs.start" if index == 0 else f"$steps.s{index - 1}.outputs.next"
        workflow_steps.append(
            {
                "stepId": f"s{index}",
                "operationId": "getItem",
                "parameters": [{"name": "n", "in": "path", "value": previous}],
                "successCriteria": [
                    {"condition": "$statusCode == 200"},
                    {"condition": "$response.body#/ok == true"},
                ],
                "outputs": {"next": "$response.body#/next"},
            }
        )
    return {
        "arazzo": "1.0.1",
        "info": {"title": f"{steps}-step chain", "version": "1"},
        "sourceDescriptions": [{"name": SOURCE, "url": "./bench.openapi.json", "type": "openapi"}],
        "workflows": [
            {
                "workflowId": WORKFLOW,
                "inputs": {"type": "object", "properties": {"start": {"type": "integer", "default": 1}}},
                "steps": workflow_steps,
                "outputs": {"last": f"$steps.s{steps - 1}.outputs.next"},
            }
        ],
    }


def write_chain(folder: Path, steps: int) -> Path:
    """Write the OpenAPI description (once) and a `steps`-step chain document; returns the latter's path."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "bench.openapi.json"
    if not source.exists():
        source.write_text(json.dumps(OPENAPI, indent=1))
    path = folder / f"chain-{steps}.arazzo.json"
    path.write_text(json.dumps(chain_document(steps), indent=1))
    return path


# -- the counter chain (sync baseline, issue 17) -------------------------------------------------------

COUNTER_SOURCE = "counter"  # `--server counter=URL`
COUNTER_OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "threaded counter server", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:8098"}],
    "paths": {
        "/counter/{key}": {
            "post": {
                "operationId": "postCounter",
                "parameters": [{"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {
                    "200": {
                        "description": "the key and the next counter value",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        }
    },
}


def counter_document(steps: int) -> dict[str, Any]:
    """Step i posts to `/counter/k{n}`, `n` being the previous step's output `next` (the first step: the
    input `start`), checks `$statusCode == 200` and `$response.body#/ok == true`, and outputs `next`."""
    workflow_steps = []
    for index in range(steps):
        previous = "$inputs.start" if index == 0 else f"$steps.c{index - 1}.outputs.next"
        workflow_steps.append(
            {
                "stepId": f"c{index}",
                "operationId": "postCounter",
                "parameters": [{"name": "key", "in": "path", "value": f"k{{{previous}}}"}],
                "successCriteria": list(CRITERIA),
                "outputs": {"next": "$response.body#/next"},
            }
        )
    return {
        "arazzo": "1.0.1",
        "info": {"title": f"{steps}-step counter chain", "version": "1"},
        "sourceDescriptions": [{"name": COUNTER_SOURCE, "url": "./counter.openapi.json", "type": "openapi"}],
        "workflows": [
            {
                "workflowId": WORKFLOW,
                "inputs": {"type": "object", "properties": {"start": {"type": "integer", "default": 1}}},
                "steps": workflow_steps,
                "outputs": {"last": f"$steps.c{steps - 1}.outputs.next"},
            }
        ],
    }


def write_counter_chain(folder: Path, steps: int) -> Path:
    """Write the counter description (once) and a `steps`-step counter chain; returns the latter's path."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "counter.openapi.json"
    if not source.exists():
        source.write_text(json.dumps(COUNTER_OPENAPI, indent=1))
    path = folder / f"counter-{steps}.arazzo.json"
    path.write_text(json.dumps(counter_document(steps), indent=1))
    return path
