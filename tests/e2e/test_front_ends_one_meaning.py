"""Every front end refuses only the workflows that cannot run with one meaning and goes on with the others
(issue 22): `arazzo run --dry-run`, `arazzo tools` (and so `mcp` and `agent`, which build their tools
the same way), `arazzo load` (the pytest plugin: tests/plugin). Over real local servers and processes."""

from __future__ import annotations

import json

from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import listing, ok200
from tests.e2e.helpers import cli, subprocess_cli
from tests.e2e.loadkit import Counter, arazzo_load, finish, serve, stats_rows

GOOD = {"workflowId": "good", "steps": [listing("list", successCriteria=ok200())]}
BROKEN = {"workflowId": "broken", "steps": [listing("list", outputs={"count": "$respons.body#/count"})]}


def test_a_dry_run_plans_what_can_run_and_says_what_would_not(write, server, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    run = cli(capsys, "run", path, "--server", f"pets={server.url}", "--dry-run")
    assert run.code == 1  # as the run: a workflow would not run
    assert "workflow good\n  list  GET " in run.out
    assert "workflow broken\n  not run: output 'count' is not a runtime expression" in run.out
    data = cli(capsys, "run", path, "--server", f"pets={server.url}", "--dry-run", "--format", "json").json
    assert [(r["workflowId"], r["kind"]) for r in data["requests"]] == [
        ("good", "operation"),
        ("broken", "not_run"),
    ]
    assert server.requests == []


def test_tools_offer_the_workflows_that_can_run_and_name_the_others(write, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    listed = cli(capsys, "tools", path, "--format", "openai")
    assert listed.code == 0, listed.err
    assert [t["function"]["name"] for t in json.loads(listed.out)] == ["good"]
    assert (  # why, on the same line (issue 37, point 2)
        "error: workflow 'broken' is not offered as a tool: output 'count' is not a runtime expression: "
        in listed.err
    )
    assert f"(output-value at {path}:" in listed.err

    only_broken = write(arazzo_doc(BROKEN), name="broken.arazzo.yaml")
    refused = cli(capsys, "tools", only_broken, "--format", "openai")
    assert refused.code == 2
    assert "offer no tools: no workflow can run with one meaning" in refused.err


def test_load_runs_the_workflows_that_can_run_and_exits_1_naming_the_other(tmp_path) -> None:
    from tests.e2e.loadkit import write_documents  # Locust runs in `arazzo load`'s own process only
    from tests.servers.scripted import ScriptedServer

    broken = {"workflowId": "broken", "steps": [listing("list", outputs={"n": "$respons.body#/n"})]}
    browse = {"workflowId": "browse", "steps": [listing("list", successCriteria=ok200())]}
    path = write_documents(tmp_path, browse, broken)
    counter = Counter()
    with ScriptedServer() as server:
        serve(server, counter)
        process = arazzo_load(
            path, "--server", f"pets={server.url}", "--auth", "bearer=t0ken", "-u", 1, "-t", "1s",
            "--csv", tmp_path / "out", "--only-summary",
        )  # fmt: skip
        code, out, err = finish(process)
    assert code == 1, out + err
    assert "error: workflow 'broken' is not run: output 'n' is not a runtime expression: " in err
    assert "workflow 'broken' was not run: it cannot run with one meaning" in out
    rows = stats_rows(tmp_path / "out")
    assert "workflow browse" in rows and "workflow broken" not in rows
    assert counter.total > 0


def test_the_console_run_still_refuses_with_exit_2_when_nothing_can_run(write, server) -> None:
    path = write(arazzo_doc(BROKEN))
    result = subprocess_cli("run", path, "--server", f"pets={server.url}")
    assert result.code == 2
    assert "error: " in result.err and "nothing was run" in result.err
    assert server.requests == []
