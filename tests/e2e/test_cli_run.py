"""`arazzo run`: exit codes, the JSON document, the text report, colours."""

from __future__ import annotations

import io
import re
import sys

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, only_workflow, op_step, run_json, workflow

RUN_KEYS = {"status", "workflows"}
WORKFLOW_KEYS = {"workflowId", "status", "outputs", "error", "steps"}
STEP_KEYS = {"stepId", "status", "attempts", "statusCode", "outputs", "durationMs"}
ANSI = re.compile(r"\x1b\[")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_shape(data: dict) -> None:
    """The documented JSON shape (extra diagnostic members are allowed, the documented ones required)."""
    assert set(data) >= RUN_KEYS
    assert data["status"] in ("passed", "failed")
    for flow in data["workflows"]:
        assert set(flow) >= WORKFLOW_KEYS
        assert isinstance(flow["workflowId"], str)
        assert flow["status"] in ("passed", "failed")
        assert isinstance(flow["outputs"], dict)
        assert flow["error"] is None or set(flow["error"]) == {"stepId", "message"}
        for step in flow["steps"]:
            assert set(step) >= STEP_KEYS
            assert step["status"] in ("passed", "failed")
            assert isinstance(step["attempts"], int) and step["attempts"] >= 1
            assert step["statusCode"] is None or isinstance(step["statusCode"], int)
            assert isinstance(step["outputs"], dict)
            assert _is_number(step["durationMs"]) and step["durationMs"] >= 0


def _goto_and_retry_doc() -> dict:
    poll = op_step(
        "poll",
        "flaky",
        outputs={"status": "$statusCode"},
        onSuccess=[
            {
                "name": "again",
                "type": "goto",
                "stepId": "poll",
                "criteria": [{"condition": "$statusCode == 202"}],
            }
        ],
    )
    check = op_step(
        "check",
        "listPets",
        successCriteria=[{"condition": "$statusCode == 200"}],
        onFailure=[{"name": "retry", "type": "retry", "retryAfter": 0, "retryLimit": 2}],
        outputs={"count": "$response.body#/count"},
    )
    return arazzo_doc(workflow("flow", poll, check, outputs={"count": "$steps.check.outputs.count"}))


def test_json_is_one_document_with_steps_in_execution_order(capsys, write, server):
    server.reply("GET", "/flaky", (202, {}), (200, {}))
    server.reply("GET", "/pets", (503, {}), (200, {"count": 2}))
    result = run_json(capsys, write(_goto_and_retry_doc()), server=server)
    assert result.code == 0, result.out
    assert result.err == ""
    data = result.json  # json.loads: exactly one document, nothing before or after it
    _check_shape(data)
    assert data["status"] == "passed"
    flow = only_workflow(result)
    assert (flow["workflowId"], flow["status"], flow["error"]) == ("flow", "passed", None)
    assert flow["outputs"] == {"count": 2}
    summary = [
        (s["stepId"], s["status"], s["attempts"], s["statusCode"], s["outputs"]) for s in flow["steps"]
    ]
    assert summary == [
        ("poll", "passed", 1, 202, {"status": 202}),  # reached twice by goto: listed twice
        ("poll", "passed", 1, 200, {"status": 200}),
        ("check", "passed", 2, 200, {"count": 2}),  # retried once: one entry, two attempts
    ]
    # beyond the documented members, only these optional diagnostics appear
    assert set(flow) == WORKFLOW_KEYS | {"durationMs"}
    assert set(flow["steps"][0]) == STEP_KEYS | {"request", "action"}
    assert flow["steps"][0]["request"] == {"method": "GET", "url": f"{server.url}/flaky"}
    assert flow["steps"][0]["action"] == "goto poll"
    assert set(flow["steps"][2]) == STEP_KEYS | {"request"}


def test_a_failed_workflow_exits_1_and_names_the_step(capsys, write, server):
    server.reply("GET", "/pets", (500, {"error": "boom"}))
    doc = arazzo_doc(workflow("flow", op_step("list", "listPets"), op_step("never", "flaky")))
    result = run_json(capsys, write(doc), server=server)
    assert result.code == 1
    data = result.json
    _check_shape(data)
    assert data["status"] == "failed"
    flow = only_workflow(result)
    assert flow["error"] == {
        "stepId": "list",
        "message": "HTTP 500 (no successCriteria: a status below 400 is required)",
    }
    assert [s["stepId"] for s in flow["steps"]] == ["list"]  # the run stopped there
    assert [r.path for r in server.requests] == ["/pets"]


def test_every_workflow_runs_in_document_order_and_one_failure_fails_the_run(capsys, write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/flaky", (503, {}))
    doc = arazzo_doc(
        workflow("a", op_step("list", "listPets")),
        workflow("b", op_step("flaky", "flaky")),
        workflow("c", op_step("list", "listPets")),
    )
    result = run_json(capsys, write(doc), server=server)
    assert result.code == 1
    data = result.json
    _check_shape(data)
    assert [(w["workflowId"], w["status"]) for w in data["workflows"]] == [
        ("a", "passed"),
        ("b", "failed"),
        ("c", "passed"),
    ]


def test_selected_workflows_run_in_the_order_given(capsys, write, server):
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/flaky", (200, {}))
    doc = arazzo_doc(workflow("a", op_step("list", "listPets")), workflow("b", op_step("flaky", "flaky")))
    result = run_json(capsys, write(doc), "--workflow", "b", "-w", "a", server=server)
    assert result.code == 0, result.out
    assert [w["workflowId"] for w in result.json["workflows"]] == ["b", "a"]
    assert [r.path for r in server.requests] == ["/flaky", "/pets"]


def test_max_steps_stops_a_goto_loop(capsys, write, server):
    server.reply("GET", "/flaky", (200, {}))
    loop = op_step("loop", "flaky", onSuccess=[{"name": "again", "type": "goto", "stepId": "loop"}])
    result = run_json(capsys, write(arazzo_doc(workflow("flow", loop))), "--max-steps", "3", server=server)
    assert result.code == 1
    flow = only_workflow(result)
    assert len(flow["steps"]) == 3
    assert len(server.requests) == 3
    assert flow["error"]["message"] == "stopped after 3 steps (max-steps): a goto loop?"


def test_text_output_has_one_line_per_step(capsys, write, server):
    server.reply("GET", "/flaky", (202, {}), (200, {}))
    server.reply("GET", "/pets", (503, {}), (200, {"count": 2}))
    result = cli(capsys, "run", write(_goto_and_retry_doc()), "--server", f"pets={server.url}")
    assert result.code == 0, result.out
    lines = result.out.splitlines()
    steps = [line for line in lines if re.match(r"^\s+[✓✗] ", line)]
    url = re.escape(server.url)
    assert len(steps) == 3
    assert re.fullmatch(rf"  ✓  poll  GET {url}/flaky  202  \d+ ms  -> goto poll", steps[0])
    assert re.fullmatch(rf"  ✓  poll  GET {url}/flaky  200  \d+ ms", steps[1])
    assert re.fullmatch(rf"  ✓  check  GET {url}/pets  200  \d+ ms  2 attempts", steps[2])
    assert lines[0] == "workflow flow"
    assert re.fullmatch(r"✓ flow passed \(3 steps, \d+ ms\)", lines[-4])
    assert lines[-3:] == ["  outputs:", "    count: 2", "1 of 1 workflows passed"]
    assert not ANSI.search(result.out)  # captured output is not a terminal


def test_text_output_of_a_failure(capsys, write, server):
    server.reply("GET", "/pets", (404, {}))
    result = cli(
        capsys,
        "run",
        write(arazzo_doc(workflow("flow", op_step("list", "listPets")))),
        "--server",
        f"pets={server.url}",
    )
    assert result.code == 1
    lines = result.out.splitlines()
    message = "HTTP 404 (no successCriteria: a status below 400 is required)"
    assert re.fullmatch(rf"  ✗  list  GET {re.escape(server.url)}/pets  404  \d+ ms", lines[1])
    assert lines[2] == f"      {message}"
    assert lines[-2] == f"  step list: {message}"
    assert lines[-1] == "0 of 1 workflows passed"


class _Terminal(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def test_colours_only_on_a_terminal_without_no_color(monkeypatch, write, server):
    server.reply("GET", "/pets", (200, []))
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))))
    argv = ["run", str(path), "--server", f"pets={server.url}"]
    from arazzo_runner.cli import main

    monkeypatch.delenv("NO_COLOR", raising=False)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(argv) == 0
    assert ANSI.search(terminal.getvalue())

    monkeypatch.setenv("NO_COLOR", "1")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(argv) == 0
    assert not ANSI.search(terminal.getvalue())
    assert "✓  list  GET" in terminal.getvalue()


def test_json_output_never_has_colours_even_on_a_terminal(monkeypatch, write, server):
    server.reply("GET", "/pets", (200, []))
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))))
    from arazzo_runner.cli import main

    monkeypatch.delenv("NO_COLOR", raising=False)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["run", str(path), "--server", f"pets={server.url}", "--format", "json"]) == 0
    assert not ANSI.search(terminal.getvalue())
    _check_shape(__import__("json").loads(terminal.getvalue()))


def test_usage_errors_exit_2_without_running(capsys, write, server):
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))))
    for argv, expected in [
        (["run", path, "--max-steps", "0"], "--max-steps: must be at least 1"),
        (["run", path, "--timeout", "0"], "--timeout: must be greater than 0"),
        (["run", path, "--format", "xml"], "invalid choice: 'xml'"),
        (["run"], "the following arguments are required: file"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "usage: arazzo"),
    ]:
        result = cli(capsys, *argv)
        assert result.code == 2, argv
        assert result.out == ""
        assert expected in result.err, (argv, result.err)
    assert server.requests == []
