"""`--journal`: a run answered from its journal takes the same path (retries, goto, nested workflows, loop
items, steps side by side) and sends nothing it holds; `--idempotency-header`; `--rerun-failed`; the
secrets of a resumed run's answers stay masked. In-process runs against a real local server."""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import Any

import pytest
import yaml

from tests.e2e.helpers import cli

API = {
    "openapi": "3.1.0",
    "info": {"title": "counter", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/unused"}],
    "paths": {
        f"/{name}": {"post": {"operationId": name, "responses": {"200": {"description": "ok"}}}}
        for name in ("one", "flaky", "count", "echo")
    },
}


def _doc(tmp_path: Any, workflows: list[dict[str, Any]]) -> Any:
    (tmp_path / "api.yaml").write_text(yaml.safe_dump(API))
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "journal", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "api.yaml", "type": "openapi"}],
        "workflows": workflows,
    }
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _op(step_id: str, operation: str, **fields: Any) -> dict[str, Any]:
    return {"stepId": step_id, "operationId": operation, **fields}


RETRY = [{"name": "again", "type": "retry", "retryAfter": 0, "retryLimit": 3}]
MAIN = {
    "workflowId": "main",
    "steps": [
        _op("first", "one", outputs={"n": "$response.body#/n"}),
        _op("flaky", "flaky", onFailure=RETRY, outputs={"n": "$response.body#/n"}),
        _op(
            "counting",
            "count",
            onSuccess=[
                {
                    "name": "loop",
                    "type": "goto",
                    "stepId": "counting",
                    "criteria": [{"condition": "$response.body#/n < 3"}],
                }
            ],
            outputs={"n": "$response.body#/n"},
        ),
        {
            "stepId": "each",
            "workflowId": "child",
            "x-forEach": {"items": [1, 2, 3], "input": "item"},
            "outputs": {"n": "$outputs.n"},
        },
        {"stepId": "nested", "workflowId": "child", "parameters": [{"name": "item", "value": 9}]},
    ],
    "outputs": {
        "first": "$steps.first.outputs.n",
        "flaky": "$steps.flaky.outputs.n",
        "counting": "$steps.counting.outputs.n",
        "each": "$steps.each.outputs.n",
    },
}
CHILD = {
    "workflowId": "child",
    "inputs": {"type": "object", "properties": {"item": {"type": "integer"}}},
    "steps": [
        _op(
            "call",
            "one",
            requestBody={"payload": {"item": "$inputs.item"}},
            outputs={"n": "$response.body#/n"},
        )
    ],
    "outputs": {"n": "$steps.call.outputs.n"},
}


@pytest.fixture
def api(server):
    """Every answer carries `n`, the number of requests of its path so far (a replay must give the
    recorded one, not a new one); /flaky answers 503 the first time."""
    lock = threading.Lock()
    counts: dict[str, int] = {}

    def counted(path: str) -> int:
        with lock:
            counts[path] = counts.get(path, 0) + 1
            return counts[path]

    for name in ("one", "count"):
        server.route("POST", f"/{name}")(lambda r, name=name: (200, {"n": counted(name)}))

    @server.route("POST", "/flaky")
    def flaky(request):
        n = counted("flaky")
        return (503, {"n": n}) if n == 1 else (200, {"n": n})

    @server.route("POST", "/echo")
    def echo(request):
        return 200, {"cookie": request.headers.get("cookie"), "n": counted("echo")}

    return server


def _run(capsys, path, server, *argv: Any) -> Any:
    return cli(capsys, "run", path, "-w", "main", "--server", f"api={server.url}", "--format", "json", *argv)


@pytest.mark.parametrize("parallel", ["1", "4"])
def test_a_run_answered_from_its_journal_takes_the_same_path_and_sends_nothing(
    capsys, tmp_path, api, parallel
):
    path = _doc(tmp_path, [MAIN, CHILD])
    journal = tmp_path / "run.journal"
    first = _run(capsys, path, api, "--journal", journal, "--parallel", parallel)
    assert first.code == 0, first.err
    sent = len(api.requests)
    # one, flaky twice (a retry), count three times (goto), the child four times (3 items, 1 nested)
    assert sent == 1 + 2 + 3 + 4
    again = _run(capsys, path, api, "--journal", journal, "--parallel", parallel)
    assert again.code == 0, again.err
    assert len(api.requests) == sent  # every exchange answered from the journal
    assert f"{sent} exchange(s) answered from it" in again.err
    assert again.json["workflows"][0]["outputs"] == first.json["workflows"][0]["outputs"]

    def shape(data: dict[str, Any]) -> list[Any]:
        return [(s["stepId"], s["status"], s.get("attempts")) for s in data["workflows"][0]["steps"]]

    assert shape(again.json) == shape(first.json)


def test_the_idempotency_key_is_one_per_step_execution_the_same_on_its_retries(capsys, tmp_path, api):
    path = _doc(tmp_path, [{"workflowId": "main", "steps": MAIN["steps"][:3]}])
    result = _run(capsys, path, api, "--idempotency-header", "Idempotency-Key")
    assert result.code == 0, result.err
    keys = [(r.path, r.headers["idempotency-key"]) for r in api.requests]
    assert [p for p, _ in keys] == ["/one", "/flaky", "/flaky", "/count", "/count", "/count"]
    assert keys[1][1] == keys[2][1]  # a retry is the same step execution
    assert len({k for _, k in keys}) == 5  # each goto back is a new execution


def test_rerun_failed_runs_only_the_rows_that_failed(capsys, tmp_path, server):
    @server.route("POST", "/one")
    def one(request):
        item = request.json()["item"]
        return (500, {"e": "no"}) if item % 3 == 0 else (200, {"n": item})

    path = _doc(tmp_path, [{**CHILD, "workflowId": "main"}])
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"item": {i}}}\n' for i in range(1, 10)))
    report = tmp_path / "report.json"
    first = _run(capsys, path, server, "--inputs-file", rows, "--report-json", report)
    assert first.code == 1
    server.requests.clear()
    rerun = _run(capsys, path, server, "--inputs-file", rows, "--rerun-failed", report)
    assert rerun.code == 1
    assert sorted(r.json()["item"] for r in server.requests) == [3, 6, 9]
    assert [(r["row"], r["line"]) for r in rerun.json["rows"]] == [(3, 3), (6, 6), (9, 9)]


def test_rerun_failed_needs_rows_and_a_rows_report(capsys, tmp_path, server):
    path = _doc(tmp_path, [{**CHILD, "workflowId": "main"}])
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"status": "failed", "workflows": []}))
    alone = _run(capsys, path, server, "--rerun-failed", report)
    assert alone.code == 2 and "--rerun-failed: it selects rows of --inputs-file" in alone.out
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"item": 1}\n')
    single = _run(capsys, path, server, "--inputs-file", rows, "--rerun-failed", report)
    assert single.code == 2 and "not the report of an --inputs-file run" in single.out
    assert server.requests == []


def test_a_resumed_run_sends_the_recorded_cookies_and_masks_them(capsys, tmp_path, server):
    @server.route("POST", "/one")
    def login(request):
        return 200, {"n": 1}, {"Set-Cookie": "sid=S3cretSessionValue; Path=/; HttpOnly"}

    @server.route("POST", "/echo")
    def echo(request):
        return 200, {"cookie": request.headers.get("cookie")}

    steps = [_op("login", "one"), _op("use", "echo", outputs={"cookie": "$response.body#/cookie"})]
    path = _doc(tmp_path, [{"workflowId": "main", "steps": steps}])
    journal = tmp_path / "run.journal"
    assert _run(capsys, path, server, "--journal", journal).code == 0
    db = sqlite3.connect(journal)  # as if the run had been killed while `use` was in flight
    assert db.execute("DELETE FROM exchanges WHERE key LIKE '%/use#1@%'").rowcount == 1
    db.commit()
    db.close()
    server.requests.clear()
    report = tmp_path / "report.json"
    resumed = _run(capsys, path, server, "--journal", journal, "--report-json", report)
    assert resumed.code == 0, resumed.err
    assert [r.path for r in server.requests] == ["/echo"]  # the login was answered by the journal
    assert server.requests[0].headers["cookie"] == "sid=S3cretSessionValue"  # its cookie, sent back
    assert "S3cretSessionValue" not in resumed.out
    assert "S3cretSessionValue" not in report.read_text()


def test_the_library_takes_a_journal_path(tmp_path, api):
    from arazzo_runner import RunOptions, run

    outputs = {"first": "$steps.first.outputs.n"}
    path = _doc(tmp_path, [{"workflowId": "main", "steps": MAIN["steps"][:1], "outputs": outputs}])
    servers = {"api": api.url}
    options = RunOptions(servers=servers, journal=tmp_path / "lib.journal")
    first = run(path, "main", options=options)
    again = run(path, "main", options=RunOptions(servers=servers, journal=str(tmp_path / "lib.journal")))
    assert len(api.requests) == 1
    assert again.workflows[0].outputs["first"] == first.workflows[0].outputs["first"] == 1


def test_a_journal_that_recorded_nothing_is_taken_by_the_next_run(capsys, tmp_path, server):
    server.route("POST", "/one")(lambda r: (200, {"n": r.json()["item"]}))
    path = _doc(tmp_path, [{**CHILD, "workflowId": "main"}])
    journal = tmp_path / "run.journal"
    refused = _run(capsys, path, server, "--journal", journal, "--inputs", '{"item": "abc"}')
    assert refused.code == 2 and server.requests == []  # refused before its first request
    fixed = _run(capsys, path, server, "--journal", journal, "--inputs", '{"item": 4}')
    assert fixed.code == 0, fixed.err
    assert fixed.json["workflows"][0]["outputs"] == {"n": 4}


def test_a_run_reaching_asyncapi_steps_refuses_a_journal(capsys, tmp_path):
    from tests.e2e.helpers import ROOT

    document = ROOT / "workflows" / "order-events.arazzo.yaml"
    result = cli(capsys, "run", document, "--journal", tmp_path / "run.journal")
    assert result.code == 2
    assert "the run reaches AsyncAPI steps, whose messages it would send again on resume" in result.err
    assert "Traceback" not in result.err


def test_a_resume_inside_loop_items_and_nested_workflows_sends_only_what_is_missing(capsys, tmp_path, api):
    path = _doc(tmp_path, [MAIN, CHILD])
    journal = tmp_path / "run.journal"
    first = _run(capsys, path, api, "--journal", journal, "--parallel", "4")
    assert first.code == 0, first.err
    db = sqlite3.connect(journal)  # as if killed while item 1 of the loop and the nested run were in flight
    gone = db.execute(
        "DELETE FROM exchanges WHERE key LIKE '%/each#1/child[1]#1/%' OR key LIKE '%/nested#1/%'"
    )
    assert gone.rowcount == 2
    db.commit()
    db.close()
    api.requests.clear()
    resumed = _run(capsys, path, api, "--journal", journal, "--parallel", "4")
    assert resumed.code == 0, resumed.err
    assert sorted(r.json()["item"] for r in api.requests) == [2, 9]  # the loop's item 1 (of 0..2) and nested
    before, after = (r.json["workflows"][0]["outputs"] for r in (first, resumed))
    assert (after["first"], after["flaky"], after["counting"]) == (
        before["first"],
        before["flaky"],
        before["counting"],
    )
    assert [after["each"][0], after["each"][2]] == [before["each"][0], before["each"][2]]  # answered again
