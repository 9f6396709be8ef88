"""--journal where a run goes wrong: cut by its deadline, a full disk, a reset connection, a killed first
request, a deeply nested --rerun-failed report; and where its keys must stay apart: same-named
dependencies of two documents, answers of a resumed --parallel run delivered in their recorded order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import Any

import pytest
import yaml

from tests.e2e.helpers import ROOT, cli

API = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/unused"}],
    "paths": {
        f"/{name}": {"post": {"operationId": name, "responses": {"200": {"description": "ok"}}}}
        for name in ("one", "slow", "two")
    },
}


def _doc(tmp_path: Any, workflows: list[dict[str, Any]]) -> Any:
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(API))
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "j", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "api.yaml", "type": "openapi"}],
        "workflows": workflows,
    }
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _run(capsys, path, server, *argv: Any) -> Any:
    return cli(capsys, "run", path, "-w", "main", "--server", f"api={server.url}", "--format", "json", *argv)


def test_a_step_cut_by_the_deadline_is_sent_again_on_resume(capsys, tmp_path, server):
    """The exchange cut by --deadline did not complete (the engine abandoned it): docs say a resumed
    run's deadline counts from its own start, so it must be sent, not answered 'deadline exceeded'."""
    slow_calls = []
    gate = threading.Event()

    @server.route("POST", "/one")
    def one(request):
        return 200, {"n": 1}

    @server.route("POST", "/slow")
    def slow(request):
        slow_calls.append(1)
        if len(slow_calls) == 1:
            gate.wait(60)  # held until the first run has given up on it
        return 200, {"n": 2}

    steps = [{"stepId": "a", "operationId": "one"}, {"stepId": "b", "operationId": "slow"}]
    path = _doc(tmp_path, [{"workflowId": "main", "steps": steps}])
    journal = tmp_path / "run.journal"
    first = _run(capsys, path, server, "--journal", journal, "--deadline", "4")
    gate.set()
    assert first.code == 1, first.out
    assert "deadline" in first.json["workflows"][0]["error"]["message"]
    resumed = _run(capsys, path, server, "--journal", journal, "--deadline", "30")
    assert len(slow_calls) == 2, resumed.out  # the cut exchange is sent again
    assert resumed.code == 0, resumed.out


def test_a_step_cut_by_its_timeout_is_sent_again_on_resume(capsys, tmp_path, server):
    """A step `timeout` (Arazzo 1.1) decided by the engine, as a deadline: the exchange is not recorded,
    so the resumed run sends it again (and here gets its answer in time)."""
    slow_calls = []
    gate = threading.Event()
    server.route("POST", "/one")(lambda r: (200, {"n": 1}))

    @server.route("POST", "/slow")
    def slow(request):
        slow_calls.append(1)
        if len(slow_calls) == 1:
            gate.wait(60)
        return 200, {"n": 2}

    steps = [{"stepId": "a", "operationId": "one"}, {"stepId": "b", "operationId": "slow", "timeout": 1000}]
    path = _doc(tmp_path, [{"workflowId": "main", "steps": steps}])
    doc = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**doc, "arazzo": "1.1.0"}, sort_keys=False))
    journal = tmp_path / "run.journal"
    first = _run(capsys, path, server, "--journal", journal)
    gate.set()
    assert first.json["workflows"][0]["error"]["message"] == "step timeout of 1000 ms exceeded"
    resumed = _run(capsys, path, server, "--journal", journal)
    assert len(slow_calls) == 2, resumed.out
    assert resumed.code == 0, resumed.out
    assert len([r for r in server.requests if r.path == "/one"]) == 1  # a: answered from the journal


def _subprocess(argv: list[Any], preexec=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "arazzo_runner.cli", *map(str, argv)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=60, preexec_fn=preexec,
    )  # fmt: skip


@pytest.mark.parametrize("parallel", [[], ["--parallel", "2"]])
def test_a_journal_that_cannot_be_written_is_a_clean_error_not_a_traceback(tmp_path, server, parallel):
    """The disk full (here RLIMIT_FSIZE) under the journal: the run must end with a message naming the
    journal (and a valid --format json document), not `sqlite3.OperationalError` and a broken `{ }`.
    It stops as at Ctrl-C (what ran reported, marked interrupted), exit 2; beside another step too."""
    import resource

    server.route("POST", "/one")(lambda r: (200, {"blob": "x" * 300_000}))
    server.route("POST", "/two")(lambda r: (200, {"n": 2}))
    steps = [{"stepId": "a", "operationId": "one"}, {"stepId": "b", "operationId": "two"}]
    path = _doc(tmp_path, [{"workflowId": "main", "steps": steps}])

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    journal = tmp_path / "j"
    argv = ["run", path, "--server", f"api={server.url}", "--journal", journal, "--format", "json", *parallel]
    done = _subprocess(argv, small_files)
    assert "Traceback" not in done.stderr, done.stderr[-600:]
    document = json.loads(done.stdout)  # one valid document
    assert document["interrupted"] is True
    assert done.returncode == 2
    assert f"--journal {journal}: cannot record: " in done.stderr
    assert done.stderr.rstrip().endswith("resume with the same command")


def test_rerun_failed_with_a_deeply_nested_report_is_a_usage_error(tmp_path, server):
    path = _doc(tmp_path, [{"workflowId": "main", "steps": [{"stepId": "a", "operationId": "one"}]}])
    rows = tmp_path / "rows.jsonl"
    rows.write_text("{}\n")
    report = tmp_path / "report.json"
    report.write_text("[" * 100_000 + "]" * 100_000)
    done = _subprocess(["run", path, "--server", f"api={server.url}", "--inputs-file", rows,
                        "--rerun-failed", report])  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr[-400:]
    assert done.returncode == 2
    assert server.requests == []


def test_dependencies_of_the_same_id_in_two_documents_get_their_own_key_and_entry(capsys, tmp_path, server):
    """Documents a and b each have `setup` (dependsOn of their flow), each with a step `init`: both were
    recorded under `/dep:~setup/~setup#1/init#1@1` (the second overwrote the first), so re-running the
    finished run's journal sends both again, though the docs say it answers the whole run."""
    server.route("POST", "/one")(lambda r: (200, {"n": 1}))
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(API))
    for name in ("a", "b"):
        doc = {
            "arazzo": "1.0.1",
            "info": {"title": name, "version": "1"},
            "sourceDescriptions": [{"name": "api", "url": "api.yaml", "type": "openapi"}],
            "workflows": [
                {"workflowId": "setup", "steps": [
                    {"stepId": "init", "operationId": "one", "requestBody": {"payload": {"doc": name}}}]},
                {"workflowId": f"flow{name}", "dependsOn": ["setup"], "steps": [
                    {"stepId": "go", "operationId": "one", "requestBody": {"payload": {"go": name}}}]},
            ],
        }  # fmt: skip
        (tmp_path / f"{name}.arazzo.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    root = {
        "arazzo": "1.0.1",
        "info": {"title": "root", "version": "1"},
        "sourceDescriptions": [
            {"name": n, "url": f"{n}.arazzo.yaml", "type": "arazzo"} for n in ("a", "b")
        ],
        "workflows": [{"workflowId": "main", "steps": [
            {"stepId": "sa", "workflowId": "$sourceDescriptions.a.flowa"},
            {"stepId": "sb", "workflowId": "$sourceDescriptions.b.flowb"}]}],
    }  # fmt: skip
    path = tmp_path / "root.arazzo.yaml"
    path.write_text(yaml.safe_dump(root, sort_keys=False))
    journal = tmp_path / "run.journal"
    argv = ["run", path, "--server", f"a/api={server.url}", "--server", f"b/api={server.url}",
            "--journal", journal]  # fmt: skip
    keyed = cli(capsys, *argv[:6], "--idempotency-header", "Idempotency-Key")  # no journal needed
    assert keyed.code == 0
    keys = [r.headers["idempotency-key"] for r in server.requests]
    assert len(set(keys)) == 4, keys  # a's setup and b's setup got one key: b's is a 'duplicate'
    server.requests.clear()
    assert cli(capsys, *argv).code == 0
    assert len(server.requests) == 4
    server.requests.clear()
    again = cli(capsys, *argv)
    assert again.code == 0
    assert [r.json() for r in server.requests] == []  # sent again: [{'doc': 'a'}, {'doc': 'b'}]


def test_a_resumed_parallel_run_takes_the_path_of_the_run_it_resumes(capsys, tmp_path, server):
    """--parallel 2: a answers at once, so c starts while b (which fails) is in flight: c is sent,
    passes and is recorded. Re-run with the finished journal, every answer comes at once, b's failure
    arrives before c may start, and c is left out: not the uninterrupted run's result (docs: 'The result
    is the uninterrupted run's': step statuses, reports)."""
    c_arrived = threading.Event()
    server.route("POST", "/one")(lambda r: (200, {"n": 1}))

    @server.route("POST", "/two")
    def third(request):
        c_arrived.set()
        return 200, {"n": 3}

    @server.route("POST", "/slow")
    def failing(request):
        c_arrived.wait(30)  # b fails only once c was sent
        return 500, {"e": "no"}

    steps = [
        {"stepId": "a", "operationId": "one"},
        {"stepId": "b", "operationId": "slow"},
        {"stepId": "c", "operationId": "two"},
    ]
    path = _doc(tmp_path, [{"workflowId": "main", "steps": steps}])
    journal = tmp_path / "run.journal"
    first = _run(capsys, path, server, "--journal", journal, "--parallel", "2")
    shape = [(s["stepId"], s["status"]) for s in first.json["workflows"][0]["steps"]]
    assert shape == [("a", "passed"), ("b", "failed"), ("c", "passed")]
    again = _run(capsys, path, server, "--journal", journal, "--parallel", "2")
    assert [(s["stepId"], s["status"]) for s in again.json["workflows"][0]["steps"]] == shape


def test_a_journal_whose_first_request_was_in_flight_is_not_taken_by_other_inputs(tmp_path):
    """Killed while its FIRST request was at the server: the journal holds no exchange, but a request
    was sent. Docs: a journal is taken only when 'its run was refused before its first request'. Here a
    run with other inputs takes it, keeps its run id, and sends its first request (another id, another
    body) with the SAME Idempotency-Key as the killed run's: a server honouring the key answers it with
    the other request's stored response (or 422)."""
    from tests.e2e.test_journal_resume import _argv, _counting_server, _Hold, _killed_when, _three_steps

    doc = _three_steps(tmp_path)
    journal = tmp_path / "run.journal"
    hold = _Hold()
    with _counting_server(hold, "/one/7") as server:
        # hold /one/7 (the first step; routes[0] is /one/{id})
        original = server._routes[0][2]

        def held_one(request):
            if request.path == "/one/7":
                hold.maybe()
            return original(request)

        server._routes[0] = (*server._routes[0][:2], held_one)
        _killed_when(hold, _argv(doc, server, journal, "--input", "id=7"))
        assert [r.path for r in server.requests] == ["/one/7"]
        other = cli_subprocess(*_argv(doc, server, journal, "--input", "id=8"))
        keys = [r.headers.get("idempotency-key") for r in server.requests]
    assert other.returncode == 2 or keys[0] not in keys[1:], (other.returncode, keys)


def cli_subprocess(*argv: Any) -> subprocess.CompletedProcess:
    return _subprocess(list(argv))


def test_a_transport_failure_is_not_recorded_and_a_resumed_run_sends_it_again(capsys, tmp_path):
    """A connection reset is no answer: the resumed run (the server back) sends the request again and
    passes; the step before it is answered from the journal."""
    from tests.servers.faults import FaultServer, reply, reset

    with FaultServer() as faults:
        faults.script("/one", reply({"n": 1}))
        faults.script("/slow", reset(), reply({"n": 2}))
        steps = [{"stepId": "a", "operationId": "one"}, {"stepId": "b", "operationId": "slow"}]
        path = _doc(tmp_path, [{"workflowId": "main", "steps": steps}])
        journal = tmp_path / "run.journal"
        argv = ["run", path, "-w", "main", "--server", f"api={faults.url}", "--format", "json",
                "--journal", journal]  # fmt: skip
        first = cli(capsys, *argv)
        assert first.code == 1
        resumed = cli(capsys, *argv)
        assert resumed.code == 0, resumed.out
        paths = [hit.path for hit in faults.hits]
    assert paths == ["/one", "/slow", "/slow"]


def test_an_empty_journal_name_is_a_usage_error(capsys, tmp_path, server):
    path = _doc(tmp_path, [{"workflowId": "main", "steps": [{"stepId": "a", "operationId": "one"}]}])
    done = _run(capsys, path, server, "--journal", "")
    assert done.code == 2
    assert "--journal: an empty file name" in done.err
    assert server.requests == []
