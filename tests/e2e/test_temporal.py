"""`arazzo run --temporal` against a real Temporal dev server and real `arazzo worker` processes: rows
spread over two workers, each step sent once, the same results as a local run; a retry's wait held as
a durable timer; a worker killed inside a step."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.counter_flows import API, write_flow
from tests.e2e.counter_flows import step as _step
from tests.e2e.helpers import ROOT, subprocess_cli
from tests.e2e.temporalkit import HANG_GUARD, Worker, dev_server, history_events, workers, workflow_ids
from tests.servers.scripted import ScriptedServer

pytestmark = pytest.mark.timeout(HANG_GUARD * 2)


@pytest.fixture(scope="module")
def temporal_server(tmp_path_factory):
    yield from dev_server(tmp_path_factory)


def _document(tmp_path: Path, steps: list[dict[str, Any]], outputs: dict[str, str]) -> Path:
    return write_flow(tmp_path, steps, outputs, "temporal")


def _three_steps(tmp_path: Path) -> Path:
    steps = [
        _step("first", "one", outputs={"token": "$response.body#/token"}),
        _step(
            "second",
            "two",
            requestBody={"payload": {"token": "$steps.first.outputs.token"}},
            outputs={"echo": "$response.body#/echo"},
        ),
        _step("third", "three", outputs={"id": "$response.body#/id"}),
    ]
    outputs = {"token": "$steps.first.outputs.token", "echo": "$steps.second.outputs.echo",
               "id": "$steps.third.outputs.id"}  # fmt: skip
    return _document(tmp_path, steps, outputs)


def _server(together: threading.Barrier | None = None, before_two: Any = None) -> ScriptedServer:
    """Answers the three operations; with `together`, the first two requests are each held until both
    have arrived (two exchanges in flight at once)."""
    server = ScriptedServer()
    seen = [0]
    lock = threading.Lock()

    def held() -> None:
        with lock:
            seen[0] += 1
            mine = seen[0]
        if together is not None and mine <= 2:
            together.wait(HANG_GUARD)

    @server.route("POST", "/one/{id}")
    def one(request):
        held()
        return 200, {"token": f"t{request.params['id']}"}

    @server.route("POST", "/two/{id}")
    def two(request):
        if before_two is not None:
            before_two()
        return 200, {"echo": request.json()["token"]}

    @server.route("POST", "/three/{id}")
    def three(request):
        return 200, {"id": int(request.params["id"])}

    return server


_TIMES = ("durationMs", "startedAt", "duration", "started", "time", "elapsedMs")


def _comparable(document: dict[str, Any]) -> Any:
    """A report without what differs between two runs of the same exchanges (times, durations)."""
    if isinstance(document, dict):
        return {k: _comparable(v) for k, v in document.items() if k not in _TIMES}
    if isinstance(document, list):
        return [_comparable(v) for v in document]
    return document


def test_ten_rows_on_two_workers_each_step_sent_once_and_the_local_result(tmp_path, temporal_server):
    doc = _three_steps(tmp_path)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"id": {i}}}\n' for i in range(1, 11)))
    common = ("run", doc, "--inputs-file", rows, "--format", "json")
    with _server() as server:
        local_url = server.url
        local = subprocess_cli(*common, "--server", f"api={server.url}", "--concurrency", "10",
                               timeout=HANG_GUARD)  # fmt: skip
    assert local.code == 0, local.err
    together = threading.Barrier(2)
    queue = "rows"
    with _server(together) as server, workers(temporal_server.address, queue, 2, {}, "--max-exchanges", "1"):
        # one exchange at a time each: the first two held until both are in flight are on both workers
        remote = subprocess_cli(*common, "--server", f"api={server.url}", "--concurrency", "10",
                                "--temporal", temporal_server.address, "--task-queue", queue,
                                "--junit", tmp_path / "junit.xml", timeout=HANG_GUARD)  # fmt: skip
        sent = sorted(r.path for r in server.requests)
        remote_url = server.url
    assert remote.code == 0, remote.err
    assert sent == sorted(f"/{op}/{i}" for op in ("one", "two", "three") for i in range(1, 11))
    same = json.loads(remote.out.replace(remote_url, local_url))  # the two servers' ports aside
    assert _comparable(same) == _comparable(local.json)
    assert [r["result"]["workflows"][0]["outputs"] for r in remote.json["rows"]] == [
        {"token": f"t{i}", "echo": f"t{i}", "id": i} for i in range(1, 11)
    ]
    identities = set()
    for workflow_id in workflow_ids(temporal_server.address, queue):
        for name, event in history_events(temporal_server.address, workflow_id):
            if name == "EVENT_TYPE_ACTIVITY_TASK_STARTED":
                identities.add(event.activity_task_started_event_attributes.identity)
    assert len(identities) == 2  # both workers sent exchanges
    assert (tmp_path / "junit.xml").read_text().count("<testcase") == 30


def test_a_retry_wait_is_a_durable_timer_in_the_history(tmp_path, temporal_server):
    steps = [
        _step(
            "first",
            "one",
            successCriteria=[{"condition": "$statusCode == 200"}],
            onFailure=[{"name": "again", "type": "retry", "retryAfter": 1, "retryLimit": 2}],
            outputs={"token": "$response.body#/token"},
        )
    ]
    doc = _document(tmp_path, steps, {"token": "$steps.first.outputs.token"})
    server = ScriptedServer()
    answers = iter([(503, {"busy": True}), (200, {"token": "late"})])
    server.route("POST", "/one/{id}")(lambda request: next(answers))
    queue = "timers"
    with server, workers(temporal_server.address, queue, 1):
        remote = subprocess_cli("run", doc, "--input", "id=3", "--server", f"api={server.url}",
                                "--format", "json", "--temporal", temporal_server.address,
                                "--task-queue", queue, timeout=HANG_GUARD)  # fmt: skip
        sent = [r.path for r in server.requests]
    assert remote.code == 0, remote.err
    assert sent == ["/one/3", "/one/3"]
    workflow = remote.json["workflows"][0]
    assert workflow["outputs"] == {"token": "late"}
    assert workflow["steps"][0]["attempts"] == 2
    (execution,) = workflow_ids(temporal_server.address, queue)
    history = history_events(temporal_server.address, execution)
    events = [name for name, _ in history]
    timers = [e.timer_started_event_attributes for n, e in history if n == "EVENT_TYPE_TIMER_STARTED"]
    assert [t.start_to_fire_timeout.seconds for t in timers] == [1]  # the document's retryAfter
    started = [n for n in events if n in ("EVENT_TYPE_ACTIVITY_TASK_SCHEDULED", "EVENT_TYPE_TIMER_STARTED")]
    # the exchange, the wait held by the service as a timer, the exchange again
    assert started == ["EVENT_TYPE_ACTIVITY_TASK_SCHEDULED", "EVENT_TYPE_TIMER_STARTED",
                       "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"]  # fmt: skip
    assert "EVENT_TYPE_TIMER_FIRED" in events


@pytest.mark.parametrize("rated", [False, True], ids=["unrated", "rated"])
def test_a_worker_killed_inside_a_step_another_finishes_the_run_earlier_steps_not_sent_again(
    tmp_path, temporal_server, rated
):
    # rated: the run's exchanges go to a rated task queue (`--rate`); the new worker has run none of the
    # run's workflow (it waits on the exchange), so it finds that queue in the executions' memo
    doc = _three_steps(tmp_path)
    arrived, released = threading.Event(), threading.Event()

    def hold() -> None:
        if not released.is_set():  # the first send: held until its worker is dead
            arrived.set()
            assert released.wait(HANG_GUARD)

    server = _server(before_two=hold)

    queue = f"killed-{rated}"
    argv = ["run", doc, "--input", "id=7", "--server", f"api={server.url}", "--format", "json",
            "--temporal", temporal_server.address, "--task-queue", queue,
            "--idempotency-header", "Idempotency-Key"]  # fmt: skip
    if rated:
        argv += ["--rate", f"{server.url.split('//')[1].split('/')[0]}=50/s"]
    with server:
        first = Worker(temporal_server.address, queue)
        second = None
        try:
            first.wait_ready()
            client = subprocess.Popen(
                [sys.executable, "-m", "arazzo_runner.cli", *map(str, argv)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
            while not arrived.wait(0.05):
                assert client.poll() is None, client.communicate()
            first.kill()  # SIGKILL inside step two: its exchange in flight, the workflow in its cache
            released.set()
            second = Worker(temporal_server.address, queue)
            second.wait_ready()
            out, err = client.communicate(timeout=HANG_GUARD)
        finally:
            released.set()
            first.kill()
            if second is not None:
                second.stop()
        sent = [r.path for r in server.requests]
        keys = [r.headers.get("idempotency-key") for r in server.requests]
    assert client.returncode == 0, err
    assert sent == ["/one/7", "/two/7", "/two/7", "/three/7"]  # step one once; two again; three once
    assert keys[1] == keys[2] and len(set(keys)) == 3 and None not in keys  # the resend: the same key
    workflow = json.loads(out)["workflows"][0]
    assert workflow["outputs"] == {"token": "t7", "echo": "t7", "id": 7}
    assert [s["attempts"] for s in workflow["steps"]] == [1, 1, 1]


SECRET = "s3cret-of-the-worker"


def _secured(tmp_path: Path) -> Path:
    api = json.loads(json.dumps(API))
    api["components"] = {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}}
    api["security"] = [{"key": []}]
    doc = _document(tmp_path, [_step("first", "one", outputs={"token": "$response.body#/token"})],
                    {"token": "$steps.first.outputs.token"})  # fmt: skip
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(api))
    return doc


def _raw_history(address: str, queue: str) -> bytes:
    """Every execution's history of `queue` as the service holds it (read without the codec)."""
    import asyncio

    from temporalio.client import Client

    async def fetch() -> bytes:
        client = await Client.connect(address)
        raw = b""
        async for execution in client.list_workflows(f"TaskQueue = '{queue}'"):
            history = await client.get_workflow_handle(execution.id).fetch_history()
            raw += history.to_json().encode() + b"".join(e.SerializeToString() for e in history.events)
        return raw

    return asyncio.run(fetch())


def test_credentials_come_from_the_workers_and_never_enter_the_history_in_clear(tmp_path, temporal_server):
    doc = _secured(tmp_path)
    worker_env = {"ARAZZO_AUTH_KEY_API_KEY": SECRET}
    server = _server()
    argv = ["run", doc, "--input", "id=5", "--server", f"api={server.url}", "--format", "json",
            "--temporal", temporal_server.address]  # fmt: skip
    with server:
        with workers(temporal_server.address, "clear", 1, worker_env):  # no key: such a request is not sent
            refused = subprocess_cli(*argv, "--task-queue", "clear", timeout=HANG_GUARD)
        assert server.requests == []
        key = {"ARAZZO_TEMPORAL_KEY": "shared by the client and the workers"}
        with workers(temporal_server.address, "sealed", 1, {**worker_env, **key}):
            sealed = subprocess_cli(*argv, "--task-queue", "sealed", timeout=HANG_GUARD, env=key)
        sent = [r.headers.get("x-key") for r in server.requests]
    assert refused.code == 1, refused.err
    error = refused.json["workflows"][0]["steps"][0]["error"]
    assert "would enter Temporal's history in clear; set ARAZZO_TEMPORAL_KEY" in error
    assert sealed.code == 0, sealed.err
    assert sent == [SECRET]  # the worker's own credential, the client had none
    assert SECRET not in sealed.out
    for queue in ("clear", "sealed"):
        history = _raw_history(temporal_server.address, queue)
        assert history and SECRET.encode() not in history
    assert b'"token"' not in _raw_history(temporal_server.address, "sealed")  # responses sealed too


def _console(text: str, url: str) -> list[str]:
    """Console lines without durations and the server's address."""
    import re

    return [re.sub(r"\d+ ms", "N ms", line).replace(url, "URL") for line in text.splitlines()]


def test_the_console_prints_each_step_as_a_local_run_does(tmp_path, temporal_server):
    doc = _three_steps(tmp_path)
    queue = "console"
    with _server() as server, workers(temporal_server.address, queue, 1):
        argv = ["run", doc, "--input", "id=2", "--server", f"api={server.url}"]
        local = subprocess_cli(*argv, timeout=HANG_GUARD)
        remote = subprocess_cli(*argv, "--temporal", temporal_server.address, "--task-queue", queue,
                                timeout=HANG_GUARD)  # fmt: skip
    assert (local.code, remote.code) == (0, 0), remote.err
    assert _console(remote.out, server.url) == _console(local.out, server.url)
    assert "  ✓  second  POST URL/two/2  200  N ms" in _console(remote.out, server.url)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--auth", "key=1"], "--auth: credentials are not sent to Temporal; give them to the workers"),
        (["--journal", "j.db"], "--journal: Temporal's history is the journal of a run on Temporal"),
        (["--deadline", "5"], "--deadline is not supported with --temporal"),
        (["--replay-http", "run.har"], "--replay-http: a run on Temporal sends from its workers; replay it"),
    ],
)
def test_what_a_run_on_temporal_cannot_honour_is_refused_before_anything_is_sent(tmp_path, flags, message):
    doc = _three_steps(tmp_path)
    refused = subprocess_cli("run", doc, "--input", "id=1", "--temporal", "127.0.0.1:9", *flags)
    assert refused.code == 2
    assert message in refused.err
    alone = subprocess_cli("run", doc, "--input", "id=1", "--task-queue", "q")
    assert (alone.code, alone.err.strip()) == (2, "error: --namespace and --task-queue go with --temporal")


def test_a_worker_rate_spaces_the_requests_it_sends(tmp_path, temporal_server):
    import time

    doc = _document(tmp_path, [_step("first", "one")], {})
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"id": {i}}}\n' for i in range(10)))
    arrivals: list[float] = []
    server = ScriptedServer()
    server.route("POST", "/one/{id}")(lambda request: (arrivals.append(time.monotonic()), (200, {}))[1])
    queue = "rated"
    with server:
        host = server.url.split("//")[1].split("/")[0]
        with workers(temporal_server.address, queue, 1, {}, "--rate", f"{host}=10/s"):
            done = subprocess_cli("run", doc, "--inputs-file", rows, "--concurrency", "10",
                                  "--server", f"api={server.url}", "--temporal", temporal_server.address,
                                  "--task-queue", queue, timeout=HANG_GUARD)  # fmt: skip
    assert done.code == 0, done.err
    assert len(arrivals) == 10
    # 10 requests at 10/s from the one worker: the last starts 0.9 s after the first (a lower bound:
    # a busy machine only spreads them more)
    assert max(arrivals) - min(arrivals) >= 0.6


def test_a_run_rate_is_one_rate_over_all_the_workers(tmp_path, temporal_server):
    import time

    doc = _document(tmp_path, [_step("first", "one")], {})
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"id": {i}}}\n' for i in range(40)))
    arrivals: list[float] = []
    together = threading.Barrier(2)
    server = ScriptedServer()

    @server.route("POST", "/one/{id}")
    def one(request):
        arrivals.append(time.monotonic())
        if len(arrivals) <= 2:  # the first two held until both are in flight: one on each worker
            together.wait(HANG_GUARD)
        return 200, {}

    queue = "shared-rate"
    with server:
        host = server.url.split("//")[1].split("/")[0]
        with workers(temporal_server.address, queue, 2, {}, "--max-exchanges", "1"):
            done = subprocess_cli("run", doc, "--inputs-file", rows, "--concurrency", "10",
                                  "--server", f"api={server.url}", "--rate", f"{host}=5/s",
                                  "--temporal", temporal_server.address, "--task-queue", queue,
                                  timeout=HANG_GUARD)  # fmt: skip
    assert done.code == 0, done.err
    assert len(arrivals) == 40  # each sent once
    # 40 requests at 5/s over both workers: 7.8 s from the first start to the last. Temporal's limit is
    # an average (a short burst may pass), so a lower bound with room; a rate per worker would let the
    # two send them in half that (3.8 s). A busy machine only spreads them more.
    assert max(arrivals) - min(arrivals) >= 7.8 * 0.6


def test_without_a_rate_a_host_has_at_most_concurrency_requests_in_flight_over_all_workers(
    tmp_path, temporal_server
):
    doc = _document(tmp_path, [_step("first", "one")], {})
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"id": {i}}}\n' for i in range(8)))
    state = {"now": 0, "most": 0, "sent": 0}
    changed = threading.Condition()
    server = ScriptedServer()

    @server.route("POST", "/one/{id}")
    def one(request):
        with changed:
            state["now"] += 1
            state["sent"] += 1
            mine = state["sent"]
            state["most"] = max(state["most"], state["now"])
            changed.notify_all()
            if mine <= 2:  # the first two held until both are in flight: the bound is reached
                changed.wait_for(lambda: state["now"] >= 2, HANG_GUARD)
            changed.wait_for(lambda: state["now"] >= 3, 0.5)  # room for a third, were there no bound
            state["now"] -= 1
            changed.notify_all()
        return 200, {}

    queue = "in-flight"
    with server, workers(temporal_server.address, queue, 2):
        done = subprocess_cli("run", doc, "--inputs-file", rows, "--concurrency", "2",
                              "--server", f"api={server.url}", "--temporal", temporal_server.address,
                              "--task-queue", queue, timeout=HANG_GUARD)  # fmt: skip
    assert done.code == 0, done.err
    assert (state["sent"], state["most"]) == (8, 2)


def test_the_library_runs_a_document_on_the_workers(tmp_path, temporal_server):
    import asyncio

    from arazzo_runner import RunOptions, run
    from arazzo_runner.temporal.submit import arun_on_temporal

    doc = _three_steps(tmp_path)
    queue = "library"
    with _server() as server, workers(temporal_server.address, queue, 1):
        options = RunOptions(servers={"api": server.url})
        remote = asyncio.run(
            arun_on_temporal(
                doc, "flow", {"id": 4}, address=temporal_server.address, task_queue=queue, options=options
            )
        )
        local = run(str(doc), "flow", {"id": 4}, options=RunOptions(servers={"api": server.url}))
    assert remote.ok and type(remote) is type(local)
    assert remote.workflows[0].outputs == local.workflows[0].outputs == {"token": "t4", "echo": "t4", "id": 4}
    assert [s.status_code for s in remote.workflows[0].steps] == [200, 200, 200]


def test_a_step_timeout_cuts_the_exchange_on_the_worker(tmp_path, temporal_server):
    from tests.servers import faults

    doc = _document(tmp_path, [_step("first", "one", timeout=1000)], {})
    queue = "timeouts"
    slow = b'{"ok": "' + b"x" * 290 + b'"}'  # a byte every 0.1 s: no read waits long, the whole takes 30 s
    with faults.FaultServer() as server, workers(temporal_server.address, queue, 1):
        server.script("/one/1", faults.drip(slow, interval=0.1))
        done = subprocess_cli("run", doc, "--input", "id=1", "--server", f"api={server.url}",
                              "--format", "json", "--temporal", temporal_server.address,
                              "--task-queue", queue, timeout=HANG_GUARD)  # fmt: skip
    assert done.code == 1, done.err
    step = done.json["workflows"][0]["steps"][0]
    assert step["error"] == "step timeout of 1000 ms exceeded"  # as a local run says it


def test_a_worker_whose_document_differs_refuses_the_run_and_the_client_says_so(tmp_path, temporal_server):
    import time

    doc = _three_steps(tmp_path)
    queue = "other-copy"
    argv = ["run", doc, "--input", "id=1", "--server", "api=http://127.0.0.1:9",
            "--temporal", temporal_server.address, "--task-queue", queue]  # fmt: skip
    client = subprocess.Popen(
        [sys.executable, "-m", "arazzo_runner.cli", *map(str, argv)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        while not workflow_ids(temporal_server.address, queue):  # submitted; no worker runs it yet
            assert client.poll() is None, client.communicate()
            time.sleep(0.1)
        doc.write_text(doc.read_text().replace("title: temporal", "title: another copy"))
        with workers(temporal_server.address, queue, 1):
            _, err = client.communicate(timeout=HANG_GUARD)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    assert client.returncode == 2, err
    assert "the worker's copy differs from the client's (deploy the same document)" in err
    assert "Traceback" not in err


def test_a_cookie_of_the_jar_is_not_sent_unsealed_and_the_contract_mode_reaches_the_workers(
    tmp_path, temporal_server
):
    """Found by review: the jar's Cookie was added after the credential check, so a session cookie went
    into the history in clear; and `--contract fail` (or `--validate-responses error`) never reached the
    workers, which checked in `warn` mode: a violation passed."""
    server = ScriptedServer()

    @server.route("POST", "/one/{id}")
    def one(request):
        return 200, {"token": "t"}, {"Set-Cookie": "sid=SESSION-S3CRET; Path=/"}

    @server.route("POST", "/two/{id}")
    def two(request):
        return 200, {"echo": request.headers.get("cookie")}

    steps = [_step("first", "one"), _step("second", "two", outputs={"echo": "$response.body#/echo"})]
    doc = _document(tmp_path, steps, {"echo": "$steps.second.outputs.echo"})
    argv = ["run", doc, "--input", "id=3", "--server", f"api={server.url}", "--format", "json",
            "--temporal", temporal_server.address]  # fmt: skip
    with server, workers(temporal_server.address, "jar", 1, {}):
        refused = subprocess_cli(*argv, "--task-queue", "jar", timeout=HANG_GUARD)
        sent = [r.path for r in server.requests]
    assert refused.code == 1, refused.err
    error = refused.json["workflows"][0]["steps"][1]["error"]
    assert "request not sent: it carries a cookie of the run's jar, which would enter Temporal's" in error
    assert sent == ["/one/3"]

    drifting = ScriptedServer()
    drifting.route("POST", "/one/{id}")(lambda request: (200, {"token": 7}))  # documented: a string
    api = {**API, "paths": {"/one/{id}": {"post": {**API["paths"]["/one/{id}"]["post"], "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"token": {"type": "string"}}}}}}}}}}}  # fmt: skip
    doc = _document(tmp_path, [_step("first", "one")], {})
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(api))
    with drifting, workers(temporal_server.address, "strict", 1, {}):
        argv = ["run", doc, "--input", "id=1", "--server", f"api={drifting.url}", "--temporal",
                temporal_server.address, "--task-queue", "strict"]  # fmt: skip
        warned = subprocess_cli(*argv, timeout=HANG_GUARD)
        failed = subprocess_cli(*argv, "--contract", "fail", timeout=HANG_GUARD)
        legacy = subprocess_cli(*argv, "--validate-responses", "error", timeout=HANG_GUARD)
    assert warned.code == 0, warned.err
    assert (failed.code, legacy.code) == (1, 1), (failed.out, legacy.out)
