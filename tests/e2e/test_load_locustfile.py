"""A locustfile of your own with `ArazzoUser`, run by Locust's own command line (`python -m locust`):
weights, rows, credentials, a task of its own calling `run_workflow` (its inputs over the user's row),
a failing step whose cause is in Locust's failure table masked, no cookie carried from one run of a
user to the next, and Locust's CSV counting exactly what the server answered."""

from __future__ import annotations

import sys
import textwrap

from tests.e2e.loadkit import (
    BROWSE,
    SECRET,
    Counter,
    failures_rows,
    finish,
    serve,
    start,
    stats_rows,
    write_documents,
)
from tests.servers.scripted import Recorded, ScriptedServer
from tests.timeouts import long_test

AUDIT = {
    "workflowId": "audit",
    "steps": [
        {
            "stepId": "check",
            "operationId": "flaky",  # GET /flaky answers with the Authorization header it got
            "successCriteria": [{"condition": "$response.body#/seen == 'nobody'"}],
        }
    ],
}
LOCUSTFILE = """
    import asyncio

    from locust import constant, task

    from arazzo_runner.locust import ArazzoUser


    class Shopper(ArazzoUser):
        document = "shop.arazzo.yaml"  # next to this file
        workflows = {{"browse": 3, "audit": 1}}
        inputs_file = "rows.jsonl"
        servers = {{"pets": "{url}"}}
        auth = {{"bearer": "{secret}"}}
        wait_time = constant(0)


    class Custom(ArazzoUser):
        document = "shop.arazzo.yaml"
        rows = [{{"who": "the row's", "limit": 9}}]  # the task's own inputs win
        servers = {{"pets": "{url}"}}
        auth = {{"bearer": "{secret}"}}
        wait_time = constant(0)

        @task
        def browse_five(self):
            try:  # the engine's loop runs in its own greenlet: a task's greenlet sees no running loop
                asyncio.get_running_loop()
                seen = "a running loop"
            except RuntimeError:
                seen = "no loop"
            result = self.run_workflow("browse", {{"limit": 5, "who": seen}})
            assert result.passed, result.to_dict()
"""


@long_test
def test_a_locustfile_of_arazzo_users_runs_under_locusts_own_command_line(tmp_path) -> None:
    write_documents(tmp_path, BROWSE, AUDIT)
    (tmp_path / "rows.jsonl").write_text('{"who": "ann"}\n{"who": "bob"}\n')
    counter = Counter()
    with ScriptedServer() as server:
        serve(server, counter)

        @server.route("GET", "/flaky")
        def audit(request: Recorded) -> tuple:
            counter.enter(request, "audit")
            counter.leave()  # a session cookie: for this run's later steps only, not the user's next run
            cookie = {"Set-Cookie": "session=audit-run; Path=/"}
            return 200, {"seen": request.headers.get("authorization")}, cookie

        locustfile = tmp_path / "locustfile.py"
        locustfile.write_text(textwrap.dedent(LOCUSTFILE.format(url=server.url, secret=SECRET)))
        prefix = tmp_path / "stats"
        argv = [sys.executable, "-m", "locust", "-f", locustfile, "--headless", "-u", 4, "-r", 4, "-t", "3s",
                "--stop-timeout", 10, "--csv", prefix, "--only-summary"]  # fmt: skip
        code, out, err = finish(start(argv))
    assert code == 1, out + err  # audit.check fails every time: Locust's exit code for failures
    rows = stats_rows(prefix)
    assert set(rows) == {"browse.list", "browse.show", "audit.check", "workflow browse", "workflow audit",
                         "Aggregated"}  # fmt: skip
    steps = {name: int(rows[name]["Request Count"]) for name in ("browse.list", "browse.show", "audit.check")}
    assert steps == {"browse.list": counter.count["list"], "browse.show": counter.count["show"],
                     "audit.check": counter.count["audit"]}  # fmt: skip
    assert rows["browse.show"]["Failure Count"] == "0"
    assert rows["audit.check"]["Failure Count"] == rows["audit.check"]["Request Count"] != "0"
    assert rows["workflow audit"]["Failure Count"] == rows["workflow audit"]["Request Count"]
    failures = {row["Name"]: row for row in failures_rows(prefix)}
    assert set(failures) == {"audit.check", "workflow audit"}
    message = failures["audit.check"]["Error"]
    assert "successCriteria failed: $response.body#/seen == 'nobody'" in message and "***" in message
    assert "step check: successCriteria failed" in failures["workflow audit"]["Error"]
    for path in tmp_path.glob("stats_*.csv"):
        assert SECRET not in path.read_text(encoding="utf-8")
    assert SECRET not in out + err
    assert counter.tokens == {f"Bearer {SECRET}"}
    assert {"ann", "bob", "no loop"} == counter.traces  # Shopper's rows, Custom's own inputs
    assert counter.limits == {"2", "5"}
    assert counter.cookies == set()


def test_a_mistake_in_a_locustfile_stops_locust_before_any_user_with_its_message(tmp_path) -> None:
    write_documents(tmp_path)
    locustfile = tmp_path / "locustfile.py"
    locustfile.write_text(
        "from arazzo_runner.locust import ArazzoUser\n\n\n"
        "class Typo(ArazzoUser):\n"
        '    document = "shop.arazzo.yaml"\n'
        '    workflows = {"brwose": 1}\n'
    )
    argv = [sys.executable, "-m", "locust", "-f", locustfile, "--headless", "-u", 1, "-t", "2s"]
    code, out, err = finish(start(argv))
    assert code == 2, out + err
    assert "Typo: no workflow 'brwose' in" in err and "(workflows: browse, adopt)" in err
    assert "Traceback" not in err and "All users spawned" not in err
