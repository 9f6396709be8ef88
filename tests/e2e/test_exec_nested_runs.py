"""Every nested workflow run of a step is kept, in order (a retry's and a goto's runs of the same workflow
are two runs, not one), in the result, the JSON report and JUnit; a workflow stopped by `dependsOn` names
the dependency (issue 12). Real HTTP to a local server."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import execute, flaky, goto, hits, listing, ok200, only, retry, trail
from tests.e2e.helpers import cli

DOWN, UP = (503, {"state": "down"}), (200, {"state": "up"})
WARM = {
    "workflowId": "warm",
    "steps": [listing("touch", outputs={"count": "$response.body#/count"})],
    "outputs": {"count": "$steps.touch.outputs.count"},
}
MAIN = {
    "workflowId": "main",
    "steps": [
        flaky(
            "f",
            successCriteria=ok200(),
            onFailure=[retry("warmUp", workflowId="warm", retryLimit=1), goto("fallBack", workflowId="warm")],
        )
    ],
}


def _serve_warm_runs(server) -> None:
    server.reply("GET", "/flaky", DOWN, DOWN)
    server.reply("GET", "/pets", (200, {"count": 1}), (200, {"count": 2}))


def test_a_retry_and_then_a_goto_to_the_same_workflow_are_two_runs_in_order(write, server):
    _serve_warm_runs(server)
    wf = only(execute(write, server, MAIN, WARM, workflow="main"))

    assert hits(server) == ["GET /flaky", "GET /pets", "GET /flaky", "GET /pets"]
    assert wf["status"] == "passed"  # the goto's run passed and its outcome is the workflow's
    [step] = wf["steps"]
    assert (step["stepId"], step["status"], step["attempts"], step["action"]) == (
        "f",
        "failed",
        2,
        "goto warm",
    )
    # the last run stays where it always was; the runs before it, in order, beside it
    assert step["workflow"]["outputs"] == {"count": 2}
    assert [run["outputs"] for run in step["earlierWorkflows"]] == [{"count": 1}]
    assert [run["workflowId"] for run in step["earlierWorkflows"]] == ["warm"]


def test_a_workflow_step_keeps_the_run_of_every_attempt_and_of_its_retry_helper(write, server):
    server.reply("GET", "/flaky", DOWN, UP)
    server.reply("GET", "/pets", (200, {"count": 1}))
    probe = {"workflowId": "probe", "steps": [flaky("check", successCriteria=ok200())]}
    main = {
        "workflowId": "main",
        "steps": [
            {"stepId": "call", "workflowId": "probe", "onFailure": [retry("warmUp", workflowId="warm")]}
        ],
    }
    wf = only(execute(write, server, main, probe, WARM, workflow="main"))

    assert hits(server) == ["GET /flaky", "GET /pets", "GET /flaky"]
    assert trail(wf) == [("call", "passed", 2)]
    [step] = wf["steps"]
    runs = [*step["earlierWorkflows"], step["workflow"]]
    assert [(r["workflowId"], r["status"]) for r in runs] == [
        ("probe", "failed"),  # attempt 1's own child
        ("warm", "passed"),  # the workflow the retry ran first
        ("probe", "passed"),  # attempt 2's own child
    ]


def test_reports_hold_every_run(capsys, write, server, tmp_path):
    _serve_warm_runs(server)
    path = write(arazzo_doc(MAIN, WARM))
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    argv = ["run", path, "-w", "main", "--server", f"pets={server.url}", "--report-json", report]
    result = cli(capsys, *argv, "--junit", junit)
    assert result.code == 0, result.out

    [step] = json.loads(report.read_text())["workflows"][0]["steps"]
    runs = [*step["earlierWorkflows"], step["workflow"]]
    bodies = [run["steps"][0]["exchanges"][0]["response"]["body"] for run in runs]
    assert [json.loads(body) for body in bodies] == [{"count": 1}, {"count": 2}]
    suites = [suite.get("name") for suite in ET.parse(junit).getroot()]
    assert suites == ["main", "warm (from main/f)", "warm (from main/f)#2"]


def test_a_failed_dependency_is_named_instead_of_an_empty_step_id(capsys, write, server):
    server.reply("GET", "/pets", (500, {}))
    login = {"workflowId": "login", "steps": [listing("signIn")]}
    chat = {"workflowId": "chat", "dependsOn": ["login"], "steps": [flaky("ask")]}
    result = execute(write, server, login, chat, workflow="chat")

    wf = only(result)
    assert wf["error"] == {
        "stepId": None,
        "dependency": "login",
        "message": "dependency 'login' failed; the workflow did not run",
    }
    assert wf["dependencies"][0]["error"]["stepId"] == "signIn"
    assert hits(server) == ["GET /pets"]

    text = cli(capsys, "run", write(arazzo_doc(login, chat)), "-w", "chat", "--server", f"pets={server.url}")
    assert text.code == 1
    assert "  dependency 'login' failed; the workflow did not run" in text.out
    assert "step : " not in text.out and "step None" not in text.out


def test_a_dependency_cycle_names_the_dependency(write, server):
    a = {"workflowId": "a", "dependsOn": ["b"], "steps": [listing("s")]}
    b = {"workflowId": "b", "dependsOn": ["a"], "steps": [listing("s")]}
    other = {"workflowId": "other", "steps": [listing("s")]}
    server.reply("GET", "/pets", (200, []))
    result = execute(write, server, a, b, other)  # every workflow: the cycle's are not run, the rest is

    assert [(w["workflowId"], w["status"]) for w in result["workflows"]] == [
        ("a", "not_run"),
        ("b", "not_run"),
        ("other", "passed"),
    ]
    assert {p["rule"] for p in result["workflows"][0]["problems"]} == {"depends-on-cycle"}
    assert [r.path for r in server.requests] == ["/pets"]
