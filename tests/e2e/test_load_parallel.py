"""`arazzo load --parallel N` (issue 36): each user's iterations run their independent steps side by
side, over a real Locust run against a real local server."""

from __future__ import annotations

from tests.e2e.loadkit import SECRET, Counter, arazzo_load, finish, serve, stats_rows, write_documents
from tests.servers.scripted import ScriptedServer
from tests.timeouts import long_test

PAIR = {
    "workflowId": "pair",
    "steps": [
        {
            "stepId": "list",
            "operationId": "listPets",
            "successCriteria": [{"condition": "$statusCode == 200"}],
        },
        {
            "stepId": "show",
            "operationId": "getPet",
            "parameters": [{"name": "petId", "in": "path", "value": 7}],
            "successCriteria": [{"condition": "$statusCode == 200"}],
        },
    ],
}


@long_test
def test_a_users_iteration_sends_its_independent_steps_side_by_side(tmp_path) -> None:
    """The first two requests wait until both are in flight (or 60 s): only steps sent side by side
    let the first iteration through, so the peak is 2 and nothing failed."""
    path = write_documents(tmp_path, PAIR)
    counter = Counter(gate=2, guard=60.0)
    prefix = tmp_path / "run"
    with ScriptedServer() as server:
        serve(server, counter)
        load = arazzo_load(
            path, "--server", f"pets={server.url}", "--auth", f"bearer={SECRET}", "-u", 1, "-t", "2s",
            "--parallel", 2, "--only-summary", "--csv", prefix,
        )  # fmt: skip
        code, out, err = finish(load)
    assert code == 0, out + err
    assert counter.peak == 2
    rows = stats_rows(prefix)
    assert rows["pair.list"]["Failure Count"] == rows["pair.show"]["Failure Count"] == "0"
    assert int(rows["pair.list"]["Request Count"]) == counter.count["list"] > 0
