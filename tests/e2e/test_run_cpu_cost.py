"""What `arazzo run` costs per step, in CPU time, against the script a user would write instead (issue 28).

Both run in this process against the same real local server, alternately, after one warm-up each: the
command (`cli.main`, the document loaded, its validation cache consulted, the plan compiled, the steps
run and printed) and a loop with one `httpx.Client` doing the same requests and checks. Each side's CPU
time is that of this thread (`time.thread_time`): the server's threads are not counted, and neither is
the time the machine gives to other processes. The script's client gets a TLS context made beforehand:
the engine shares one per process and, over plain http, never reads the trust store, so the script's
~20 ms of reading it would hide the steps' cost. The bound is generous (~1.2-1.4x here); it is there to
catch per-step work that grows several-fold, not to measure (`bench/sync_baseline.py` measures).
"""

from __future__ import annotations

import contextlib
import io
import json
import statistics
import time
from pathlib import Path

import httpx

from arazzo_runner.cli import main

STEPS = 60
ROUNDS = 5
BOUND = 2.5  # engine / script CPU time of the whole chain

COUNTER_OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "counter", "version": "1"},
    "paths": {
        "/counter/{key}": {
            "post": {
                "operationId": "postCounter",
                "parameters": [{"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "the next value"}},
            }
        }
    },
}


def _chain(steps: int) -> dict:
    """Step i posts to `/counter/k{n}` with `n` the previous step's output `next`, checks two criteria."""
    return {
        "arazzo": "1.0.1",
        "info": {"title": "chain", "version": "1"},
        "sourceDescriptions": [{"name": "counter", "url": "./counter.openapi.json", "type": "openapi"}],
        "workflows": [
            {
                "workflowId": "chain",
                "inputs": {"type": "object", "properties": {"start": {"type": "integer", "default": 1}}},
                "steps": [
                    {
                        "stepId": f"c{i}",
                        "operationId": "postCounter",
                        "parameters": [
                            {
                                "name": "key",
                                "in": "path",
                                "value": "k{$inputs.start}"
                                if i == 0
                                else f"k{{$steps.c{i - 1}.outputs.next}}",
                            }
                        ],
                        "successCriteria": [
                            {"condition": "$statusCode == 200"},
                            {"condition": "$response.body#/ok == true"},
                        ],
                        "outputs": {"next": "$response.body#/next"},
                    }
                    for i in range(steps)
                ],
                "outputs": {"last": f"$steps.c{steps - 1}.outputs.next"},
            }
        ],
    }


def _counter(server) -> None:
    @server.route("POST", "/counter/{key}")
    def answer(request):
        key = request.params["key"]
        return 200, {"key": key, "next": int(key[1:]) + 1, "ok": True}


def _script(url: str, steps: int, tls: object) -> int:
    with httpx.Client(verify=tls) as client:  # a TLS context made once, as the engine shares one
        n = 1
        for _ in range(steps):
            response = client.post(f"{url}/counter/k{n}")
            body = response.json()
            assert response.status_code == 200 and body["ok"] is True
            n = body["next"]
    return n


def _command(path: Path, url: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["run", str(path), "--server", f"counter={url}", "--no-progress"])
    assert code == 0, out.getvalue()
    return out.getvalue()


def _cpu(call) -> float:
    started = time.thread_time()
    call()
    return time.thread_time() - started


def test_a_chain_costs_at_most_a_small_multiple_of_the_plain_httpx_script(tmp_path, server, monkeypatch):
    monkeypatch.setenv(
        "ARAZZO_CACHE_DIR", str(tmp_path / "cache")
    )  # validated once, as a document run before
    _counter(server)
    (tmp_path / "counter.openapi.json").write_text(json.dumps(COUNTER_OPENAPI))
    path = tmp_path / "chain.arazzo.json"
    path.write_text(json.dumps(_chain(STEPS)))
    printed = _command(path, server.url)  # warm-up: imports, the validation cache filled
    assert f"last: {STEPS + 1}" in printed and "1 of 1 workflows passed" in printed
    tls = httpx.create_ssl_context()  # (a plain-http run of the engine never reads the trust store)
    assert _script(server.url, STEPS, tls) == STEPS + 1
    engine, script = [], []
    for round_ in range(ROUNDS):
        sides = [
            (engine, lambda: _command(path, server.url)),
            (script, lambda: _script(server.url, STEPS, tls)),
        ]
        for times, call in sides if round_ % 2 == 0 else reversed(sides):
            times.append(_cpu(call))
    assert len(server.requests) == 2 * STEPS * (ROUNDS + 1)  # every step of every run was sent
    ours, theirs = statistics.median(engine), statistics.median(script)
    assert ours / theirs <= BOUND, f"engine {ours * 1e3:.1f} ms of CPU, script {theirs * 1e3:.1f} ms"
