"""Benchmark: what the outbound guard (`arazzo_runner/http/outbound.py`) adds to a 200-step run (not a test).

    python bench/guard.py [--runs N] [--steps 200] [--json PATH]

Two sources on two origins over one `httpx.MockTransport` (no network): `bench` (secured by a bearer
scheme, its credential given as `--auth` would) and `other` (no security). "one origin": every step calls
`GET /items/{n}` on `bench` (the credential is added, bound to its origin: the usual run, where the
guard finds nothing foreign and stops). "two origins": odd steps call `POST /items/{n}` on `other` with a
4 KB JSON body instead, so every odd request is searched for the credential in every form (the guard's
worst case short of a hit). Each run is timed with the guard and
with the guard switched off (`OutboundGuard.foreign` returning None), interleaved; median of N runs:
(guarded - unguarded) / steps is what the guard adds per step.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import chain_main, median, ms, us

import arazzo_runner
from arazzo_runner.executor.options import RunOptions
from arazzo_runner.http import outbound

TOKEN = "bench-token-9f3c2a7e51d04b8c"
JSON = {"content-type": "application/json"}


def _openapi(name: str, secured: bool) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": f"{name}Item",
        "parameters": [{"name": "n", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"200": {"description": "ok"}},
    }
    if secured:
        operation["security"] = [{"bt": []}]
    else:
        operation["requestBody"] = {"content": {"application/json": {"schema": {}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": name, "version": "1"},
        "servers": [{"url": f"http://{name}.invalid"}],
        "paths": {"/items/{n}": {"post" if not secured else "get": operation}},
        "components": {"securitySchemes": {"bt": {"type": "http", "scheme": "bearer"}}} if secured else {},
    }


def write_documents(folder: Path, steps: int, body_kb: int, alternate: bool = True) -> Path:
    (folder / "bench.json").write_text(json.dumps(_openapi("bench", True)))
    (folder / "other.json").write_text(json.dumps(_openapi("other", False)))
    payload = {"filler": "x" * (body_kb * 1024), "n": "$inputs.start"}
    chain = []
    for index in range(steps):
        previous = "$inputs.start" if index == 0 else f"$steps.s{index - 1}.outputs.next"
        source = "other" if alternate and index % 2 else "bench"
        step: dict[str, Any] = {
            "stepId": f"s{index}",
            "operationId": f"$sourceDescriptions.{source}.{source}Item",
            "parameters": [{"name": "n", "in": "path", "value": previous}],
            "successCriteria": [{"condition": "$statusCode == 200"}],
            "outputs": {"next": "$response.body#/next"},
        }
        if source == "other":
            step["requestBody"] = {"contentType": "application/json", "payload": payload}
        chain.append(step)
    document = {
        "arazzo": "1.0.1",
        "info": {"title": "guard bench", "version": "1"},
        "sourceDescriptions": [
            {"name": "bench", "url": "./bench.json", "type": "openapi"},
            {"name": "other", "url": "./other.json", "type": "openapi"},
        ],
        "workflows": [
            {
                "workflowId": "chain",
                "inputs": {"type": "object", "properties": {"start": {"type": "integer", "default": 1}}},
                "steps": chain,
            }
        ],
    }
    path = folder / f"guard-{alternate}.arazzo.json"
    path.write_text(json.dumps(document))
    return path


def handler(request: httpx.Request) -> httpx.Response:
    n = int(request.url.path.rsplit("/", 1)[1])
    return httpx.Response(200, headers=JSON, content=b'{"next": %d}' % (n + 1))


async def one_run(document: Any, client: httpx.AsyncClient) -> float:
    options = RunOptions(client=client, environ={}, auth={"bench:bt": TOKEN})
    started = time.perf_counter()
    result = await arazzo_runner.arun(document, None, {}, options=options)
    elapsed = time.perf_counter() - started
    assert result.status == "passed", result.to_dict()
    return elapsed


async def measure(document: Any, steps: int, runs: int) -> dict[str, Any]:
    guarded = outbound.OutboundGuard.foreign
    times: dict[str, list[float]] = {"guarded": [], "unguarded": []}
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        await one_run(document, client)  # warm-up
        for _ in range(runs):
            for label in times:
                outbound.OutboundGuard.foreign = guarded if label == "guarded" else (lambda *a: None)
                try:
                    times[label].append(await one_run(document, client))
                finally:
                    outbound.OutboundGuard.foreign = guarded
    medians = {label: median(values) for label, values in times.items()}
    return {"medians": medians, "per_step": (medians["guarded"] - medians["unguarded"]) / steps}


def run(runs: int, steps: int = 200, body_kb: int = 4) -> dict[str, Any]:
    result: dict[str, Any] = {"runs": runs, "steps": steps, "body_kb": body_kb}
    with tempfile.TemporaryDirectory() as folder:
        for name, alternate in (("one origin", False), ("two origins", True)):
            path = write_documents(Path(folder), steps, body_kb, alternate)
            result[name] = asyncio.run(measure(arazzo_runner.load(path), steps, runs))
    return result


def report(result: dict[str, Any]) -> None:
    steps = result["steps"]
    print(f"outbound guard: {steps}-step runs, median of {result['runs']} runs")
    for name in ("one origin", "two origins"):
        medians = result[name]["medians"]
        print(f"  {name}:")
        for label, value in medians.items():
            print(f"    {label:<10} {ms(value):>9}  ({value / steps * 1e6:.0f} us/step)")
        ratio = medians["guarded"] / medians["unguarded"]
        print(f"    the guard adds {us(result[name]['per_step'])} per step ({(ratio - 1) * 100:+.1f} %)")


def main() -> None:
    chain_main(__doc__.splitlines()[0], run, report)


if __name__ == "__main__":
    main()
