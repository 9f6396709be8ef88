"""The two paths of a run (executor/runtime.py): a synchronous caller's HTTP-only run blocks its thread
without an event loop, every other run is on asyncio; both are the one engine.

Which path ran is observed from the outside: whether a fresh process imported asyncio, and which of
the library's drivers was called. That they are one engine: the same workflow, run both ways against
the same server, gives the same result, the same events and the same requests. (The whole suite also
runs both ways: `pytest --run-path asyncio`.)
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

import arazzo_runner
from arazzo_runner import api
from arazzo_runner.errors import UsageError
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.eventkit import events_doc, send_step, write_events
from tests.e2e.execkit import flaky, listing, ok200, pet, retry
from tests.e2e.helpers import ROOT, cli, workflow
from tests.e2e.test_events_nats_websocket import websocket_asyncapi
from tests.servers.faults import closed_port_url
from tests.servers.scripted import ScriptedServer
from tests.timeouts import long_test


@pytest.fixture
def drives(monkeypatch) -> list[str]:
    """The names of the runtimes `run()` drove without an event loop, in order."""
    driven: list[str] = []
    real = api.drive

    def spy(coroutine: Any) -> Any:
        driven.append("blocking")
        return real(coroutine)

    monkeypatch.setattr(api, "drive", spy)
    return driven


def _flow(tmp_path: Path, *workflows: dict, version: str = "1.0.1") -> Path:
    (tmp_path / "pets.openapi.json").write_text(json.dumps(PETS_OPENAPI))
    doc = arazzo_doc(*workflows, version=version)
    doc["sourceDescriptions"][0]["url"] = "./pets.openapi.json"
    path = tmp_path / "flow.arazzo.json"
    path.write_text(json.dumps(doc))
    return path


def _imports_asyncio(code: str, cwd: Path, path: str) -> tuple[dict, bool]:
    """Run `code` (which sets `report`) in a fresh interpreter with ARAZZO_RUN_PATH=`path`."""
    script = f"import json, sys\n{code}\nprint(json.dumps([report, 'asyncio' in sys.modules]))\n"
    env = {**os.environ, "ARAZZO_RUN_PATH": path, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    report, imported = json.loads(done.stdout.strip().splitlines()[-1])
    return report, imported


@pytest.mark.parametrize(("path", "asyncio_expected"), [("auto", False), ("asyncio", True)])
def test_a_synchronous_http_run_blocks_without_importing_asyncio(tmp_path, server, path, asyncio_expected):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    flow = _flow(tmp_path, workflow("w", pet("get", successCriteria=ok200())))
    library = (
        "import arazzo_runner\n"
        f"result = arazzo_runner.run({str(flow)!r}, servers={{'pets': {server.url!r}}})\n"
        "report = result.status\n"
    )
    assert _imports_asyncio(library, tmp_path, path) == ("passed", asyncio_expected)
    command = (
        "from arazzo_runner.cli import main\n"
        f"report = main(['run', {str(flow)!r}, '--server', 'pets={server.url}', '--format', 'json'])\n"
    )
    assert _imports_asyncio(command, tmp_path, path) == (0, asyncio_expected)
    assert [r.path for r in server.requests] == ["/pets/1"] * 2


def test_which_path_each_caller_takes(tmp_path, server, drives, monkeypatch):
    monkeypatch.delenv("ARAZZO_RUN_PATH", raising=False)  # the default, whatever the session's
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    flow = _flow(tmp_path, workflow("w", pet("get", successCriteria=ok200())))
    servers = {"pets": server.url}
    assert arazzo_runner.run(flow, servers=servers).ok
    assert drives == ["blocking"]  # run(), an HTTP-only run with its own client: blocking

    assert asyncio.run(arazzo_runner.arun(flow, servers=servers)).ok
    assert drives == ["blocking"]  # arun: asyncio

    async def with_own_client() -> Any:
        async with httpx.AsyncClient() as client:
            return await arazzo_runner.arun(flow, servers=servers, client=client)

    assert asyncio.run(with_own_client()).ok
    monkeypatch.setenv("ARAZZO_RUN_PATH", "asyncio")
    assert arazzo_runner.run(flow, servers=servers).ok
    assert drives == ["blocking"]  # sent to asyncio by the environment
    assert len(server.requests) == 4


def test_a_run_with_an_asyncapi_step_takes_asyncio(tmp_path, drives, monkeypatch):
    """A message step's transports are asyncio clients: run() gives such a run an event loop. (The
    WebSocket broker is a closed port: the step fails to connect, which is not what is tested.)"""
    monkeypatch.delenv("ARAZZO_RUN_PATH", raising=False)
    port = int(closed_port_url().rsplit(":", 1)[1])
    path = write_events(tmp_path, events_doc(send_step("place")), websocket_asyncapi(port))
    result = arazzo_runner.run(str(path), inputs={"requestId": "r-1"})
    assert result.status == "failed"
    assert "place" in json.dumps(result.to_dict()["workflows"][0]["error"])
    assert drives == []


def test_an_unknown_run_path_is_a_usage_error(tmp_path, server, monkeypatch):
    flow = _flow(tmp_path, workflow("w", pet("get", successCriteria=ok200())))
    monkeypatch.setenv("ARAZZO_RUN_PATH", "sync")
    with pytest.raises(UsageError, match="ARAZZO_RUN_PATH='sync': expected 'auto'"):
        arazzo_runner.run(flow, servers={"pets": server.url})
    assert server.requests == []


def _stable(value: Any) -> Any:
    """A result without what the clock decides (durations)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k != "durationMs"}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _events(seen: list[Any]) -> list[tuple[str, Any]]:
    return [(type(event).__name__, getattr(event, "step_id", None)) for event in seen]


def _script(server: ScriptedServer) -> None:
    server.reply("GET", "/pets", (200, [{"id": 7}, {"id": 8}], {"Set-Cookie": "sid=s1; Path=/"}))
    server.reply("GET", "/flaky", (503, {"busy": True}, {"Retry-After": "0"}), (503, {}), (200, {"ok": 1}))
    server.reply("GET", "/pets/{petId}", (200, {"id": 7, "name": "Rex"}), (404, {"error": "gone"}))


def test_both_paths_give_the_same_result_events_and_requests(tmp_path, drives, monkeypatch):
    """Retries after a 503 (with Retry-After), outputs feeding the next step, a nested workflow that
    fails on the server's answer, a secret input sent in a header (masked), a cookie sent back."""
    child = workflow(
        "child",
        pet("again", "$inputs.petId", successCriteria=ok200(), outputs={"status": "$statusCode"}),
        inputs={"type": "object", "properties": {"petId": {"type": "integer"}}},
        outputs={"status": "$steps.again.outputs.status"},
    )
    main = workflow(
        "main",
        listing("list", successCriteria=ok200(), outputs={"first": "$response.body#/0/id"}),
        flaky("flaky", successCriteria=ok200(), onFailure=[retry(retryLimit=3)]),
        pet(
            "get",
            "$steps.list.outputs.first",
            successCriteria=ok200(),
            outputs={"name": "$response.body#/name"},
        ),
        {
            "stepId": "nested",
            "workflowId": "child",
            "parameters": [{"name": "petId", "value": "$steps.list.outputs.first"}],
        },
        inputs={"type": "object", "properties": {"token": {"type": "string", "format": "password"}}},
        outputs={"name": "$steps.get.outputs.name"},
    )
    main["steps"][2]["parameters"].append({"name": "X-Trace", "in": "header", "value": "$inputs.token"})
    flow = _flow(tmp_path, main, child)

    def once(path: str) -> tuple[Any, list, list]:
        monkeypatch.setenv("ARAZZO_RUN_PATH", path)
        seen: list[Any] = []
        with ScriptedServer() as server:
            _script(server)
            result = arazzo_runner.run(
                flow, "main", {"token": "t0ps3cret"}, servers={"pets": server.url}, on_event=seen.append
            )
        sent = [
            (r.method, r.path, r.query, r.body, {k: v for k, v in r.headers.items() if k != "host"})
            for r in server.requests
        ]
        text = json.dumps(_stable(result.to_dict())).replace(server.url, "SERVER")
        return json.loads(text), _events(seen), sent

    blocking = once("auto")
    on_asyncio = once("asyncio")
    assert drives == ["blocking"]
    assert blocking[0] == on_asyncio[0]
    assert blocking[1] == on_asyncio[1]
    result, events, sent = blocking
    assert sent == on_asyncio[2]
    steps = result["workflows"][0]["steps"]
    assert [(s["stepId"], s["status"], s["attempts"]) for s in steps] == [
        ("list", "passed", 1),
        ("flaky", "passed", 3),
        ("get", "passed", 1),
        ("nested", "failed", 1),
    ]
    assert result["workflows"][0]["error"]["message"].endswith("$statusCode == 200: got 404")
    assert "t0ps3cret" not in json.dumps(result)
    assert [(method, path) for method, path, *_ in sent] == [
        ("GET", "/pets"),
        ("GET", "/flaky"),
        ("GET", "/flaky"),
        ("GET", "/flaky"),
        ("GET", "/pets/7"),
        ("GET", "/pets/7"),
    ]
    assert sent[4][4]["x-trace"] == "t0ps3cret"
    assert sent[5][4]["cookie"] == "sid=s1"
    assert ("StepRetrying", "flaky") in events


def test_arazzo_run_freezes_the_collector_during_the_run_only(capsys, tmp_path, server, monkeypatch):
    """What exists before the run stays out of its garbage collections, and is given back after."""
    import gc

    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    flow = _flow(tmp_path, workflow("w", pet("get", successCriteria=ok200())))
    frozen: list[int] = []
    real = api.run

    def spy(*args: Any, **kwargs: Any) -> Any:
        frozen.append(gc.get_freeze_count())
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "run", spy)
    before = gc.get_freeze_count()
    result = cli(capsys, "run", flow, "--server", f"pets={server.url}")
    assert result.code == 0
    assert frozen and frozen[0] > before
    assert gc.get_freeze_count() == before


# The key end-to-end files again, every run on asyncio (what the default path does not exercise: the
# event loop's drivers, its cancellation and timeouts). A child pytest, so this suite's own `--run-path`
# and state stay as they are; only when this session runs the default path (else it is that already).
ASYNCIO_AGAIN = (
    "tests/e2e/test_cli_run.py",
    "tests/e2e/test_exec_runs.py",
    "tests/e2e/test_exec_retry.py",
    "tests/e2e/test_exec_actions.py",
    "tests/e2e/test_faults_bounds.py",
    "tests/e2e/test_faults_network.py",
    "tests/e2e/test_http_faults.py",
    "tests/e2e/test_http_cookies.py",
    "tests/e2e/test_http_tls.py",
    "tests/e2e/test_http_mutual_tls.py",
    "tests/e2e/test_http_sse.py",
    "tests/e2e/test_credentials_token_url.py",
    "tests/e2e/test_http_security.py",
)


@long_test
def test_the_key_end_to_end_files_pass_on_asyncio_too(pytestconfig) -> None:
    if pytestconfig.getoption("--run-path") == "asyncio":
        pytest.skip("this session runs every test on asyncio already")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--run-path",
            "asyncio",
            *ASYNCIO_AGAIN,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert proc.stdout.count(".") > 100, proc.stdout[-600:]  # exit 0 with the tests run, not none (exit 5)
